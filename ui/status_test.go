package ui

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/status"
)

// statusOf is the resources view on top of the stack.
func statusOf(t testing.TB, h *harness) *status.Screen {
	t.Helper()
	s, ok := h.top().(*status.Screen)
	if !ok {
		t.Fatalf("top screen is %T, not the resources view:\n%s", h.top(), h.screen())
	}
	return s
}

// answerStatus answers the resources view's read with st.
func answerStatus(h *harness, st *live.ReleaseStatus) {
	statusOf(h.t, h)
	// The screen's first read is its first generation.
	h.send(status.LoadedMsg{Ns: "default", Name: "web", Gen: 1, St: st})
}

// statusGoldenSizes are the resources view's golden sizes: the smallest
// terminal and a large one.
var statusGoldenSizes = []struct{ w, h int }{{80, 24}, {160, 45}}

// TestStatusGolden draws the resources view, reached from the list (s) and the
// history (s on a revision), in its states, at 80x24 and 160x45.
func TestStatusGolden(t *testing.T) {
	changed := func(h *harness) {
		statusOf(h.t, h)
		st := fakeStatus("default")
		st.Resources[2].Status, st.Resources[2].Message = live.StatusCurrent, "Deployment is available. Replicas: 2"
		h.send(status.LiveMsg{Ns: "default", Name: "web", Gen: 1, Upd: live.StatusUpdate{Status: st, Changed: []string{"Deployment/default/web"}}})
	}
	cases := []struct {
		name  string
		steps func(h *harness)
	}{
		// The demo's cluster has no live objects: the read says so.
		{"status_demo", keys("down", "down", "s")},
		{"status", func(h *harness) { h.press("down", "down", "s"); answerStatus(h, fakeStatus("default")) }},
		{"status_changed", func(h *harness) { h.press("down", "down", "s"); answerStatus(h, fakeStatus("default")); changed(h) }},
		{"status_polling", func(h *harness) {
			h.press("down", "down", "s")
			answerStatus(h, fakeStatus("default"))
			statusOf(h.t, h)
			h.send(status.LiveMsg{Ns: "default", Name: "web", Gen: 1, Upd: live.StatusUpdate{Status: fakeStatus("default"), Polling: true,
				Note: "watching deployments in default was refused (403 Forbidden): reading them every 5s instead"}})
		}},
		{"status_scrolled", func(h *harness) {
			h.press("down", "down", "s")
			answerStatus(h, fakeStatus("default"))
			h.press("pgdown")
		}},
		{"status_from_history", func(h *harness) {
			h.press("down", "down", "enter", "up", "s")
			st := fakeStatus("default")
			st.Revision, st.ReleaseStatus, st.LatestRevision, st.LatestStatus = 3, "superseded", 4, "deployed"
			answerStatus(h, st)
		}},
		{"status_help", func(h *harness) { h.press("down", "down", "s"); answerStatus(h, fakeStatus("default")); h.press("?") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range statusGoldenSizes {
				t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
					h := newHarness(t, newFixture(t).Client, Options{}, sz.w, sz.h)
					c.steps(h)
					h.golden()
				})
			}
		})
	}
}

// TestStatusKeys: s is free on the list and the history, and both show it in
// the footer and the help.
func TestStatusKeys(t *testing.T) {
	h := newHarness(t, newFixture(t).Client, Options{}, 120, 30)
	h.contains("s status")
	h.press("?").contains("s", "status").press("esc")
	h.press("down", "down", "enter").contains("s status")
	for _, scr := range []common.Screen{h.m.stack[0], h.top()} {
		seen := map[string]string{}
		for _, col := range scr.Help().Full {
			for _, b := range col {
				for _, k := range b.Keys() {
					if prev, ok := seen[k]; ok && prev != b.Help().Desc {
						t.Errorf("%T: key %q is both %q and %q", scr, k, prev, b.Help().Desc)
					}
					seen[k] = b.Help().Desc
				}
			}
		}
		if seen["s"] == "" {
			t.Errorf("%T: s is not in the help", scr)
		}
	}
}
