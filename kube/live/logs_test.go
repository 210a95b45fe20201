package live_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube/live"
)

// TestStreamFollows: `chunkview logs -f` (Stream with Follow) over the API
// server's log endpoint as a kubelet serves it, a response that stays open and
// writes a line at a time. Each container's lines are written as they arrive,
// under their prefix and masked, while the response is still open: the second
// line is sent only once the first was seen written. Ending the context (Ctrl-C)
// ends the stream without an error; both containers were asked to follow.
func TestStreamFollows(t *testing.T) {
	next := map[string]chan string{"web": make(chan string), "sidecar": make(chan string)}
	var asked sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.URL.Query().Get("container")
		ch, ok := next[c]
		if !ok || !strings.HasSuffix(r.URL.Path, "/namespaces/shop/pods/web-1/log") {
			http.NotFound(w, r)
			return
		}
		asked.Store(c, r.URL.Query().Get("follow"))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case line := <-ch:
				fmt.Fprintln(w, line)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	targets := []live.LogTarget{
		{Namespace: "shop", Pod: "web-1", Container: "web", Node: "n1"},
		{Namespace: "shop", Pod: "web-1", Container: "sidecar", Node: "n1"},
	}
	scrub := func(s string) string { return strings.ReplaceAll(s, "hunter2", "<masked>") }
	ctx, cancel := context.WithCancel(t.Context())
	out := &kubetest.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- live.Stream(ctx, cs, targets, live.LogOptions{Follow: true, Tail: -1, Prefix: true}, scrub, out)
	}()

	next["web"] <- "connecting with password hunter2"
	out.WaitFor(t, "[pod/web-1/web] connecting with password <masked>\n")
	next["sidecar"] <- "proxy up"
	out.WaitFor(t, "[pod/web-1/sidecar] proxy up\n")
	next["web"] <- "panic: connection refused"
	out.WaitFor(t, "[pod/web-1/web] panic: connection refused\n")
	select {
	case err := <-done:
		t.Fatalf("Stream ended while the logs were open: %v", err)
	default:
	}

	cancel() // Ctrl-C
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Stream after Ctrl-C: %v, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Stream still follows 20s after its context ended")
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Errorf("a secret was written: %q", out.String())
	}
	for _, c := range []string{"web", "sidecar"} {
		if f, _ := asked.Load(c); f != "true" {
			t.Errorf("the log of %s was asked with follow=%v, want true", c, f)
		}
	}
}
