package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube/live"
)

// progressStatus is a status of three objects, n of them Current.
func progressStatus(n int) *live.ReleaseStatus {
	st := &live.ReleaseStatus{}
	for i, name := range []string{"a", "b", "web"} {
		r := live.ResourceStatus{Kind: "Deployment", Namespace: "shop", Name: name, Status: live.StatusCurrent, Message: "Deployment is available. Replicas: 2"}
		if i >= n {
			r.Status, r.Message = live.StatusInProgress, "Available: 1/2, and a message long enough to pass the end of an eighty-column terminal line"
		}
		st.Resources = append(st.Resources, r)
	}
	return st
}

// TestWaitProgressTerminal: on a terminal, rollback --wait's progress is one
// line redrawn in place (carriage return, erase line), never wider than 79
// columns, so that it never wraps, and ended with a newline; a note goes on a
// line of its own above it.
func TestWaitProgressTerminal(t *testing.T) {
	var b bytes.Buffer
	p := &waitProgress{w: &b, tty: true, total: 3}
	p.show(progressStatus(1), nil)
	p.note("Note: polling")
	p.show(progressStatus(2), []string{"Deployment/shop/b"})
	p.show(progressStatus(3), []string{"Deployment/shop/web"})
	p.done()
	const redraw = "\r\x1b[2K"
	want := redraw + "1/3 Current, waiting for Deployment/shop/b InProgress: Available: 1/2, and a m…" +
		redraw + "Note: polling\n" +
		redraw + "2/3 Current, waiting for Deployment/shop/web InProgress: Available: 1/2, and a…" +
		redraw + "3/3 Current\n"
	if got := b.String(); got != want {
		t.Fatalf("terminal progress:\n%q\nwant\n%q", got, want)
	}
	for _, line := range strings.Split(strings.ReplaceAll(b.String(), redraw, "\n"), "\n") {
		if n := len([]rune(line)); n > maxProgressWidth {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
}

// TestWaitProgressLines: elsewhere, a line per change, naming the object and
// its new status.
func TestWaitProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := &waitProgress{w: &b, total: 3}
	p.show(progressStatus(2), nil)
	p.show(progressStatus(3), []string{"Deployment/shop/web"})
	p.done()
	want := "2/3 Current; not yet: Deployment/shop/web InProgress (Available: 1/2, and a message long enough to pass the end of an eighty-column terminal line)\n" +
		"3/3 Current: Deployment/shop/web is Current (Deployment is available. Replicas: 2)\n"
	if got := b.String(); got != want {
		t.Fatalf("progress lines:\n%q\nwant\n%q", got, want)
	}
}
