package history

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/screens/fixapis"
	"github.com/chunkview/chunkview/ui/screens/rollback"
)

// openStale opens the history of the stale release (policy/v1beta1 in both
// revisions) and gives it what a 1.37 cluster's discovery says, as the demo's
// cluster cannot.
func openStale(t *testing.T, f *screentest.Fixture, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	f.AddStale(t)
	s, hs := open(t, f.Client, "stale", w, h)
	hs.Send(common.ServedMsg{Served: screentest.Served()})
	return s, hs
}

// TestCannotUpgrade: at 80x24 and 120x40, the history of a release whose
// current revision uses an API the cluster no longer serves says that Helm
// can no longer upgrade it, in those words, names the object, its apiVersion
// and what serves it now, and offers A; an older revision on such an API says
// a rollback to it would fail. A release on served APIs says none of it.
func TestCannotUpgrade(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := screentest.NewFixture(t)
			_, h := openStale(t, f, sz[0], sz[1])
			h.Contains(apis.CannotUpgrade+" stale", "A: fix-apis", "PodDisruptionBudget/default/stale (policy/v1beta1 → policy/v1)")
			h.Press("up")
			h.Contains("Revision 1 uses APIs the cluster no longer serves", "PodDisruptionBudget/default/stale (policy/v1beta1 → policy/v1)")
			h.Lacks(apis.CannotUpgrade)

			_, web := open(t, f.Client, "web", sz[0], sz[1])
			web.Send(common.ServedMsg{Served: screentest.Served()})
			web.Lacks(apis.CannotUpgrade, "no longer serves")
		})
	}
}

// TestCannotUpgradeUnknownWithoutDiscovery: on a cluster whose discovery
// cannot be read (the demo's), nothing is said of APIs, and A says why it
// cannot plan rather than planning against nothing.
func TestCannotUpgradeUnknownWithoutDiscovery(t *testing.T) {
	f := screentest.NewFixture(t)
	f.AddStale(t)
	_, h := open(t, f.Client, "stale", 80, 24)
	h.Lacks(apis.CannotUpgrade)
	h.Press("A")
	if text, isErr := h.Status(); !isErr || !strings.Contains(text, "What the cluster serves is not known") {
		t.Fatalf("A without discovery: status %q (error %v)", text, isErr)
	}
	if h.Pushed() != nil {
		t.Fatal("A without discovery opened a plan")
	}
}

// TestFixAPIsKey: A opens fix-apis' plan for the release as the history shows
// it, against what the history checked it with (on a release on served APIs
// it says there is nothing to fix); R on a revision on unserved APIs opens a
// rollback plan that knows it; --read-only offers none of it.
func TestFixAPIsKey(t *testing.T) {
	f := screentest.NewFixture(t)
	_, h := openStale(t, f, 120, 40)
	h.Press("A")
	if _, ok := h.Pushed().(*fixapis.Screen); !ok {
		t.Fatalf("A pushed %T, want fix-apis' plan", h.Pushed())
	}
	h.Forget().Press("up", "R")
	rs, ok := h.Pushed().(*rollback.Screen)
	if !ok || rs.Served == nil {
		t.Fatalf("R pushed %T (served %v), want a rollback plan with the history's discovery", h.Pushed(), ok && rs.Served != nil)
	}
	_, web := open(t, f.Client, "web", 120, 40)
	web.Send(common.ServedMsg{Served: screentest.Served()})
	web.Press("A")
	if text, _ := web.Status(); !strings.Contains(text, "Revision 4 of web uses only APIs the cluster serves: nothing to fix.") || web.Pushed() != nil {
		t.Fatalf("A on a release on served APIs: status %q, pushed %T", text, web.Pushed())
	}
	ro := screentest.NewFixture(t)
	ro.AddStale(t)
	_, rh := open(t, ro.ReadOnly(), "stale", 120, 40)
	rh.Send(common.ServedMsg{Served: screentest.Served()})
	rh.Contains(apis.CannotUpgrade+" stale", "read-only: fix-apis is off")
	rh.Press("A")
	if rh.Pushed() != nil {
		t.Fatal("A under --read-only opened a plan")
	}
}
