package fixapis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open plans fix-apis of release name through client, from its history as
// listed now (as the history hands it over), against a 1.37 cluster's
// discovery, and waits for the plan.
func open(t testing.TB, client *kube.Client, name string, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	rows, err := client.History(context.Background(), "default", name)
	if err != nil {
		t.Fatal(err)
	}
	base, err := ops.NewPlan("default", rows)
	if err != nil {
		t.Fatal(err)
	}
	s := New(screentest.Common(client), base, screentest.Served())
	return s, screentest.New(t, s, w, h)
}

// TestPlanShowsTheMaskedDiff: at 80x24 and 120x40 the plan shows the new
// revision's manifest diff (the PodDisruptionBudget moved to policy/v1),
// masked as every diff is, what the fix writes, and ctrl+r, the key that
// applies a plan on every screen; under --read-only it shows the plan and
// offers nothing to confirm.
func TestPlanShowsTheMaskedDiff(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := screentest.NewFixture(t)
			f.AddStale(t)
			s, h := open(t, f.Client, "stale", sz[0], sz[1])
			h.Contains("-apiVersion: policy/v1beta1", "+apiVersion: policy/v1", "Writes revision 3, a copy of revision 2", "ctrl+r: write revision 3 · y: copy · esc: cancel")
			h.Contains("secrets masked (v reveals)").Lacks(screentest.StalePassword)
			if got := s.Help().Short[0].Help().Key; got != "ctrl+r" {
				t.Errorf("the help's first key is %q, want ctrl+r", got)
			}

			ro := screentest.NewFixture(t)
			ro.AddStale(t)
			rs, rh := open(t, ro.ReadOnly(), "stale", sz[0], sz[1])
			rh.Contains("+apiVersion: policy/v1", "Read-only mode: this is what fix-apis would write")
			rh.Press("ctrl+r")
			if rs.state != 0 || len(rh.Out) != 0 {
				t.Fatalf("ctrl+r under --read-only ran the fix (state %v, out %v)", rs.state, rh.Out)
			}
		})
	}
}

// TestWritesThePlan: y only copies the plan (nothing is written), and ctrl+r
// writes the revision planned, through kube/ops' runner: Helm's driver then
// reads revision 3 deployed on policy/v1, with the description that warns
// against rolling back past it, and revision 2 superseded; the screen says so.
func TestWritesThePlan(t *testing.T) {
	f := screentest.NewFixture(t)
	f.AddStale(t)
	s, h := open(t, f.Client, "stale", 120, 40)
	writes := f.Cluster.Writes()
	h.Press("y")
	if f.Cluster.Writes() != writes || !s.canConfirm() {
		t.Fatalf("y in the plan wrote %d times or stopped asking", f.Cluster.Writes()-writes)
	}
	copied := false
	for _, m := range h.Out {
		if m, ok := m.(common.StatusMsg); ok && strings.Contains(m.Text, "Copied the plan of fix-apis for stale") {
			copied = true
		}
	}
	if !copied {
		t.Errorf("y did not copy the plan: %v", h.Out)
	}
	h.Press("ctrl+r")
	h.Contains("✓ Wrote revision 3 of stale on served API versions; revision 2 is superseded. Helm can upgrade it again.")
	drv := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{})
	r3, err := drv.Get(storage.RecordKey("stale", 3))
	if err != nil {
		t.Fatal(err)
	}
	if r3.Info.Status != release.StatusDeployed || strings.Contains(r3.Manifest, "policy/v1beta1") || !strings.Contains(r3.Manifest, "apiVersion: policy/v1\nkind: PodDisruptionBudget") ||
		!strings.Contains(r3.Manifest, screentest.StalePassword) || !strings.Contains(r3.Info.Description, "Do not roll back past this revision") {
		t.Fatalf("revision 3: %s, %q\n%s", r3.Info.Status, r3.Info.Description, r3.Manifest)
	}
	if r2, err := drv.Get(storage.RecordKey("stale", 2)); err != nil || r2.Info.Status != release.StatusSuperseded || !strings.Contains(r2.Manifest, "policy/v1beta1") {
		t.Fatalf("revision 2 after the fix: %v, %+v", err, r2)
	}
}

// TestNoSuccessorDropsOnlyWhenAsked: a kind no served version replaces (a
// PodSecurityPolicy) is refused, named, with d offered; only after d does the
// plan drop it, and say so.
func TestNoSuccessorDropsOnlyWhenAsked(t *testing.T) {
	f := screentest.NewFixture(t)
	drv := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: screentest.ChunkSize})
	r := screentest.StaleRelease("default", 1, release.StatusDeployed, screentest.Now)
	r.Name = "psp"
	r.Manifest += "---\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: psp-restricted\nspec:\n  privileged: false\n"
	if err := drv.Create(storage.RecordKey("psp", 1), r); err != nil {
		t.Fatal(err)
	}
	s, h := open(t, f.Client, "psp", 80, 24)
	h.Contains("PodSecurityPolicy/psp-restricted", "d: drop them and plan again").Lacks("ctrl+r: write")
	h.Press("ctrl+r")
	if s.state != 0 {
		t.Fatal("ctrl+r ran a plan that was refused")
	}
	h.Press("d")
	h.Contains("-kind: PodSecurityPolicy", "1 dropped", "ctrl+r: write revision 2")
	if !s.drop || len(s.plan.Dropped) != 1 || s.plan.Dropped[0].Name != "psp-restricted" {
		t.Fatalf("after d: drop %v, plan %+v", s.drop, s.plan)
	}
}
