package status

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open opens the resources view of revision rev of web on the fixture, with
// its first read answered.
func open(t testing.TB, rev int, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	s := New(screentest.Common(screentest.NewFixture(t).Client), "default", "web", rev)
	return s, screentest.New(t, s, w, h)
}

// answer hands the screen st as the answer of its current read.
func answer(h *screentest.Harness, s *Screen, st *live.ReleaseStatus) {
	h.Send(LoadedMsg{Ns: s.ns, Name: s.name, Gen: s.gen, St: st})
}

// TestGolden draws the view at 80x24 and 120x40: the demo's answer (no live
// objects), a status read, a live update, polling, scrolled, and an older
// revision than the one deployed.
func TestGolden(t *testing.T) {
	changed := func(h *screentest.Harness, s *Screen) {
		st := screentest.FakeStatus("default")
		st.Resources[2].Status, st.Resources[2].Message = live.StatusCurrent, "Deployment is available. Replicas: 2"
		h.Send(LiveMsg{Ns: s.ns, Name: s.name, Gen: s.gen, Upd: live.StatusUpdate{Status: st, Changed: []string{"Deployment/default/web"}}})
	}
	for _, c := range []struct {
		name  string
		rev   int
		steps func(h *screentest.Harness, s *Screen)
	}{
		{"demo", 0, func(*screentest.Harness, *Screen) {}},
		{"read", 0, func(h *screentest.Harness, s *Screen) { answer(h, s, screentest.FakeStatus("default")) }},
		{"changed", 0, func(h *screentest.Harness, s *Screen) { answer(h, s, screentest.FakeStatus("default")); changed(h, s) }},
		{"polling", 0, func(h *screentest.Harness, s *Screen) {
			answer(h, s, screentest.FakeStatus("default"))
			h.Send(LiveMsg{Ns: s.ns, Name: s.name, Gen: s.gen, Upd: live.StatusUpdate{Status: screentest.FakeStatus("default"), Polling: true,
				Note: "watching deployments in default was refused (403 Forbidden): reading them every 5s instead"}})
		}},
		{"scrolled", 0, func(h *screentest.Harness, s *Screen) {
			answer(h, s, screentest.FakeStatus("default"))
			h.Press("pgdown")
		}},
		{"older_revision", 3, func(h *screentest.Harness, s *Screen) {
			st := screentest.FakeStatus("default")
			st.Revision, st.ReleaseStatus, st.LatestRevision, st.LatestStatus = 3, "superseded", 4, "deployed"
			answer(h, s, st)
		}},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				s, h := open(t, c.rev, sz[0], sz[1])
				c.steps(h, s)
				h.Golden()
			})
		}
	}
}

// TestFollowsLive: the view says why it has no objects on the demo, shows a
// status read and follows it live; a live update changes the row it concerns;
// an update or an answer of an earlier read is dropped; r reads again; the
// watch's end arrives through the program's Send and the view then says it no
// longer follows; closing the screen stops the watch.
func TestFollowsLive(t *testing.T) {
	s, h := open(t, 0, 100, 27)
	if s.send == nil {
		t.Fatal("the screen was not given the program's Send for its watch")
	}
	h.Contains("live objects are not available")

	answer(h, s, screentest.FakeStatus("default"))
	h.Contains("web · revision 4 deployed · 3 of 5 Current (1 InProgress, 1 NotFound)", "● following live", "Available: 1/2")
	if !s.live || s.stop == nil {
		t.Fatalf("not following after the read: live %v", s.live)
	}
	gen := s.gen
	st := screentest.FakeStatus("default")
	st.Resources[2].Status, st.Resources[2].Message = live.StatusCurrent, "Deployment is available. Replicas: 2"
	h.Send(LiveMsg{Ns: "default", Name: "web", Gen: gen - 1, Upd: live.StatusUpdate{Status: st}})
	h.Contains("Available: 1/2").Lacks("Replicas: 2")
	h.Send(LiveMsg{Ns: "default", Name: "web", Gen: gen, Upd: live.StatusUpdate{Status: st, Changed: []string{"Deployment/default/web"}}})
	h.Contains("4 of 5 Current (1 NotFound)", "Deployment is available. Replicas: 2", "1 change seen").Lacks("Available: 1/2")

	// The demo's watch of objects it does not hold ends by itself.
	h.WaitAsync("the watch's end", func() bool { return !s.live })
	h.Contains("not following the cluster: r reads again")

	h.Press("r")
	if s.gen != gen+1 || s.loading || s.err == nil || s.st != nil {
		t.Fatalf("r: gen %d (was %d), loading %v, err %v, status %v", s.gen, gen, s.loading, s.err, s.st)
	}
	h.Send(LoadedMsg{Ns: "default", Name: "web", Gen: gen, St: screentest.FakeStatus("default")})
	if s.st != nil {
		t.Fatalf("an earlier read's answer was taken")
	}
	answer(h, s, screentest.FakeStatus("default"))
	stopped := false
	s.stop = func() { stopped = true }
	s.Close()
	if !stopped || s.live {
		t.Errorf("closing the screen did not stop the watch")
	}
}

// TestReadsAgainWhenTheReleaseChanges: the view of the latest deployed revision
// reads again when the release changes (another may be deployed now); the view
// of a given revision, or a change of another release, does not.
func TestReadsAgainWhenTheReleaseChanges(t *testing.T) {
	for _, c := range []struct {
		rev   int
		ns    string
		again bool
	}{{0, "web", true}, {0, "worker", false}, {3, "web", false}} {
		s, h := open(t, c.rev, 80, 24)
		gen := s.gen
		h.Send(common.ReleaseChangedMsg{Ns: "default", Name: c.ns})
		if got := s.gen != gen; got != c.again {
			t.Errorf("revision %d, %s changed: read again %v, want %v", c.rev, c.ns, got, c.again)
		}
	}
	if s, _ := open(t, 3, 80, 24); s.Title() != "status of revision 3" {
		t.Errorf("title %q", s.Title())
	}
	if s, _ := open(t, 0, 80, 24); s.Title() != "web › status" {
		t.Errorf("title %q", s.Title())
	}
}
