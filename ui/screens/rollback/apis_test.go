package rollback

import (
	"context"
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestWarnsOfUnservedAPIs: at 80x24 and 120x40, the plan of a rollback to a
// revision that uses an API the cluster no longer serves warns, before y, in
// place of the question: the rollback would fail after recording its
// revision, naming the object and what serves it now, as the CLI's rollback
// plan warns. A rollback between revisions on served APIs asks as before.
// What the cluster serves is what the history checked against (Served), a
// 1.37 cluster's discovery here, as the demo's cluster has none.
func TestWarnsOfUnservedAPIs(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := screentest.NewFixture(t)
			f.AddStale(t)
			plan := func(name string, to int) *screentest.Harness {
				rows, err := f.Client.History(context.Background(), "default", name)
				if err != nil {
					t.Fatal(err)
				}
				base, err := ops.NewPlan("default", rows)
				if err != nil {
					t.Fatal(err)
				}
				s := New(screentest.Common(f.Client), base, to)
				s.Served = screentest.Served()
				return screentest.New(t, s, sz[0], sz[1])
			}
			h := plan("stale", 1)
			h.Contains("⚠ Revision 1 uses APIs the cluster no longer serves", "PodDisruptionBudget/default/stale (policy/v1beta1 → policy/v1)", "ctrl+r: roll back to 1")
			plan("web", 3).Contains("Roll back web from revision 4 to revision 3?").Lacks("no longer serves")
		})
	}
}
