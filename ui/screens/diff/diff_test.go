package diff

import (
	"errors"
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open compares revisions from and to of web on the fixture (to 0: from with
// the live cluster).
func open(t testing.TB, from, to, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	c := screentest.Common(screentest.NewFixture(t).Client)
	s := New(c, "default", "web", from, to)
	if to == 0 {
		s = NewLive(c, "default", "web", from)
	}
	return s, screentest.New(t, s, w, h)
}

// answerLive answers the live diff s asks for with screentest.FakeDrift.
func answerLive(t testing.TB, h *screentest.Harness, s *Screen) {
	t.Helper()
	h.Send(LiveLoadedMsg{Ns: s.ns, Name: s.name, Rev: s.from, Reveal: s.reveal, Drift: screentest.FakeDrift(t, s.ns, s.name, s.from, s.reveal)})
}

// TestGolden draws the diffs at 80x24 and 120x40: between two revisions, at
// its changes, its Secret masked and revealed; with the live cluster, as the
// demo answers and as a cluster with drift would.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to int
		steps    func(h *screentest.Harness, s *Screen)
	}{
		{"revisions", 3, 4, nil},
		{"next_change", 3, 4, func(h *screentest.Harness, _ *Screen) { h.Press("n", "n") }},
		{"secret", 3, 4, func(h *screentest.Harness, _ *Screen) { h.Press("n", "n", "n", "n") }},
		{"secret_revealed", 3, 4, func(h *screentest.Harness, _ *Screen) { h.Press("v", "n", "n", "n", "n") }},
		{"apart", 1, 4, nil},
		{"live_demo", 4, 0, nil},
		{"live", 4, 0, func(h *screentest.Harness, s *Screen) { answerLive(t, h, s) }},
		{"live_next_change", 4, 0, func(h *screentest.Harness, s *Screen) { answerLive(t, h, s); h.Press("n", "n") }},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				s, h := open(t, c.from, c.to, sz[0], sz[1])
				if c.steps != nil {
					c.steps(h, s)
				}
				h.Golden()
			})
		}
	}
}

// TestJumps: n and N (and ] and [) go from change to change; the counter
// reaches the last changes, which cannot scroll to the top of the view, one n at
// a time, and stays at the last; a late answer for other options is dropped.
func TestJumps(t *testing.T) {
	s, h := open(t, 3, 4, 120, 37)
	if s.Title() != "diff 3→4" {
		t.Errorf("title %q", s.Title())
	}
	if s.view.Changes() != 8 {
		t.Fatalf("%d changes, want 8 (4 resources, a hook, values, computed values, chart)", s.view.Changes())
	}
	h.Press("n", "n").Contains("change 2 of 8")
	h.Press("]").Contains("change 3 of 8")
	h.Press("N").Contains("change 2 of 8")
	h.Press("[", "[").Contains("change 1 of 8")
	for i := 2; i <= 8; i++ {
		h.Press("n").Contains(fmt.Sprintf("change %d of 8", i))
	}
	h.Press("n").Contains("change 8 of 8")
	h.Press("N").Contains("change 7 of 8")
	h.Send(LoadedMsg{Ns: "default", Name: "web", From: 3, To: 4, Reveal: true, Err: errors.New("late")})
	if s.err != nil {
		t.Fatal("a late answer for other options was applied")
	}
	// v asks for the revealed diff once, then shows each from memory.
	h.Press("v", "home").Contains("secrets REVEALED")
	h.Press("v").Contains("secrets masked")
	if len(s.results) != 2 {
		t.Errorf("%d diffs read for two reveal states", len(s.results))
	}
}

// TestLive: the live diff of a revision says the demo has no live objects; an
// answer for another revision or reveal state is dropped; the right one is
// shown masked, a heading per object with a diff, and v asks again, revealed.
func TestLive(t *testing.T) {
	s, h := open(t, 4, 0, 120, 37)
	h.Contains("live objects are not available")
	if s.Title() != "diff 4→live" {
		t.Errorf("title %q", s.Title())
	}

	stale := screentest.FakeDrift(t, "default", "web", 3, false)
	h.Send(LiveLoadedMsg{Ns: "default", Name: "web", Rev: 3, Drift: stale})
	h.Send(LiveLoadedMsg{Ns: "default", Name: "web", Rev: 4, Reveal: true, Drift: screentest.FakeDrift(t, "default", "web", 4, true)})
	h.Lacks("hunter2", "Objects:")

	answerLive(t, h, s)
	h.Contains("revision 4 → live", "Objects: 2 changed, 1 missing, 1 extra, 1 unreadable",
		"~ Deployment/", "(missing)", "(extra)", "(unreadable)", "auth can-i").Lacks("hunter2")
	if s.view.Changes() != 4 {
		t.Errorf("want a heading per object with a diff (4), got %d", s.view.Changes())
	}
	h.Press("n").Contains("spec.replicas · changed by kubectl (Update /scale)", "change 1 of 4")

	// v asks for the revealed comparison: the demo cannot answer, a fake can.
	h.Press("v")
	if !s.reveal || s.drifts[true] != nil {
		t.Fatalf("v did not ask for the revealed live diff")
	}
	answerLive(t, h, s)
	if s.drifts[true] == nil {
		t.Fatalf("revealed answer not taken")
	}
	h.Press("home").Contains("secrets REVEALED")
	h.Press("n", "n").Contains("-hunter2-original", "+hunter2-rotated")
}

// TestCopies: y copies the diff shown, as it reads unstyled and masked as
// shown, as y copies a revision's tab; it is the only thing y does here.
func TestCopies(t *testing.T) {
	s, h := open(t, 3, 4, 120, 40)
	h.Press("y")
	want := fmt.Sprintf("Copied the diff of revisions 3 and 4 (%d bytes) to the clipboard, secrets masked.", len(s.results[false].Unified()))
	copied := false
	for _, m := range h.Out {
		if m, ok := m.(common.StatusMsg); ok && m.Text == want {
			copied = true
		}
	}
	if !copied {
		t.Errorf("y in a diff: %v; want the status %q", h.Out, want)
	}
	if s.reveal || s.live {
		t.Error("y changed what the diff shows")
	}
}
