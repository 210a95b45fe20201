package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/releases"
	"github.com/chunkview/chunkview/ui/screens/status"
)

// fakeStatus is what the resources view of web could be given: a Deployment
// rolling out, a deleted Service, a failed hook Job with its Pod and log, and
// warnings. The demo's cluster holds no live objects, so the screen gets it as
// a message, as the read would answer.
func fakeStatus(ns string) *live.ReleaseStatus {
	code := int32(1)
	return &live.ReleaseStatus{
		Release: "web", Namespace: ns, Revision: 4, ReleaseStatus: "deployed", Store: kube.DriverChunked, StorageNamespace: ns,
		LastDeployed: testNow.Add(-24 * time.Hour),
		Resources: []live.ResourceStatus{
			{Kind: "ConfigMap", Namespace: ns, Name: "web-assets", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "ConfigMap", Namespace: ns, Name: "web-flags", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "Deployment", Namespace: ns, Name: "web", Status: live.StatusInProgress, Message: "Available: 1/2"},
			{Kind: "Secret", Namespace: ns, Name: "web-db", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "Service", Namespace: ns, Name: "web", Status: live.StatusNotFound, Message: "not in the cluster: deleted, or never created"},
		},
		Hooks: []live.HookStatus{{
			Kind: "Job", Name: "web-migrate", Namespace: ns, Events: []string{"pre-upgrade", "pre-install"}, Phase: "Failed",
			Started: testNow.Add(-10 * time.Minute), Completed: testNow.Add(-10*time.Minute + 12*time.Second),
			Job: &live.HookJob{
				Status: live.StatusFailed, Message: "Job Failed. failed: 1/1",
				Pods: []live.PodState{{Name: "web-migrate-x7k2p", Phase: "Failed", Containers: []live.ContainerState{{
					Name: "migrate", State: "terminated", Reason: "Error", ExitCode: &code,
					Message: "migration 0042 failed: password " + revdiff.MaskPrefix + "1a2b3c4d> rejected",
				}}}},
				Log: &live.ContainerLog{Pod: "web-migrate-x7k2p", Container: "migrate", Masked: true, Lines: []string{
					"applying 0041_orders.sql", "applying 0042_refunds.sql",
					"connecting to db.default.svc as web with password " + revdiff.MaskPrefix + "1a2b3c4d>",
					"ERROR: password authentication failed for user \"web\"", "exit status 1",
				}},
			},
		}},
		Events: []live.WarningEvent{
			{Namespace: ns, Object: "Pod/web-7d9f8c-abcde", For: "Deployment/web", Reason: "BackOff", Message: "Back-off restarting failed container web in pod web-7d9f8c-abcde", Count: 14, LastSeen: testNow.Add(-time.Minute)},
			{Namespace: ns, Object: "Pod/web-migrate-x7k2p", For: "Job/web-migrate", Reason: "Failed", Message: "Error: container migrate exited 1", Count: 1, LastSeen: testNow.Add(-10 * time.Minute)},
		},
	}
}

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
	s := statusOf(h.t, h)
	h.send(status.LoadedMsg{Ns: s.Ns, Name: s.Name, Gen: s.Gen, St: st})
}

// statusGoldenSizes are the resources view's golden sizes: the smallest
// terminal and a large one.
var statusGoldenSizes = []struct{ w, h int }{{80, 24}, {160, 45}}

// TestStatusGolden draws the resources view, reached from the list (s) and the
// history (s on a revision), in its states, at 80x24 and 160x45.
func TestStatusGolden(t *testing.T) {
	changed := func(h *harness) {
		s := statusOf(h.t, h)
		st := fakeStatus("default")
		st.Resources[2].Status, st.Resources[2].Message = live.StatusCurrent, "Deployment is available. Replicas: 2"
		h.send(status.LiveMsg{Ns: s.Ns, Name: s.Name, Gen: s.Gen, Upd: live.StatusUpdate{Status: st, Changed: []string{"Deployment/default/web"}}})
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
			s := statusOf(h.t, h)
			h.send(status.LiveMsg{Ns: s.Ns, Name: s.Name, Gen: s.Gen, Upd: live.StatusUpdate{Status: fakeStatus("default"), Polling: true,
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
					h := newHarness(t, newFixture(t).client, Options{}, sz.w, sz.h)
					c.steps(h)
					h.golden()
				})
			}
		})
	}
}

// TestStatusScreen: s opens the view of the release's latest deployed revision
// from the list, of the selected revision from the history; a live update
// changes the row it concerns; an update or an answer of an earlier read is
// dropped; r reads again; the watch's end arrives through the program's Send
// and the view then says it no longer follows; esc closes it and stops the
// watch.
func TestStatusScreen(t *testing.T) {
	h := newHarness(t, newFixture(t).client, Options{}, 100, 30)
	h.press("down", "down", "s")
	s := statusOf(t, h)
	if s.Ns != "default" || s.Name != "web" || s.Rev != 0 || s.Send == nil {
		t.Fatalf("opened on %s/%s revision %d, send set %v", s.Ns, s.Name, s.Rev, s.Send != nil)
	}
	h.contains("live objects are not available")

	answerStatus(h, fakeStatus("default"))
	h.contains("web · revision 4 deployed · 3 of 5 Current (1 InProgress, 1 NotFound)", "● following live", "Available: 1/2")
	if !s.Live || s.Stop == nil {
		t.Fatalf("not following after the read: live %v", s.Live)
	}
	gen := s.Gen
	st := fakeStatus("default")
	st.Resources[2].Status, st.Resources[2].Message = live.StatusCurrent, "Deployment is available. Replicas: 2"
	h.send(status.LiveMsg{Ns: "default", Name: "web", Gen: gen - 1, Upd: live.StatusUpdate{Status: st}})
	h.contains("Available: 1/2").lacks("Replicas: 2")
	h.send(status.LiveMsg{Ns: "default", Name: "web", Gen: gen, Upd: live.StatusUpdate{Status: st, Changed: []string{"Deployment/default/web"}}})
	h.contains("4 of 5 Current (1 NotFound)", "Deployment is available. Replicas: 2", "1 change seen").lacks("Available: 1/2")

	// The fixture's client has no live objects, so the watch ends at once: its
	// last message comes through Send.
	h.waitLive("the watch's end", func() bool { return !s.Live })
	h.contains("not following the cluster: r reads again")

	// r reads again (here, again no live objects); the answer of the
	// earlier read, arriving late, is dropped.
	h.press("r")
	if s.Gen != gen+1 || s.Loading || s.Err == nil || s.St != nil {
		t.Fatalf("r: gen %d (was %d), loading %v, err %v, status %v", s.Gen, gen, s.Loading, s.Err, s.St)
	}
	h.send(status.LoadedMsg{Ns: "default", Name: "web", Gen: gen, St: fakeStatus("default")})
	if s.St != nil {
		t.Fatalf("an earlier read's answer was taken")
	}
	answerStatus(h, fakeStatus("default"))
	stopped := false
	s.Stop = func() { stopped = true }
	h.press("esc")
	if !stopped {
		t.Errorf("esc did not stop the watch")
	}
	if _, ok := h.top().(*releases.Screen); !ok {
		t.Errorf("esc left %T on top", h.top())
	}

	// From the history: the selected revision.
	h.press("enter", "up", "s")
	if s := statusOf(t, h); s.Rev != 3 || s.Title() != "status of revision 3" {
		t.Errorf("from the history: revision %d, title %q", s.Rev, s.Title())
	}
	if !strings.Contains(h.screen(), "status of revision 3") {
		t.Errorf("breadcrumb:\n%s", h.screen())
	}
}

// TestStatusKeys: s is free on the list and the history, and both show it in
// the footer and the help.
func TestStatusKeys(t *testing.T) {
	h := newHarness(t, newFixture(t).client, Options{}, 120, 30)
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
