package render

import (
	"io"
	"strings"
	"testing"

	action3 "helm.sh/helm/v3/pkg/action"
	chart3 "helm.sh/helm/v3/pkg/chart"
	chartutil3 "helm.sh/helm/v3/pkg/chartutil"
	kubefake3 "helm.sh/helm/v3/pkg/kube/fake"
	release3 "helm.sh/helm/v3/pkg/release"
	storage3 "helm.sh/helm/v3/pkg/storage"
	driver3 "helm.sh/helm/v3/pkg/storage/driver"
	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kubefake4 "helm.sh/helm/v4/pkg/kube/fake"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	storage4 "helm.sh/helm/v4/pkg/storage"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"
)

// TestPendingMeansHelm3 holds PendingMeans to Helm 3's own actions, over
// revision 1 deployed and revision 2 pending-upgrade: the upgrade is refused
// with HelmRefusal, and the rollback to 1 runs, writes revision 3 deployed and
// leaves revision 2 pending-upgrade.
func TestPendingMeansHelm3(t *testing.T) {
	cfg := &action3.Configuration{
		Releases:     storage3.Init(driver3.NewMemory()),
		KubeClient:   &kubefake3.PrintingKubeClient{Out: io.Discard},
		Capabilities: chartutil3.DefaultCapabilities,
		Log:          func(string, ...interface{}) {},
	}
	ch := &chart3.Chart{Metadata: &chart3.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"}}
	for rev, st := range map[int]release3.Status{1: release3.StatusDeployed, 2: release3.StatusPendingUpgrade} {
		rel := &release3.Release{Name: "app", Namespace: "default", Version: rev, Chart: ch, Info: &release3.Info{Status: st}}
		if err := cfg.Releases.Create(rel); err != nil {
			t.Fatal(err)
		}
	}
	up := action3.NewUpgrade(cfg)
	up.Namespace = "default"
	_, err := up.Run("app", ch, nil)
	if err == nil || !strings.Contains(err.Error(), HelmRefusal) {
		t.Fatalf("Helm 3's upgrade over a pending revision: %v; want %q", err, HelmRefusal)
	}
	rb := action3.NewRollback(cfg)
	rb.Version = 1
	if err := rb.Run("app"); err != nil {
		t.Fatalf("Helm 3's rollback over a pending revision: %v", err)
	}
	got := map[int]string{}
	for rev := 1; rev <= 3; rev++ {
		r, err := cfg.Releases.Get("app", rev)
		if err != nil {
			t.Fatal(err)
		}
		got[rev] = r.Info.Status.String()
	}
	checkPendingLeft(t, got)
}

// TestPendingMeansHelm4 is TestPendingMeansHelm3 over Helm 4's actions.
func TestPendingMeansHelm4(t *testing.T) {
	cfg := &action4.Configuration{
		Releases:     storage4.Init(driver4.NewMemory()),
		KubeClient:   &kubefake4.PrintingKubeClient{Out: io.Discard},
		Capabilities: chartcommon4.DefaultCapabilities,
	}
	ch := &chart4.Chart{Metadata: &chart4.Metadata{APIVersion: "v2", Name: "app", Version: "1.0.0"}}
	for rev, st := range map[int]common4.Status{1: common4.StatusDeployed, 2: common4.StatusPendingUpgrade} {
		rel := &release4.Release{Name: "app", Namespace: "default", Version: rev, Chart: ch, Info: &release4.Info{Status: st}}
		if err := cfg.Releases.Create(rel); err != nil {
			t.Fatal(err)
		}
	}
	up := action4.NewUpgrade(cfg)
	up.Namespace = "default"
	_, err := up.Run("app", ch, nil)
	if err == nil || !strings.Contains(err.Error(), HelmRefusal) {
		t.Fatalf("Helm 4's upgrade over a pending revision: %v; want %q", err, HelmRefusal)
	}
	rb := action4.NewRollback(cfg)
	rb.Version = 1
	if err := rb.Run("app"); err != nil {
		t.Fatalf("Helm 4's rollback over a pending revision: %v", err)
	}
	got := map[int]string{}
	for rev := 1; rev <= 3; rev++ {
		ri, err := cfg.Releases.Get("app", rev)
		if err != nil {
			t.Fatal(err)
		}
		got[rev] = ri.(*release4.Release).Info.Status.String()
	}
	checkPendingLeft(t, got)
}

// checkPendingLeft checks the history a rollback over pending revision 2 left,
// and that PendingMeans says it.
func checkPendingLeft(t *testing.T, got map[int]string) {
	t.Helper()
	if got[1] != "superseded" || got[2] != "pending-upgrade" || got[3] != "deployed" {
		t.Errorf("after the rollback: %v; want 1 superseded, 2 pending-upgrade, 3 deployed", got)
	}
	says := PendingMeans(2, got[2])
	for _, want := range []string{"refuse to upgrade while revision 2 is pending-upgrade", "a rollback runs, but leaves it pending-upgrade under the new revision"} {
		if !strings.Contains(says, want) {
			t.Errorf("PendingMeans: %q lacks %q", says, want)
		}
	}
}
