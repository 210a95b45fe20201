package ui

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/screens/diff"
	"github.com/chunkview/chunkview/ui/screens/history"
)

// goldenSizes are the terminal sizes every screen is checked at: the smallest
// supported and a roomy one.
var goldenSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// goldenCase opens one screen in one state.
type goldenCase struct {
	name string
	// client, when set, changes the client before the program starts.
	client func(f *fixture) *kube.Client
	// before runs on the fixture before the program starts.
	before func(f *fixture)
	opts   Options
	// contexts starts the view on context prod of testContexts.
	contexts bool
	steps    func(h *harness)
}

func keys(k ...string) func(h *harness) { return func(h *harness) { h.press(k...) } }

// The release list is sorted by namespace then name: legacy, old-tool, web,
// worker in default.
var goldenCases = []goldenCase{
	{name: "releases"},
	{name: "releases_all_namespaces", steps: func(h *harness) { h.press("n", "enter") }},
	{name: "releases_filter", steps: func(h *harness) { h.press("/").typeText("ork") }},
	{name: "releases_filter_fuzzy", steps: func(h *harness) { h.press("/").typeText("~wrk") }},
	{name: "releases_filtered", steps: func(h *harness) { h.press("/").typeText("web").press("enter") }},
	{name: "releases_namespace_picker", steps: keys("n")},
	{name: "releases_stuck_selected", steps: keys("G")},
	{name: "releases_verified", steps: func(h *harness) { h.press("n").typeText("shop").press("down", "enter", "V") }},
	{name: "releases_read_only", client: readOnlyClient},
	{name: "releases_watch", opts: Options{Watch: true}},
	{name: "releases_poll", opts: Options{Watch: true}, steps: func(h *harness) {
		h.send(common.LiveMsg{Gen: h.m.liveGen, Ev: kube.WatchEvent{Type: kube.WatchMode, Polling: true, Note: "watching secrets was refused (403 Forbidden): listing them every 5s instead"}})
	}},
	{name: "releases_empty", client: func(f *fixture) *kube.Client { return f.Client.WithNamespace("kube-system", false) }},
	{name: "releases_forbidden", before: failList(apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New(`User "oncall" cannot list resource "secrets" in API group "" in the namespace "default"`)))},
	{name: "releases_unreachable", before: failList(&url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api/v1/namespaces/default/secrets", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}})},
	{name: "help", steps: keys("?")},

	{name: "history", steps: keys("down", "down", "enter")},
	{name: "history_marked", steps: keys("down", "down", "enter", "up", "up", "space", "down")},
	{name: "history_broken", steps: keys("enter")},
	{name: "history_stuck", steps: keys("G", "enter")},
	{name: "history_read_only", client: readOnlyClient, steps: keys("down", "down", "enter")},

	{name: "revision_summary", steps: keys("down", "down", "enter", "enter")},
	{name: "revision_values", steps: keys("down", "down", "enter", "enter", "2")},
	{name: "revision_values_revealed", steps: keys("down", "down", "enter", "enter", "2", "v")},
	{name: "revision_values_all", steps: keys("down", "down", "enter", "enter", "2", "a")},
	{name: "revision_manifest", steps: keys("down", "down", "enter", "enter", "3")},
	{name: "revision_notes", steps: keys("down", "down", "enter", "enter", "4")},
	{name: "revision_hooks", steps: keys("down", "down", "enter", "enter", "5")},
	{name: "revision_broken", steps: keys("enter", "enter")},

	{name: "chunks", steps: keys("down", "down", "c")},
	{name: "chunks_missing", steps: keys("c")},
	{name: "chunks_orphan", steps: keys("enter", "up", "c")},
	{name: "chunks_corrupt", steps: func(h *harness) { h.press("n").typeText("shop").press("down", "enter", "down", "c") }},
	{name: "chunks_scrolled", steps: keys("down", "down", "c", "pgdown")},

	{name: "diff", steps: keys("down", "down", "enter", "d")},
	{name: "diff_next_change", steps: keys("down", "down", "enter", "d", "n", "n")},
	{name: "diff_secret", steps: keys("down", "down", "enter", "d", "n", "n", "n", "n")},
	{name: "diff_revealed", steps: keys("down", "down", "enter", "d", "v", "n", "n", "n", "n")},
	{name: "diff_marked", steps: keys("down", "down", "enter", "home", "space", "end", "d")},
	{name: "diff_live_demo", steps: keys("down", "down", "enter", "L")},
	{name: "diff_live", steps: func(h *harness) { h.press("down", "down", "enter", "L"); answerLive(h) }},
	{name: "diff_live_next_change", steps: func(h *harness) { h.press("down", "down", "enter", "L"); answerLive(h); h.press("n", "n") }},

	{name: "rollback_plan", steps: keys("down", "down", "enter", "up", "R")},
	{name: "rollback_done", steps: keys("down", "down", "enter", "up", "R", "ctrl+r")},
	{name: "rollback_read_only", client: readOnlyClient, steps: keys("down", "down", "enter", "up", "R", "ctrl+r")},
	{name: "dialog_uninstall", steps: func(h *harness) { h.press("down", "down", "enter", "U").typeText("we") }},
	{name: "dialog_delete_broken", steps: keys("enter", "X")},
	{name: "dialog_fix_stuck", steps: keys("G", "enter", "F")},
	{name: "dialog_fix_stuck_done", steps: keys("G", "enter", "F", "down", "y")},

	{name: "context_header", contexts: true},
	{name: "context_header_long", opts: Options{ContextName: "gke_payments-prod_europe-west1-b_cluster-7"}, steps: func(h *harness) { h.press("n").typeText("shop").press("down", "enter", "enter") }},
	{name: "context_picker", contexts: true, steps: func(h *harness) { h.press(":").typeText("ctx").press("enter") }},
	{name: "context_switched", contexts: true, steps: func(h *harness) { h.press(":").typeText("ctx staging").press("enter") }},
	{name: "context_unreachable", contexts: true, steps: func(h *harness) { h.press(":").typeText("ctx gone").press("enter") }},
	{name: "context_dialog_uninstall", contexts: true, steps: func(h *harness) { h.press("down", "down", "enter", "U").typeText("we") }},
	{name: "context_rollback_plan", contexts: true, steps: keys("down", "down", "enter", "up", "R")},

	{name: "history_olmv1", before: func(f *fixture) { f.MarkOLMv1("web") }, steps: keys("down", "down", "enter")},
	{name: "history_olmv1_extension", before: func(f *fixture) { f.MarkOLMv1("web") }, steps: func(h *harness) {
		h.press("down", "down", "enter").send(history.ExtensionMsg{Ns: "default", Name: "web", Ext: screentest.OLMExtension})
	}},
}

func readOnlyClient(f *fixture) *kube.Client { return f.ReadOnly() }

// failList makes the next list request fail with err.
func failList(err error) func(f *fixture) {
	return func(f *fixture) { f.Cluster.FailRequest(fakeapi.VerbList, 1, err) }
}

// TestGolden compares every screen, in the states that matter, with its golden
// file at 80x24 and 120x40. Run go test ./ui -run TestGolden -update to rewrite
// them after an intended change, and review the diff.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range goldenSizes {
				t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
					f := newFixture(t)
					client := f.Client
					if c.client != nil {
						client = c.client(f)
					}
					if c.before != nil {
						c.before(f)
					}
					opts := c.opts
					if c.contexts {
						opts = contextOptions(f)
					}
					h := newHarness(t, client, opts, sz.w, sz.h)
					if c.steps != nil {
						c.steps(h)
					}
					h.golden()
				})
			}
		})
	}
}

// answerLive answers the live diff of web's revision 4, masked, on top with
// fakeDrift.
func answerLive(h *harness) {
	if _, ok := h.top().(*diff.Screen); !ok {
		h.t.Fatalf("top screen is %T, not a live diff", h.top())
	}
	h.send(diff.LiveLoadedMsg{Ns: "default", Name: "web", Rev: 4, Drift: screentest.FakeDrift(h.t, "default", "web", 4, false)})
}
