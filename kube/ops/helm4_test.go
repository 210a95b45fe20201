package ops_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// helm4Revision is revision rev of a release as Helm 4 stores it: with the apply
// method, mod times and the rollback revision Helm 3's types do not have.
func helm4Revision(name, ns string, rev int, status common4.Status) *release4.Release {
	ts := baseTime.Add(time.Duration(rev) * time.Hour)
	return &release4.Release{
		Name: name, Namespace: ns, Version: rev,
		Info: &release4.Info{FirstDeployed: baseTime, LastDeployed: ts, Status: status, Description: "Upgrade complete"},
		Chart: &chart4.Chart{
			Metadata:  &chart4.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0." + string(rune('0'+rev)), AppVersion: "4.0"},
			Templates: []*chartcommon4.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n"), ModTime: ts}},
			ModTime:   ts,
		},
		Config:      map[string]any{"replicas": rev},
		Manifest:    "",
		ApplyMethod: string(release4.ApplyMethodServerSideApply),
	}
}

// TestHelm4Record: records Helm 4 wrote (here with Helm 4's own Secrets driver)
// read with their apply method, and every operation on them runs through Helm 4:
// the plan says so, and what it writes keeps every field Helm 4 wrote.
func TestHelm4Record(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	d4 := driver4.NewSecrets(secrets(ns))
	for rev, st := range map[int]common4.Status{1: common4.StatusSuperseded, 2: common4.StatusSuperseded, 3: common4.StatusDeployed} {
		if err := d4.Create(storage.RecordKey("h4", rev), helm4Revision("h4", ns, rev, st)); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns}, nil)
	rows, err := c.History(ctx, ns, "h4")
	if err != nil || len(rows) != 3 {
		t.Fatalf("history: %+v, %v", rows, err)
	}
	d, err := c.Details(ctx, rows[2])
	if err != nil {
		t.Fatal(err)
	}
	if d.Row.ApplyMethod != "ssa" || len(d.Row.UnknownFields) == 0 || d.Release.Chart.Metadata.Name != "demo" {
		t.Fatalf("details: apply method %q, unknown %q", d.Row.ApplyMethod, d.Row.UnknownFields)
	}
	mustRunHelm4(t, c, ns, "h4", func(key string) (*release4.Release, error) {
		ri, err := driver4.NewSecrets(secrets(ns)).Get(key)
		if err != nil {
			return nil, err
		}
		return ri.(*release4.Release), nil
	})

	if _, err := applyByName(ctx, c, ns, "h4", deleteRevisionPlan(1, false)); err != nil {
		t.Fatalf("delete-revision of a Helm 4 record: %v", err)
	}
	if _, err := secrets(ns).Get(ctx, storage.RecordKey("h4", 1), metav1.GetOptions{}); err == nil {
		t.Fatal("revision 1 is still there")
	}
	if s, err := secrets(ns).Get(ctx, storage.RecordKey("h4", 3), metav1.GetOptions{}); err != nil || !strings.Contains(string(s.Type), "helm.sh/release.v1") {
		t.Fatalf("revision 3 after the delete of 1: %v", err)
	}
}

// mustRunHelm4 checks that the operations on release name, whose revisions Helm 4
// wrote (helm4Revision), are planned through Helm 4, and that a rollback to
// revision 1 writes revision 4 as Helm 4's rollback writes it, every field of
// revision 1 kept; get reads a record back through Helm 4's own types.
func mustRunHelm4(t *testing.T, c *kube.Client, ns, name string, get func(key string) (*release4.Release, error)) {
	t.Helper()
	ctx := t.Context()
	up, err := planByName(ctx, c, ns, name, uninstallPlan(true))
	if err != nil || up.Major != 4 || !strings.Contains(up.Describe(), "Helm 4") {
		t.Fatalf("uninstall plan of a Helm 4 release: %+v, %v", up, err)
	}
	plan, err := planByName(ctx, c, ns, name, rollbackPlan(1, kube.DiffOptions{}))
	if err != nil || plan.Major != 4 {
		t.Fatalf("rollback plan of a Helm 4 release: %+v, %v", plan, err)
	}
	mustContain(t, plan.Describe(), "Helm 4", "apply_method")
	if err := ops.NewRunner(c).Apply(ctx, plan); err != nil {
		t.Fatalf("rollback of a Helm 4 release: %v", err)
	}
	got, err := get(storage.RecordKey(name, 4))
	if err != nil {
		t.Fatal(err)
	}
	want := helm4Revision(name, ns, 1, common4.StatusDeployed)
	if got.Info.Status != common4.StatusDeployed || got.Info.RollbackRevision != 1 || got.Info.Description != "Rollback to 1" ||
		got.ApplyMethod != want.ApplyMethod || !got.Chart.ModTime.Equal(want.Chart.ModTime) ||
		len(got.Chart.Templates) != 1 || !got.Chart.Templates[0].ModTime.Equal(want.Chart.Templates[0].ModTime) || got.Chart.Metadata.Version != want.Chart.Metadata.Version {
		t.Fatalf("revision 4 as Helm 4 reads it: %+v %+v, want revision 1's fields with rollback_revision 1", got.Info, got.Chart)
	}
	prev, err := get(storage.RecordKey(name, 3))
	if err != nil || prev.Info.Status != common4.StatusSuperseded || prev.ApplyMethod != "ssa" || !prev.Chart.ModTime.Equal(helm4Revision(name, ns, 3, common4.StatusDeployed).Chart.ModTime) {
		t.Fatalf("revision 3 after the rollback: %+v, %v; want superseded, its fields kept", prev, err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<no error>"
	}
	return err.Error()
}
