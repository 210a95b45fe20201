package ui

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// fixedDemo is the demo's samples seeded up to the harness's clock, so that
// its times read the same on every run, with a client over every namespace
// and store that reads an unreadable revision once.
func fixedDemo(t *testing.T) *kube.Client {
	t.Helper()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{Now: screentest.Now}); err != nil {
		t.Fatal(err)
	}
	cfg := screentest.Config()
	cfg.AllNamespaces, cfg.Namespace = true, ""
	cfg.Drivers = kube.AllDrivers
	cfg.Driver = demo.DriverConfig()
	cfg.Driver.ReadRetry = -1
	return kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg)
}

// oncallSizes are the sizes issue 29's views are checked at: the classic
// terminal and a wide one.
var oncallSizes = []struct{ w, h int }{{80, 24}, {160, 45}}

// openDemo filters the demo's release list to name and opens its history.
func openDemo(name string) func(h *harness) {
	return func(h *harness) { h.press("/").typeText(name).press("enter", "enter") }
}

// oncallCases are the views of issue 29, on the demo's samples: each shows
// whole what an on-call engineer came for.
var oncallCases = []struct {
	name  string
	steps func(h *harness)
}{
	// Item 6: the chart versions, which differ between revisions, stay
	// whole; item 4: the pending revision's hint is not cut.
	{"history_pending", openDemo("payments-api")},
	// Item 4: a failure's reason and the next step, whole.
	{"history_failed", func(h *harness) { openDemo("podinfo")(h); h.press("up") }},
	{"history_broken", openDemo("ledger")},
	{"revision_failed_summary", func(h *harness) { openDemo("podinfo")(h); h.press("up", "enter") }},
	// Item 12: the plan past an unreadable latest revision, and its outcome.
	{"rollback_broken_plan", func(h *harness) { openDemo("ledger")(h); h.press("up", "R") }},
	{"rollback_broken_done", func(h *harness) { openDemo("ledger")(h); h.press("up", "R", "ctrl+r") }},
	// Item 19: a namespace typed after :ns that does not exist is said so.
	{"ns_nope", func(h *harness) { h.press(":").typeText("ns nope").press("enter") }},
}

// TestGoldenOncall compares the views of issue 29 at 80x24 and 160x45, on the
// demo. go test ./ui -run TestGoldenOncall -update rewrites them.
func TestGoldenOncall(t *testing.T) {
	for _, c := range oncallCases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range oncallSizes {
				t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
					client := fixedDemo(t)
					h := newHarness(t, client, Options{}, sz.w, sz.h)
					c.steps(h)
					h.golden()
				})
			}
		})
	}
}

// TestRollbackPastUnreadableShowsTheChoice: the plan of ledger's rollback past
// its unreadable revision 3 shows what goes and what comes back, never
// revision 2 compared with itself; applied, it says revision 3 was replaced.
func TestRollbackPastUnreadableShowsTheChoice(t *testing.T) {
	h := newHarness(t, fixedDemo(t), Options{}, 120, 40)
	openDemo("ledger")(h)
	h.press("up", "R")
	h.contains("ledger: the unreadable revision 3 goes, revision 2 comes back", "✗ Goes: revision 3 (deployed), which cannot be read", "✓ Comes back: revision 2, ledger-3.3.0").
		lacks("revision 2 → 2", "No differences")
	h.press("ctrl+r").contains("✓ Replaced the unreadable revision 3 of ledger: its record was deleted, and revision 3 now holds revision 2's content")
}
