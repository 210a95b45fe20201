package cli_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHistoryWatch: `history NAME --watch` prints the table, then a row when
// another writer (helm-operator-plugins' driver) adds a revision, and ends with
// status 0 when its context is cancelled, as by Ctrl-C.
func TestHistoryWatch(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "app", 2)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		a := &cli.App{}
		done <- a.Run(ctx, []string{"history", "app", "-w", "-n", e.ns, "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir}, strings.NewReader(""), &out, &errb)
	}()
	wait := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok(out.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: stdout:\n%s\nstderr:\n%s", what, out.String(), errb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("the table", func(s string) bool { return strings.Contains(s, "REVISION") && strings.Count(s, "\n") >= 3 })
	rev := e.addPending(byPlugins, "app", release.StatusPendingUpgrade, time.Minute)
	wait("a row for the new revision", func(s string) bool {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		last := strings.Fields(lines[len(lines)-1])
		return len(lines) == 4 && last[0] == itoa(rev) && strings.Contains(lines[3], "pending-upgrade")
	})
	cancel()
	select {
	case code := <-done:
		if code != cli.ExitOK {
			t.Errorf("exit %d after the interrupt, want 0; stderr:\n%s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("history --watch did not end when its context was cancelled")
	}
	t.Logf("stdout:\n%s", out.String())
}
