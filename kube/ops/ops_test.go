package ops_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// opsFixture is a namespace where Helm itself installs releases through chunkview's
// driver, and a chunkview client over it built from flags.
type opsFixture struct {
	ns, kubeconfig string
	drv            *storage.ChunkedSecrets
	c              *kube.Client
}

const opsOwner = "ops-owner"

func newOpsFixture(t *testing.T) *opsFixture {
	t.Helper()
	f := &opsFixture{ns: cluster.Namespace(t)}
	f.kubeconfig = adminKubeconfig(t, f.ns)
	f.drv = storage.NewDriver(secrets(f.ns), opsOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	f.c = connect(t, f.kubeconfig, []string{"--owner", opsOwner, "--chunk-size", "16384"}, nil)
	return f
}

// install installs release name and upgrades it, revisions in all; step i of its
// life uses webappValues(name, i-1).
func (f *opsFixture) install(t *testing.T, name string, revisions int) {
	t.Helper()
	hc := helmConfig(t, f.kubeconfig, f.ns, f.drv)
	helmInstall(t, hc, f.ns, name, webappValues(name, 0, 40_000))
	for i := 1; i < revisions; i++ {
		helmUpgrade(t, hc, f.ns, name, fmt.Sprintf("1.%d.0", i), webappValues(name, i, 40_000))
	}
}

func (f *opsFixture) statuses(t *testing.T, name string) []string {
	t.Helper()
	rows, err := f.c.History(t.Context(), f.ns, name)
	if err != nil {
		t.Fatalf("History %s: %v", name, err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Status)
	}
	return out
}

func (f *opsFixture) releaseResources(t *testing.T, name string) (present []string) {
	t.Helper()
	for _, cm := range []string{name + "-config", name + "-blob", name + "-extra"} {
		if configMapData(t, f.ns, cm) != nil {
			present = append(present, "ConfigMap/"+cm)
		}
	}
	if _, err := secrets(f.ns).Get(t.Context(), name+"-db", metav1.GetOptions{}); err == nil {
		present = append(present, "Secret/"+name+"-db")
	}
	return present
}

// TestRollbackAndUninstall runs Helm's rollback and uninstall through chunkview on
// releases Helm installed and upgraded with the chunked driver.
func TestRollbackAndUninstall(t *testing.T) {
	ctx := t.Context()
	f := newOpsFixture(t)
	f.install(t, "web", 3)
	if rows, err := f.c.History(ctx, f.ns, "web"); err != nil || len(rows) != 3 || rows[2].Summary.Chunks < 2 {
		t.Fatalf("installed web: %+v, %v; want 3 revisions of several chunks", rows, err)
	}

	plan, err := planByName(ctx, f.c, f.ns, "web", rollbackPlan(0, kube.DiffOptions{}))
	if err != nil {
		t.Fatalf("PlanRollback: %v", err)
	}
	if plan.From != 3 || plan.To != 2 || plan.Applied || plan.Diff == nil {
		t.Fatalf("plan %+v", plan)
	}
	changes := map[string]revdiff.ChangeKind{}
	for _, rc := range plan.Diff.Resources {
		changes[rc.Key] = rc.Change
	}
	// The chart's templates name no namespace: the keys name the release's, where
	// Helm creates them.
	if changes["ConfigMap/"+f.ns+"/web-extra"] != revdiff.Added || changes["ConfigMap/"+f.ns+"/web-config"] != revdiff.Changed ||
		changes["Secret/"+f.ns+"/web-db"] != revdiff.Changed {
		t.Errorf("rollback 3 -> 2 changes %v", changes)
	}
	if u := plan.Diff.Unified(); strings.Contains(u, "s3cr3t-web") {
		t.Errorf("rollback plan shows a password:\n%s", u)
	}
	// Rolling back to the latest revision applies it again, as `helm rollback
	// web 3` does: its plan says so and changes no record's content.
	if p, err := planByName(ctx, f.c, f.ns, "web", rollbackPlan(3, kube.DiffOptions{})); err != nil || !p.Reapply || p.From != 3 || p.To != 3 || p.Diff.Changed() {
		t.Errorf("PlanRollback to the latest: %+v, %v; want a re-apply of revision 3 changing no resource", p, err)
	}
	if got := configMapData(t, f.ns, "web-config")["color"]; got != "red" {
		t.Fatalf("web-config color %q before rollback", got)
	}

	plan, err = applyByName(ctx, f.c, f.ns, "web", rollbackPlan(0, kube.DiffOptions{}))
	if err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if !plan.Applied || plan.To != 2 || plan.NewRevision != 4 {
		t.Errorf("rollback result %+v", plan)
	}
	if got, want := f.statuses(t, "web"), []string{"superseded", "superseded", "superseded", "deployed"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("statuses after rollback %v, want %v", got, want)
	}
	v2, err := decode(ctx, f.c, f.ns, "web", 2)
	if err != nil {
		t.Fatal(err)
	}
	v4, err := decode(ctx, f.c, f.ns, "web", 4)
	if err != nil {
		t.Fatal(err)
	}
	if v4.Manifest != v2.Manifest || v4.Info.Description != "Rollback to 2" {
		t.Errorf("revision 4 (%q) differs from revision 2's manifest", v4.Info.Description)
	}
	if cm := configMapData(t, f.ns, "web-config"); cm["color"] != "green" || cm["replicas"] != "2" {
		t.Errorf("web-config after rollback to 2: %v", cm)
	}
	if configMapData(t, f.ns, "web-extra") == nil {
		t.Errorf("web-extra, part of revision 2, is missing after the rollback")
	}
	db, err := secrets(f.ns).Get(ctx, "web-db", metav1.GetOptions{})
	if err != nil || string(db.Data["password"]) != "s3cr3t-web-1" {
		t.Errorf("web-db after rollback: %v", err)
	}

	// Uninstall keeping the history: resources go, records stay, marked.
	if _, err := applyByName(ctx, f.c, f.ns, "web", uninstallPlan(true)); err != nil {
		t.Fatalf("Uninstall --keep-history: %v", err)
	}
	if got := f.releaseResources(t, "web"); len(got) != 0 {
		t.Errorf("after uninstall --keep-history, resources remain: %v", got)
	}
	if got := f.statuses(t, "web"); len(got) != 4 || got[3] != "uninstalled" {
		t.Errorf("statuses after uninstall --keep-history: %v", got)
	}
	// Uninstalling again purges the records, index and chunks.
	if _, err := applyByName(ctx, f.c, f.ns, "web", uninstallPlan(false)); err != nil {
		t.Fatalf("Uninstall (purge): %v", err)
	}
	if _, err := f.c.History(ctx, f.ns, "web"); !errors.Is(err, kube.ErrNotFound) {
		t.Errorf("History after purge: %v", err)
	}
	for rev := 1; rev <= 4; rev++ {
		if got := secretsOfKey(t, f.ns, opsOwner, storage.RecordKey("web", rev)); len(got) != 0 {
			t.Errorf("after purge, v%d left %v", rev, got)
		}
	}

	// Uninstall at once removes resources and records.
	f.install(t, "api", 2)
	if got := f.releaseResources(t, "api"); len(got) != 4 {
		t.Fatalf("api installed with %v", got)
	}
	if _, err := applyByName(ctx, f.c, f.ns, "api", uninstallPlan(false)); err != nil {
		t.Fatalf("Uninstall: %v", err)
	}
	if got := f.releaseResources(t, "api"); len(got) != 0 {
		t.Errorf("after uninstall, api's resources remain: %v", got)
	}
	for rev := 1; rev <= 2; rev++ {
		if got := secretsOfKey(t, f.ns, opsOwner, storage.RecordKey("api", rev)); len(got) != 0 {
			t.Errorf("after uninstall, api v%d left %v", rev, got)
		}
	}
	if _, err := applyByName(ctx, f.c, f.ns, "api", uninstallPlan(false)); !errors.Is(err, kube.ErrNotFound) {
		t.Errorf("Uninstall of a release that is gone: %v", err)
	}
}

// TestDeleteRevision deletes single revision records, with and without --force.
func TestDeleteRevision(t *testing.T) {
	ctx := t.Context()
	f := newOpsFixture(t)
	f.install(t, "jobs", 3)
	key := func(rev int) string { return storage.RecordKey("jobs", rev) }
	if n := len(secretsOfKey(t, f.ns, opsOwner, key(2))); n < 2 {
		t.Fatalf("jobs v2 is stored in %d Secrets, want several", n)
	}

	if _, err := applyByName(ctx, f.c, f.ns, "jobs", deleteRevisionPlan(2, false)); err != nil {
		t.Fatalf("DeleteRevision 2: %v", err)
	}
	if got := secretsOfKey(t, f.ns, opsOwner, key(2)); len(got) != 0 {
		t.Errorf("DeleteRevision 2 left %v", got)
	}
	rows, err := f.c.History(ctx, f.ns, "jobs")
	if err != nil || len(rows) != 2 || rows[0].Revision != 1 || rows[1].Revision != 3 {
		t.Fatalf("History after deleting revision 2: %+v, %v", rows, err)
	}
	for _, rev := range []int{1, 3} {
		if _, err := decode(ctx, f.c, f.ns, "jobs", rev); err != nil {
			t.Errorf("revision %d after deleting revision 2: %v", rev, err)
		}
	}
	if _, err := applyByName(ctx, f.c, f.ns, "jobs", deleteRevisionPlan(2, false)); !errors.Is(err, kube.ErrNotFound) {
		t.Errorf("deleting revision 2 again: %v", err)
	}
	if _, err := applyByName(ctx, f.c, f.ns, "jobs", deleteRevisionPlan(0, false)); err == nil || !strings.Contains(err.Error(), "needs a revision number") {
		t.Errorf("DeleteRevision 0: %v", err)
	}

	// Revision 1 loses a chunk: it cannot be decoded, so only --force deletes it.
	lost := chunkNames(t, f.ns, key(1))[0]
	if err := secrets(f.ns).Delete(ctx, lost, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	left := secretsOfKey(t, f.ns, opsOwner, key(1))
	_, err = applyByName(ctx, f.c, f.ns, "jobs", deleteRevisionPlan(1, false))
	if err == nil {
		t.Fatal("DeleteRevision of an undecodable revision without --force succeeded")
	}
	mustContain(t, mustErrIs(t, err, storage.ErrCorrupt), "cannot be decoded", "use --force", lost)
	if got := secretsOfKey(t, f.ns, opsOwner, key(1)); strings.Join(got, ",") != strings.Join(left, ",") {
		t.Errorf("a refused delete changed the record: %v -> %v", left, got)
	}
	if _, err := applyByName(ctx, f.c, f.ns, "jobs", deleteRevisionPlan(1, true)); err != nil {
		t.Fatalf("DeleteRevision --force: %v", err)
	}
	if got := secretsOfKey(t, f.ns, opsOwner, key(1)); len(got) != 0 {
		t.Errorf("DeleteRevision --force left %v", got)
	}
	if got := f.statuses(t, "jobs"); len(got) != 1 || got[0] != "deployed" {
		t.Errorf("jobs after the deletes: %v", got)
	}
	if _, err := decode(ctx, f.c, f.ns, "jobs", 3); err != nil {
		t.Errorf("revision 3 after the deletes: %v", err)
	}
}

// makeStuck adds a revision in pending-upgrade to release name, started ago, as an
// operator killed in the middle of an upgrade leaves it.
func (f *opsFixture) makeStuck(t *testing.T, name string, ago time.Duration) int {
	t.Helper()
	last, err := decode(t.Context(), f.c, f.ns, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	pending := *last
	info := *last.Info
	pending.Info = &info
	pending.Version = last.Version + 1
	pending.Info.Status = release.StatusPendingUpgrade
	pending.Info.Description = "Preparing upgrade"
	pending.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-ago)}
	if err := f.drv.Create(storage.RecordKey(name, pending.Version), &pending); err != nil {
		t.Fatal(err)
	}
	return pending.Version
}

// TestFixStuck shows a release stuck in pending-upgrade, proves Helm refuses to
// upgrade it, and gets it out both ways.
func TestFixStuck(t *testing.T) {
	ctx := t.Context()
	f := newOpsFixture(t)
	hc := helmConfig(t, f.kubeconfig, f.ns, f.drv)

	f.install(t, "stuck", 2)
	if fs, err := planByName(ctx, f.c, f.ns, "stuck", fixStuckPlan("")); err != nil || fs.Stuck != nil {
		t.Fatalf("PlanFixStuck of a deployed release: %+v, %v", fs, err)
	}
	if _, err := applyByName(ctx, f.c, f.ns, "stuck", fixStuckPlan(ops.FixMarkFailed)); err == nil || !strings.Contains(err.Error(), "is not stuck") {
		t.Errorf("FixStuck of a deployed release: %v", err)
	}
	rev := f.makeStuck(t, "stuck", 10*time.Minute)
	fs, err := planByName(ctx, f.c, f.ns, "stuck", fixStuckPlan(""))
	if err != nil || fs.Stuck == nil {
		t.Fatalf("PlanFixStuck: %+v, %v", fs, err)
	}
	st := fs.Stuck
	if st.Row.Revision != rev || st.Row.Status != "pending-upgrade" || st.For < 10*time.Minute || st.For > 11*time.Minute {
		t.Errorf("PlanFixStuck: revision %d %s for %v; want %d pending-upgrade for 10m", st.Row.Revision, st.Row.Status, st.For, rev)
	}
	if _, err := tryHelmUpgrade(hc, f.ns, "stuck", "1.5.0", webappValues("stuck", 3, 100)); err == nil || !strings.Contains(err.Error(), "in progress") {
		t.Fatalf("helm upgrade of a stuck release: %v; want Helm's refusal", err)
	}
	if _, err := applyByName(ctx, f.c, f.ns, "stuck", fixStuckPlan("reboot")); err == nil || !strings.Contains(err.Error(), "unknown fix") {
		t.Errorf("FixStuck with an unknown fix: %v", err)
	}
	if ops.FixMarkFailed.Warning() == "" || ops.FixDeletePending.Warning() == "" {
		t.Errorf("a fix has no warning")
	}

	if _, err := applyByName(ctx, f.c, f.ns, "stuck", fixStuckPlan(ops.FixMarkFailed)); err != nil {
		t.Fatalf("FixStuck mark-failed: %v", err)
	}
	if got := f.statuses(t, "stuck"); len(got) != 3 || got[2] != "failed" {
		t.Errorf("statuses after mark-failed: %v", got)
	}
	marked, err := decode(ctx, f.c, f.ns, "stuck", rev)
	if err != nil || marked.Info.Status != release.StatusFailed || !strings.Contains(marked.Info.Description, "Marked failed by chunkview") {
		t.Errorf("revision %d after mark-failed: %+v, %v", rev, marked, err)
	}
	up, err := tryHelmUpgrade(hc, f.ns, "stuck", "1.5.0", webappValues("stuck", 3, 100))
	if err != nil {
		t.Fatalf("helm upgrade after mark-failed: %v", err)
	}
	if up.Version != rev+1 || configMapData(t, f.ns, "stuck-config")["color"] != "amber" {
		t.Errorf("helm upgrade after mark-failed made revision %d", up.Version)
	}
	// And a rollback through chunkview, from there.
	if plan, err := applyByName(ctx, f.c, f.ns, "stuck", rollbackPlan(1, kube.DiffOptions{})); err != nil || plan.NewRevision != rev+2 {
		t.Errorf("rollback after mark-failed: %+v, %v", plan, err)
	}

	// delete-pending: the previous revision is the latest again.
	f.install(t, "stuck2", 2)
	rev = f.makeStuck(t, "stuck2", time.Hour)
	if _, err := applyByName(ctx, f.c, f.ns, "stuck2", fixStuckPlan(ops.FixDeletePending)); err != nil {
		t.Fatalf("FixStuck delete-pending: %v", err)
	}
	if got := secretsOfKey(t, f.ns, opsOwner, storage.RecordKey("stuck2", rev)); len(got) != 0 {
		t.Errorf("delete-pending left %v", got)
	}
	latest, err := f.c.Revision(ctx, f.ns, "stuck2", 0)
	if err != nil || latest.Revision != rev-1 || latest.Status != "deployed" {
		t.Errorf("latest after delete-pending: %+v, %v", latest, err)
	}
	if up, err := tryHelmUpgrade(hc, f.ns, "stuck2", "1.5.0", webappValues("stuck2", 5, 100)); err != nil || up.Version != rev {
		t.Errorf("helm upgrade after delete-pending: %v", err)
	}
}

// TestRollbackToLatestUndoesDrift: rolling back to the latest revision applies it
// again, as `helm rollback NAME N` does for the current N: a field changed by hand
// in the cluster (drift) is put back, and the rollback is recorded as a new
// revision, the old one superseded.
func TestRollbackToLatestUndoesDrift(t *testing.T) {
	ctx := t.Context()
	f := newOpsFixture(t)
	f.install(t, "drifty", 2)
	cm, err := cluster.Client.CoreV1().ConfigMaps(f.ns).Get(ctx, "drifty-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := cm.Data["color"]
	cm.Data["color"] = "hand-edited"
	if _, err := cluster.Client.CoreV1().ConfigMaps(f.ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	plan, err := planByName(ctx, f.c, f.ns, "drifty", rollbackPlan(2, kube.DiffOptions{}))
	if err != nil || !plan.Reapply || plan.From != 2 || plan.Major != 3 {
		t.Fatalf("plan of a rollback to the latest: %+v, %v", plan, err)
	}
	mustContain(t, plan.Describe(), "applied again", "recorded as revision 3", "Helm 3")
	if err := ops.NewRunner(f.c).Apply(ctx, plan); err != nil {
		t.Fatalf("rollback to the latest: %v", err)
	}
	if got := configMapData(t, f.ns, "drifty-config")["color"]; got != want {
		t.Errorf("drifty-config color %q after the rollback to the latest, want %q as revision 2 recorded it", got, want)
	}
	if got := f.statuses(t, "drifty"); strings.Join(got, " ") != "superseded superseded deployed" {
		t.Errorf("statuses after the rollback to the latest: %v", got)
	}
	v3, err := decode(ctx, f.c, f.ns, "drifty", 3)
	if err != nil || v3.Info.Description != "Rollback to 2" {
		t.Fatalf("revision 3: %v, %v", v3, err)
	}
}
