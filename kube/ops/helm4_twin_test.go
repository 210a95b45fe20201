package ops_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	common4 "helm.sh/helm/v4/pkg/release/common"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// helm4Stores are the stores the Helm 4 twin tests run in, with the driver Helm
// 4's own CLI (or an operator built on it) reads and writes them through.
var helm4Stores = []struct {
	store string
	// driver returns Helm 4's driver of the store over ns; nil for Helm's own,
	// which config4 builds from HELM_DRIVER.
	driver func(ns string) driver4.Driver
	// reader returns the driver the records are read back through.
	reader func(ns string) driver4.Driver
}{
	{store: kube.DriverSecret, reader: func(ns string) driver4.Driver { return helm4Driver(kube.DriverSecret, ns) }},
	{store: kube.DriverConfigMap, reader: func(ns string) driver4.Driver { return helm4Driver(kube.DriverConfigMap, ns) }},
	// The chunked store as an operator on Helm 4 would keep it: chunkview's
	// Helm 4 driver under Helm 4's actions, small chunks so records span several.
	{store: kube.DriverChunked,
		driver: func(ns string) driver4.Driver { return chunked4Driver(ns) },
		reader: func(ns string) driver4.Driver { return chunked4Driver(ns) }},
}

// chunked4Driver is chunkview's Helm 4 chunked driver over ns, owner helm, in
// chunks of 1 KiB.
func chunked4Driver(ns string) driver4.Driver {
	return helm4.NewChunkedSecrets(secrets(ns), "helm", storage.ChunkedSecretsConfig{ChunkSize: 1024})
}

// TestHelm4TwinRollback: twin releases, installed with server-side apply and
// upgraded by Helm 4's own actions in two namespaces, are rolled back to revision
// 1: one by Helm 4's rollback action as `helm rollback` (Helm 4.3) runs it, the
// other by chunkview. Read back through Helm 4's driver, the two new revisions,
// and the two revisions they superseded, match field by field (status, version,
// apply_method, chart with its mod times, config, manifest, description,
// rollback_revision, hooks, labels); the objects are applied the same way, by
// server-side apply under Helm's field manager. In every store.
func TestHelm4TwinRollback(t *testing.T) {
	for _, st := range helm4Stores {
		t.Run(st.store, func(t *testing.T) {
			ctx := t.Context()
			nsA, nsB := cluster.Namespace(t), cluster.Namespace(t)
			for _, ns := range []string{nsA, nsB} {
				var d driver4.Driver
				if st.driver != nil {
					d = st.driver(ns)
				}
				cfg := config4(t, adminKubeconfig(t, ns), ns, st.store, d)
				install4(t, cfg, ns, "twin", values4("twin", 0))
				upgrade4(t, cfg, ns, "twin", "1.1.0", values4("twin", 1))
			}
			// A: Helm 4's own rollback.
			var dA driver4.Driver
			if st.driver != nil {
				dA = st.driver(nsA)
			}
			if err := rollback4(config4(t, adminKubeconfig(t, nsA), nsA, st.store, dA), "twin", 1); err != nil {
				t.Fatalf("helm 4 rollback: %v", err)
			}
			// B: chunkview's.
			c := connect(t, adminKubeconfig(t, nsB), []string{"-n", nsB, "--driver", st.store, "--chunk-size", "1024"}, nil)
			plan, err := planByName(ctx, c, nsB, "twin", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if plan.Major != 4 || !strings.Contains(plan.Describe(), "Helm 4") {
				t.Fatalf("the plan of a rollback of a Helm 4 release runs through Helm %d: %s", plan.Major, plan.Describe())
			}
			if err := ops.NewRunner(c).Apply(ctx, plan); err != nil {
				t.Fatalf("chunkview rollback: %v", err)
			}
			for rev, want := range map[int]common4.Status{2: common4.StatusSuperseded, 3: common4.StatusDeployed} {
				a, b := record4(t, st.reader(nsA), "twin", rev), record4(t, st.reader(nsB), "twin", rev)
				if b.Info.Status != want {
					t.Errorf("revision %d is %s, want %s", rev, b.Info.Status, want)
				}
				if diff := diffFields(recordFields(t, a, nsA), recordFields(t, b, nsB)); len(diff) > 0 {
					t.Errorf("revision %d: chunkview's rollback differs from Helm 4's:\n  %s", rev, strings.Join(diff, "\n  "))
				}
			}
			b3 := record4(t, st.reader(nsB), "twin", 3)
			if b3.ApplyMethod != "ssa" || b3.Info.RollbackRevision != 1 || b3.Info.Description != "Rollback to 1" {
				t.Errorf("revision 3: apply method %q, rollback revision %d, description %q", b3.ApplyMethod, b3.Info.RollbackRevision, b3.Info.Description)
			}
			// The objects: revision 1's values, applied server-side by "helm".
			for _, ns := range []string{nsA, nsB} {
				cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(ctx, "twin-config", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if cm.Data["color"] != "blue" {
					t.Errorf("%s: twin-config color %q after the rollback to 1, want blue", ns, cm.Data["color"])
				}
			}
			mA, mB := configMapManagers(t, nsA), configMapManagers(t, nsB)
			if strings.Join(mA, " ") != strings.Join(mB, " ") || strings.Join(mB, " ") != "helm/Apply" {
				t.Errorf("managed fields of twin-config: Helm 4 %v, chunkview %v; want helm/Apply alone in both", mA, mB)
			}
		})
	}
}

func configMapManagers(t *testing.T, ns string) []string {
	t.Helper()
	cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "twin-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return managers(cm.ManagedFields)
}

// TestHelm3TwinRollback: the same twins, written by Helm 3's actions, rolled back
// by Helm 3's rollback and by chunkview. chunkview runs Helm 3 for them (the plan
// says so) and the records match field by field; read through Helm 4's types,
// chunkview's revision carries no field Helm 3 does not write. Helm 4's own
// rollback of the same records does add fields (info.rollback_revision, the
// chart's schemamodtime, apply_method): why a release only Helm 3 wrote is not
// handed to Helm 4.
func TestHelm3TwinRollback(t *testing.T) {
	for _, store := range []string{kube.DriverSecret, kube.DriverConfigMap} {
		t.Run(store, func(t *testing.T) {
			ctx := t.Context()
			nsA, nsB, nsC := cluster.Namespace(t), cluster.Namespace(t), cluster.Namespace(t)
			for _, ns := range []string{nsA, nsB, nsC} {
				cfg := helmConfig(t, adminKubeconfig(t, ns), ns, helm3Driver(store, ns))
				helmInstall(t, cfg, ns, "twin", webappValues("twin", 0, 100))
				helmUpgrade(t, cfg, ns, "twin", "1.1.0", webappValues("twin", 1, 100))
			}
			rb := action.NewRollback(helmConfig(t, adminKubeconfig(t, nsA), nsA, helm3Driver(store, nsA)))
			rb.Version = 1
			if err := rb.Run("twin"); err != nil {
				t.Fatalf("helm 3 rollback: %v", err)
			}
			c := connect(t, adminKubeconfig(t, nsB), []string{"-n", nsB, "--driver", store}, nil)
			plan, err := planByName(ctx, c, nsB, "twin", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if plan.Major != 3 {
				t.Fatalf("a release Helm 3 wrote is rolled back through Helm %d (%s)", plan.Major, plan.Reason)
			}
			if err := ops.NewRunner(c).Apply(ctx, plan); err != nil {
				t.Fatal(err)
			}
			for rev, want := range map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusDeployed} {
				a, err := helm3Driver(store, nsA).Get(storage.RecordKey("twin", rev))
				if err != nil {
					t.Fatal(err)
				}
				b, err := helm3Driver(store, nsB).Get(storage.RecordKey("twin", rev))
				if err != nil {
					t.Fatal(err)
				}
				if b.Info.Status != want {
					t.Errorf("revision %d is %s, want %s", rev, b.Info.Status, want)
				}
				if diff := diffFields(recordFields(t, a, nsA), recordFields(t, b, nsB)); len(diff) > 0 {
					t.Errorf("revision %d: chunkview's rollback differs from Helm 3's:\n  %s", rev, strings.Join(diff, "\n  "))
				}
			}
			// Through Helm 4's types, field for field what Helm 3 wrote: the raw
			// record has no field Helm 4 adds.
			got := recordFields(t, record4(t, helm4Driver(store, nsB), "twin", 3), nsB)
			if _, ok := got["apply_method"]; ok {
				t.Errorf("chunkview's rollback of a Helm 3 release wrote apply_method")
			}

			// C: Helm 4's own rollback of the same Helm 3 records.
			if err := rollback4(config4(t, adminKubeconfig(t, nsC), nsC, store, nil), "twin", 1); err != nil {
				t.Fatalf("helm 4 rollback of Helm 3 records: %v", err)
			}
			h4 := record4(t, helm4Driver(store, nsC), "twin", 3)
			h3, err := helm3Driver(store, nsA).Get(storage.RecordKey("twin", 3))
			if err != nil {
				t.Fatal(err)
			}
			extra := diffFields(recordFields(t, h3, nsA), recordFields(t, h4, nsC))
			if h4.Info.RollbackRevision != 1 || h4.ApplyMethod == "" || len(extra) == 0 {
				t.Errorf("Helm 4's rollback of a Helm 3 release: rollback_revision %d, apply_method %q, differences from Helm 3's %q; want Helm 4's own fields added", h4.Info.RollbackRevision, h4.ApplyMethod, extra)
			}
			t.Logf("Helm 4's rollback of Helm 3 records writes, beyond Helm 3's: %s", strings.Join(extra, "; "))
		})
	}
}

// helm3Driver is Helm 3's own driver of store over namespace ns.
func helm3Driver(store, ns string) driver.Driver {
	if store == kube.DriverConfigMap {
		return driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns))
	}
	return driver.NewSecrets(secrets(ns))
}
