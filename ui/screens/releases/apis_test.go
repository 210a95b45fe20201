package releases

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// TestCannotUpgrade: at 80x24 and 120x40, once the list knows what the
// cluster serves (a 1.37 cluster's discovery, fed as the demo's cluster has
// none), the row of a release whose latest revision uses an API the cluster
// no longer serves is marked, and selected it says Helm can no longer upgrade
// it, in those words, naming the object, its apiVersion and what serves it
// now, with the way to the fix. A release on served APIs says none of it,
// and nothing is said before discovery answers.
func TestCannotUpgrade(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := screentest.NewFixture(t)
			f.AddStale(t)
			s := New(screentest.Common(f.Client))
			h := screentest.New(t, s, sz[0], sz[1])
			h.Lacks(apis.CannotUpgrade, "(apis)")
			h.Send(common.ServedMsg{Served: screentest.Served()})
			h.Contains("deployed (apis)")
			for s.Selected() != nil && s.Selected().Row.Latest.Name != "stale" {
				h.Press("down")
			}
			h.Contains(apis.CannotUpgrade+" stale · enter, then A: fix-apis", "not served: PodDisruptionBudget/default/stale (policy/v1beta1 → policy/v1)")
			h.Press("up")
			h.Lacks(apis.CannotUpgrade)
		})
	}
}
