package status

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestCannotUpgrade: at 80x24 and 120x40 the resources view of a revision
// that uses an API the cluster no longer serves says, above its objects, that
// Helm can no longer upgrade the release, in those words, and names the
// object, its apiVersion and what serves it now, whole; the view of a
// revision on served APIs does not. What the cluster serves is fed as a
// 1.37 cluster's discovery would answer, and the status as kube would read
// it: the demo's cluster has neither.
func TestCannotUpgrade(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := screentest.NewFixture(t)
			f.AddStale(t)
			s := New(screentest.Common(f.Client), "default", "stale", 0)
			h := screentest.New(t, s, sz[0], sz[1])
			answer(h, s, &live.ReleaseStatus{Release: "stale", Namespace: "default", Revision: 2, ReleaseStatus: "deployed",
				Store: kube.DriverChunked, StorageNamespace: "default", LastDeployed: screentest.Now,
				Resources: []live.ResourceStatus{{Kind: "Deployment", Namespace: "default", Name: "stale", Status: live.StatusCurrent}}})
			h.Lacks(apis.CannotUpgrade)
			h.Send(common.ServedMsg{Served: screentest.Served()})
			h.Contains(apis.CannotUpgrade+" stale", "PodDisruptionBudget/default/stale", "(policy/v1beta1 → policy/v1)", "fix-apis")

			ws := New(screentest.Common(f.Client), "default", "web", 0)
			wh := screentest.New(t, ws, sz[0], sz[1])
			answer(wh, ws, screentest.FakeStatus("default"))
			wh.Send(common.ServedMsg{Served: screentest.Served()})
			if ws.apis == nil {
				t.Fatal("the view of web was not checked")
			}
			wh.Lacks(apis.CannotUpgrade)
		})
	}
}
