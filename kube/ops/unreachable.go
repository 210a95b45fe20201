package ops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/kube"
)

// lostServer gives back err marked kube.ErrUnreachable when it says that a
// request to the API server found no server: Helm flattens some errors to text
// (its uninstall's "failed to delete release: NAME", its kube client's joined
// update errors), and its log keeps the cause, so kube.Explain, which reads the
// error's chain, cannot tell that the server went away in the middle of the
// operation. The text must name a request to this server, `"https://HOST/...":`
// as Go's HTTP client writes it (with or without the scheme the kubeconfig
// gives), and a connection's failure, so that the failure
// of a webhook the server called, which names the webhook's address, is not
// taken for the server's. err as it is otherwise, and when it is classified
// already.
func lostServer(err error, server string) error {
	if err == nil || server == "" || errors.Is(err, kube.ErrUnreachable) || errors.Is(err, kube.ErrTimeout) {
		return err
	}
	host := strings.TrimSuffix(server, "/")
	if _, rest, ok := strings.Cut(host, "://"); ok {
		host = rest
	}
	msg := err.Error()
	if !strings.Contains(msg, "://"+host+"/") {
		return err
	}
	for _, s := range lostConnection {
		if strings.Contains(msg, s) {
			return fmt.Errorf("%w: the connection to %s failed in the middle of the operation: retry once it answers: %w", kube.ErrUnreachable, server, err)
		}
	}
	return err
}

// lostConnection are the words Go's network and HTTP stacks end a request's
// error with when the server went away (refused, reset, closed mid-answer,
// unreachable).
var lostConnection = []string{
	"connect: connection refused", "connection reset by peer", "broken pipe", `": EOF`, "unexpected EOF",
	"http2: client connection lost", "http2: server sent GOAWAY", "server closed idle connection",
	"use of closed network connection", "network is unreachable", "no route to host",
}
