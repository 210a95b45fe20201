package rollback

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestConflictsAreAnExplicitChoice: a plan whose server-side apply conflicts
// with another field manager names the fields and their manager under the
// diff and offers f (take them over, as --force-conflicts) in place of ctrl+r;
// ctrl+r then runs nothing, f runs the plan with ForceConflicts set. A plan
// without conflicts runs on ctrl+r, not forcing; y runs neither.
func TestConflictsAreAnExplicitChoice(t *testing.T) {
	c := screentest.Common(kube.New(fake.NewClientset(), nil, nil, kube.Config{}))
	press := func(s *Screen, k string) tea.Cmd { return s.Update(screentest.Key(k)) }
	plan := func(conflicts []ops.FieldConflict) *Screen {
		base := &ops.Plan{Release: "app", Namespace: "ns", Latest: 2, Records: map[string]string{}}
		s := New(c, base, 1)
		s.SetSize(160, 30)
		rb := &ops.Rollback{Plan: *base, Name: "app", From: 2, To: 1, Diff: &revdiff.Result{}, HelmChoice: ops.HelmChoice{Major: 4},
			ServerSide: &ops.ServerSide{Manager: "helm", Why: "test", Conflicts: conflicts}}
		s.Update(plannedMsg{Ns: "ns", Name: "app", To: 1, Plan: rb})
		return s
	}

	s := plan([]ops.FieldConflict{{Object: "ConfigMap/app-config", Field: ".data.color", Manager: "kubectl-edit"}})
	for _, want := range []string{"ConfigMap/app-config .data.color (kubectl-edit)", "f: take them over and roll back (--force-conflicts)"} {
		if !strings.Contains(s.View(), want) {
			t.Errorf("the plan with a conflict does not show %q:\n%s", want, s.View())
		}
	}
	if cmd := press(s, "ctrl+r"); cmd != nil || s.state != dialog.Asking {
		t.Fatalf("ctrl+r ran a plan with conflicts (state %v)", s.state)
	}
	if press(s, "y"); s.state != dialog.Asking {
		t.Fatalf("y ran a plan with conflicts (state %v)", s.state)
	}
	if cmd := press(s, "f"); cmd == nil || s.state != dialog.Running || !s.plan.ForceConflicts {
		t.Fatalf("f: state %v, force %v; want the plan run with its conflicts forced", s.state, s.plan.ForceConflicts)
	}

	s = plan(nil)
	if cmd := press(s, "f"); cmd != nil || s.state != dialog.Asking {
		t.Fatalf("f ran a plan without conflicts (state %v)", s.state)
	}
	if press(s, "y"); s.state != dialog.Asking {
		t.Fatalf("y ran a plan without conflicts (state %v)", s.state)
	}
	if cmd := press(s, "ctrl+r"); cmd == nil || s.state != dialog.Running || s.plan.ForceConflicts {
		t.Fatalf("ctrl+r: state %v, force %v; want the plan run, not forcing", s.state, s.plan.ForceConflicts)
	}
}

// TestGoldenConflicts draws a plan whose server-side apply conflicts at 80x24
// and 120x40: the reason and every field taken over wrap onto lines of their
// own, the diff above giving them room, and the prompt stays whole.
func TestGoldenConflicts(t *testing.T) {
	var conflicts []ops.FieldConflict
	for _, f := range []string{".data.color", ".data.size", ".data.theme", ".spec.replicas", ".spec.template.spec.containers[name=app].image"} {
		conflicts = append(conflicts, ops.FieldConflict{Object: "ConfigMap/app-config", Field: f, Manager: "kubectl-edit"})
	}
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			c := screentest.Common(kube.New(fake.NewClientset(), nil, nil, kube.Config{}))
			// Rows, so that the plan the screen starts can fail; the one sent
			// below takes its place.
			rows := []kube.RevisionRow{{Name: "app", Revision: 1, Status: "superseded"}, {Name: "app", Revision: 2, Status: "deployed"}}
			base := &ops.Plan{Release: "app", Namespace: "ns", Latest: 2, Rows: rows, Records: map[string]string{}}
			s := New(c, base, 1)
			h := screentest.New(t, s, sz[0], sz[1])
			rb := &ops.Rollback{Plan: *base, Name: "app", From: 2, To: 1, Diff: &revdiff.Result{Release: "app", From: 2, To: 1}, HelmChoice: ops.HelmChoice{Major: 4},
				ServerSide: &ops.ServerSide{Manager: "helm", Why: "test", Conflicts: conflicts}}
			h.Send(plannedMsg{Ns: "ns", Name: "app", To: 1, Plan: rb})
			h.Contains(".spec.template.spec.containers[name=app].image (kubectl-edit)", "f: take them over and roll back (--force-conflicts)")
			h.Golden()
		})
	}
}
