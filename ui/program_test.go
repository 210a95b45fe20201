package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestProgramRollback runs the whole program, as a terminal would, through the
// on-call path: find the release in the list, open its history, look at the last
// change, roll back with confirmation, and see the new revision in the history.
func TestProgramRollback(t *testing.T) {
	f := newFixture(t)
	opts := Options{Demo: true, Now: func() time.Time { return testNow }}
	m := newModel(newCommon(context.Background(), f.Client, opts), opts)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))

	out := &screenReader{r: tm.Output()}
	start := time.Now()
	waitFor := func(what ...string) {
		t.Helper()
		err := waitOutput(out, what, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		out.reset()
		t.Logf("%s: %v", what, time.Since(start))
	}
	press := func(k string) { tm.Send(keyMsg(k)) }

	waitFor("pending-upgrade")
	tm.Type("/web")
	press("enter")
	waitFor("filter: web")
	press("enter")
	waitFor("In 3 upgrades at this rate (revision 7) it outgrows the write limit")
	press("d")
	waitFor("web: revision 3 → 4", "+ ConfigMap/default/web-flags")
	press("esc")
	waitFor("Size per revision")
	press("up")
	press("R")
	waitFor("Roll back web from revision 4 to revision 3?")
	press("ctrl+r")
	waitFor("revision 5 created")
	press("esc")
	waitFor("Rollback to 3")
	press("q")

	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	scr := plainScreen(final.render())
	if !strings.Contains(scr, "    5 ✓ deployed") || !strings.Contains(scr, "    4 · superseded") {
		t.Fatalf("after the rollback the history does not show revision 5 deployed and 4 superseded:\n%s", scr)
	}
}

// screenReader accumulates the program's output and looks for text in it with
// the escape sequences removed; the renderer writes only what changed, but
// a new phrase arrives whole.
type screenReader struct {
	r   io.Reader
	buf bytes.Buffer
}

func (s *screenReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.buf.Write(p[:n])
	return n, err
}

func (s *screenReader) has(what string) bool {
	return strings.Contains(ansi.Strip(s.buf.String()), what)
}

func (s *screenReader) reset() { s.buf.Reset() }

// waitOutput reads the program's output until it shows what, or fails with the
// output seen after timeout.
func waitOutput(s *screenReader, what []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		_, _ = io.ReadAll(s)
		if slices.IndexFunc(what, func(w string) bool { return !s.has(w) }) < 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the program never showed %q; it wrote:\n%s", what, ansi.Strip(s.buf.String()))
}

var _ tea.Model = (*model)(nil)
