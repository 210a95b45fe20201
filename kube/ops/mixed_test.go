package ops_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	common4 "helm.sh/helm/v4/pkg/release/common"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// mixedSeed stores release mix in Helm's Secrets store of ns, each revision
// written by the Helm helm4 says (true: Helm 4, with its apply method and mod
// times; false: Helm 3) in the status given.
func mixedSeed(t *testing.T, ns string, helm4 []bool, status []release.Status) {
	t.Helper()
	d3, d4 := driver.NewSecrets(secrets(ns)), driver4.NewSecrets(secrets(ns))
	for i, four := range helm4 {
		rev, key := i+1, storage.RecordKey("mix", i+1)
		var err error
		if four {
			err = d4.Create(key, helm4Revision("mix", ns, rev, common4.Status(status[i])))
		} else {
			err = d3.Create(key, makeRelease("mix", ns, rev, status[i], 500))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRollbackMixedHistory: in a history that mixes Helm 3 and Helm 4 records,
// a rollback runs through Helm 4 when any record it rewrites or copies is Helm
// 4's: the latest, the one rolled back to, and every deployed one, which Helm
// rewrites superseded. Here only the deployed revision 2 is Helm 4's, between
// Helm 3's revision 1 (rolled back to) and 3 (failed, the latest): Helm 4 runs,
// and revision 2, rewritten superseded, keeps its apply method and mod times.
// Where the only Helm 4 record is one the rollback leaves alone, Helm 3 runs.
func TestRollbackMixedHistory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	ns := cluster.Namespace(t)
	mixedSeed(t, ns, []bool{false, true, false}, []release.Status{release.StatusSuperseded, release.StatusDeployed, release.StatusFailed})
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns}, nil)
	plan, err := planByName(ctx, c, ns, "mix", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Major != 4 || !strings.Contains(plan.Reason, "revision 2") {
		t.Fatalf("rollback over a deployed Helm 4 revision: Helm %d (%s), want Helm 4 for revision 2", plan.Major, plan.Reason)
	}
	if err := ops.NewRunner(c).Apply(ctx, plan); err != nil {
		t.Fatal(err)
	}
	two := record4(t, driver4.NewSecrets(secrets(ns)), "mix", 2)
	want := helm4Revision("mix", ns, 2, common4.StatusSuperseded)
	if two.Info.Status != common4.StatusSuperseded || two.ApplyMethod != "ssa" || !two.Chart.ModTime.Equal(want.Chart.ModTime) ||
		len(two.Chart.Templates) != 1 || !two.Chart.Templates[0].ModTime.Equal(want.Chart.Templates[0].ModTime) {
		t.Errorf("revision 2 after the rollback: %s, apply method %q, mod time %v; want superseded with Helm 4's fields kept", two.Info.Status, two.ApplyMethod, two.Chart.ModTime)
	}
	if four := record4(t, driver4.NewSecrets(secrets(ns)), "mix", 4); four.Info.Status != common4.StatusDeployed || four.Info.RollbackRevision != 1 {
		t.Errorf("revision 4: %s, rollback revision %d; want deployed, from 1", four.Info.Status, four.Info.RollbackRevision)
	}

	other := cluster.Namespace(t)
	mixedSeed(t, other, []bool{true, false, false}, []release.Status{release.StatusSuperseded, release.StatusSuperseded, release.StatusDeployed})
	c = connect(t, adminKubeconfig(t, other), []string{"-n", other}, nil)
	plan, err = planByName(ctx, c, other, "mix", rollbackPlan(2, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Major != 3 {
		t.Fatalf("rollback that leaves the Helm 4 revision alone: Helm %d (%s), want Helm 3", plan.Major, plan.Reason)
	}
}
