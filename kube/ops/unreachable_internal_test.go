package ops

import (
	"errors"
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube"
)

// TestLostServer: an error Helm flattened to text is taken for the server gone
// only when it names a request to this server and a connection's failure; the
// failure of a webhook the server called, which names the webhook's address, and
// an error already classified are left as they are.
func TestLostServer(t *testing.T) {
	const server = "https://10.0.0.1:6443"
	for _, tc := range []struct {
		msg  string
		lost bool
	}{
		{`failed to delete release: app (Helm reported: Delete "https://10.0.0.1:6443/api/v1/namespaces/a/configmaps/x": dial tcp 10.0.0.1:6443: connect: connection refused)`, true},
		{`Patch "https://10.0.0.1:6443/apis/apps/v1/namespaces/a/deployments/x?fieldManager=helm": EOF && Patch "https://10.0.0.1:6443/api/v1/...": EOF`, true},
		{`Get "https://10.0.0.1:6443/api/v1/namespaces/a/pods": http2: client connection lost`, true},
		{`Internal error occurred: failed calling webhook "v.example.com": failed to call webhook: Post "https://webhook.svc:443/validate": dial tcp 10.0.0.9:443: connect: connection refused`, false},
		{`Patch "https://10.0.0.1:6443/api/v1/namespaces/a/configmaps/x": admission webhook denied the request`, false},
		{`failed to delete release: app`, false},
	} {
		got := lostServer(errors.New(tc.msg), server)
		if errors.Is(got, kube.ErrUnreachable) != tc.lost {
			t.Errorf("%q: unreachable %v, want %v", tc.msg, !tc.lost, tc.lost)
		}
	}
	// A kubeconfig's server without a scheme names the same requests.
	if got := lostServer(errors.New(`Put "https://10.0.0.1:6443/api/v1/x": unexpected EOF`), "10.0.0.1:6443"); !errors.Is(got, kube.ErrUnreachable) {
		t.Errorf("a server without its scheme: %v", got)
	}
	timeout := fmt.Errorf("%w: Delete \"https://10.0.0.1:6443/x\": connection reset by peer", kube.ErrTimeout)
	if got := lostServer(timeout, server); got != timeout {
		t.Errorf("an error already classified: %v", got)
	}
}
