package kube_test

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

// TestHelm4Record: records Helm 4 wrote read with their apply method, and an
// operation that would rewrite one through Helm 3's actions (which would drop the
// fields Helm 3 does not know) refuses and points to Helm 4, changing nothing.
// Deleting a revision record rewrites nothing and goes ahead.
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
	mustRefuseHelm4(t, c, ns, "h4", rows)

	if err := c.DeleteRevision(ctx, ns, "h4", 1, false); err != nil {
		t.Fatalf("delete-revision of a Helm 4 record: %v", err)
	}
	if _, err := secrets(ns).Get(ctx, storage.RecordKey("h4", 1), metav1.GetOptions{}); err == nil {
		t.Fatal("revision 1 is still there")
	}
	if s, err := secrets(ns).Get(ctx, storage.RecordKey("h4", 3), metav1.GetOptions{}); err != nil || !strings.Contains(string(s.Type), "helm.sh/release.v1") {
		t.Fatalf("revision 3 after the delete of 1: %v", err)
	}
}

// mustRefuseHelm4 checks that rollback and uninstall of release name, whose
// latest revision Helm 4 wrote, are refused (planned by name, or from rows as a
// screen plans them) and that nothing in namespace ns changed.
func mustRefuseHelm4(t *testing.T, c *kube.Client, ns, name string, rows []kube.RevisionRow) {
	t.Helper()
	ctx := t.Context()
	before := snapshot(t, ns)
	_, err := c.PlanRollback(ctx, ns, name, 1, kube.DiffOptions{})
	mustContain(t, errString(err), "rollback refused", "apply_method", "Helm 4", "nothing was changed")
	_, err = c.PlanUninstall(ctx, ns, name, true)
	mustContain(t, errString(err), "uninstall refused", "Helm 4")
	// A plan a screen made from its rows, then applied, is refused the same way.
	p, err := kube.NewPlan(ns, rows)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ApplyUninstall(ctx, p.Uninstall(false))
	mustContain(t, errString(err), "uninstall refused", "Helm 4")
	after := snapshot(t, ns)
	if len(after) != len(before) {
		t.Fatalf("a refused operation changed the namespace: %d objects, then %d", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("a refused operation changed %s", k)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<no error>"
	}
	return err.Error()
}
