package ops_test

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// helmDriverFor returns Helm's own driver for store d over namespace ns, as the
// helm CLI builds it (HELM_DRIVER=secret or configmap).
func helmDriverFor(d, ns string) driver.Driver {
	if d == kube.DriverConfigMap {
		return driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns))
	}
	return driver.NewSecrets(secrets(ns))
}

// recordBytes returns the length of data.release of a Helm record, as stored.
func recordBytes(t *testing.T, d, ns, key string) int64 {
	t.Helper()
	if d == kube.DriverConfigMap {
		cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(cm.Data["release"]))
	}
	s, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(s.Data["release"]))
}

// TestHelmStores runs chunkview over releases that Helm's own install and upgrade
// actions stored with its Secrets and ConfigMaps drivers, beside a chunked release:
// listing, history, diff, inspect, rollback (read back by Helm's own driver, never
// converted), a plan another writer moved on from, and uninstall.
func TestHelmStores(t *testing.T) {
	for _, store := range []string{kube.DriverSecret, kube.DriverConfigMap} {
		t.Run(store, func(t *testing.T) {
			ns := "helmstore-" + store
			ensureNamespace(t, cluster.Client, ns)
			kc := adminKubeconfig(t, ns)
			hd := helmDriverFor(store, ns)
			cfg := helmConfig(t, kc, ns, hd)
			helmInstall(t, cfg, ns, "web", webappValues("web", 0, 2000))
			helmUpgrade(t, cfg, ns, "web", "1.1.0", webappValues("web", 1, 2000))
			helmUpgrade(t, cfg, ns, "web", "1.2.0", webappValues("web", 2, 2000))
			seed(t, chunkviewDriver(ns, "helm", 4096), history("api", ns, 2, 6000)...)

			c := connect(t, kc, []string{"-n", ns}, nil)
			rows, err := c.Releases(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]kube.ReleaseRow{}
			for _, r := range rows {
				byName[r.Latest.Name] = r
			}
			web, api := byName["web"], byName["api"]
			if len(rows) != 2 || web.Latest.Driver != store || api.Latest.Driver != kube.DriverChunked {
				t.Fatalf("rows = %+v, want web in %s and api chunked", rows, store)
			}
			l := web.Latest
			if web.Revisions != 3 || l.Revision != 3 || l.Status != "deployed" || !l.Known || l.Summary.Chart != "webapp" || l.Summary.ChartVersion != "1.2.0" || l.Summary.Namespace != ns {
				t.Fatalf("web row = %+v (%d revisions), want revision 3 of 3, deployed, webapp-1.2.0 in %s", l, web.Revisions, ns)
			}
			if want := recordBytes(t, store, ns, "sh.helm.release.v1.web.v3"); l.Summary.StoredBytes != want || l.LimitBytes != 1<<20 {
				t.Fatalf("web stored %d of %d, want %d of 1 MiB", l.Summary.StoredBytes, l.LimitBytes, want)
			}
			if f := l.Fill(); f <= 0 || f >= 0.1 {
				t.Fatalf("web fill = %v, want a small share", f)
			}

			hist, err := c.History(t.Context(), ns, "web")
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 3 || hist[0].Status != "superseded" || hist[2].Driver != store || !hist[1].Known {
				t.Fatalf("history = %+v", hist)
			}
			res, err := kube.NewInspector(c).Diff(t.Context(), ns, "web", 1, 2, kube.DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res == nil || res.Values.Diff == "" {
				t.Fatalf("diff of revisions 1 and 2 found nothing: %+v", res)
			}
			lay, err := kube.NewInspector(c).Layout(t.Context(), ns, "web", 2)
			if err != nil {
				t.Fatal(err)
			}
			if lay.Index.Role != "record" || int64(lay.Index.Bytes) != recordBytes(t, store, ns, "sh.helm.release.v1.web.v2") || lay.Broken() || len(lay.Parts) == 0 || len(lay.Chunks) != 0 {
				t.Fatalf("layout = %+v", lay)
			}

			// Rollback through Helm's action over the store's own driver.
			plan, err := planByName(t.Context(), c, ns, "web", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := ops.NewRunner(c).Apply(t.Context(), plan); err != nil {
				t.Fatal(err)
			}
			v4, err := hd.Get("sh.helm.release.v1.web.v4")
			if err != nil {
				t.Fatalf("Helm's own driver cannot read the rollback's revision: %v", err)
			}
			if v4.Info.Status != release.StatusDeployed || v4.Chart.Metadata.Version != "1.0.0" {
				t.Fatalf("revision 4 = %s %s, want deployed 1.0.0", v4.Info.Status, v4.Chart.Metadata.Version)
			}
			if v3, err := hd.Get("sh.helm.release.v1.web.v3"); err != nil || v3.Info.Status != release.StatusSuperseded {
				t.Fatalf("revision 3 after rollback: %v, %v", v3.Info.Status, err)
			}
			// Never converted: no chunked index of web appeared.
			idx, err := secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "type=index,name=web"})
			if err != nil || len(idx.Items) != 0 {
				t.Fatalf("chunked index Secrets of web: %d, %v", len(idx.Items), err)
			}

			// A plan the release moved on from is refused, and the other
			// writer's revision is left alone.
			up, err := planByName(t.Context(), c, ns, "web", uninstallPlan(false))
			if err != nil {
				t.Fatal(err)
			}
			helmUpgrade(t, cfg, ns, "web", "1.3.0", webappValues("web", 3, 2000))
			err = ops.NewRunner(c).Apply(t.Context(), up)
			mustErrIs(t, err, kube.ErrChanged)
			if v5, err := hd.Get("sh.helm.release.v1.web.v5"); err != nil || v5.Info.Status != release.StatusDeployed {
				t.Fatalf("the other writer's revision 5 after a refused uninstall: %v", err)
			}

			up, err = planByName(t.Context(), c, ns, "web", uninstallPlan(false))
			if err != nil {
				t.Fatal(err)
			}
			if err := ops.NewRunner(c).Apply(t.Context(), up); err != nil {
				t.Fatal(err)
			}
			if _, err := hd.Query(map[string]string{"name": "web", "owner": "helm"}); !errors.Is(err, driver.ErrReleaseNotFound) {
				t.Fatalf("records of web after uninstall: %v", err)
			}
			if d := configMapData(t, ns, "web-config"); d != nil {
				t.Fatalf("web's ConfigMap survived the uninstall: %v", d)
			}
		})
	}
}

// TestHelmStoresSameName shows a name held by two stores as two rows, and makes a
// command by that name ask which store.
func TestHelmStoresSameName(t *testing.T) {
	ns := "helmstore-dup"
	ensureNamespace(t, cluster.Client, ns)
	kc := adminKubeconfig(t, ns)
	seed(t, helmDriverFor(kube.DriverSecret, ns), history("dup", ns, 2, 0)...)
	seed(t, helmDriverFor(kube.DriverConfigMap, ns), history("dup", ns, 1, 0)...)
	c := connect(t, kc, []string{"-n", ns}, nil)
	rows, err := c.Releases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Latest.Driver != kube.DriverSecret || rows[1].Latest.Driver != kube.DriverConfigMap || rows[0].Revisions != 2 || rows[1].Revisions != 1 {
		t.Fatalf("rows = %+v, want dup twice: 2 revisions in secret, 1 in configmap", rows)
	}
	_, err = c.History(t.Context(), ns, "dup")
	msg := mustErrIs(t, err, kube.ErrAmbiguous)
	mustContain(t, msg, "secret and configmap", "--driver")
	hist, err := c.WithDrivers(kube.DriverConfigMap).History(t.Context(), ns, "dup")
	if err != nil || len(hist) != 1 || hist[0].Driver != kube.DriverConfigMap {
		t.Fatalf("configmap history = %+v, %v", hist, err)
	}
	only := connect(t, kc, []string{"-n", ns, "--driver", "secret"}, nil)
	rows, err = only.Releases(t.Context())
	if err != nil || len(rows) != 1 || rows[0].Latest.Driver != kube.DriverSecret {
		t.Fatalf("--driver secret rows = %+v, %v", rows, err)
	}
	env := connect(t, kc, []string{"-n", ns}, func(o *kube.Options) { o.HelmDriver = "configmaps" })
	rows, err = env.Releases(t.Context())
	if err != nil || len(rows) != 1 || rows[0].Latest.Driver != kube.DriverConfigMap {
		t.Fatalf("HELM_DRIVER=configmaps rows = %+v, %v", rows, err)
	}
}

// TestNearLimitHelmSecret grows a Helm Secrets release towards the 1 MiB limit and
// checks the forecast against the API server: the revision it names is the first
// one the server refuses.
func TestNearLimitHelmSecret(t *testing.T) {
	ns := "helmstore-near"
	ensureNamespace(t, cluster.Client, ns)
	hd := helmDriverFor(kube.DriverSecret, ns)
	// Each revision carries 40 KB more of poorly compressible data: its record
	// grows by about 40 KB of base64 a revision.
	blob := func(rev int) int { return 720_000 + 40_000*rev }
	var rels []*release.Release
	for rev := 1; rev <= 4; rev++ {
		st := release.StatusSuperseded
		if rev == 4 {
			st = release.StatusDeployed
		}
		rels = append(rels, makeRelease("big", ns, rev, st, blob(rev)))
	}
	seed(t, hd, rels...)
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns}, nil)
	hist, err := c.History(t.Context(), ns, "big")
	if err != nil {
		t.Fatal(err)
	}
	g := fit.ForecastRows(hist)
	if !g.Warn() || g.FailsAt <= 4 || g.PerRevision < 30_000 {
		t.Fatalf("forecast = %+v, want a warning about a revision after 4", g)
	}
	latest := hist[len(hist)-1]
	if f := latest.Fill(); f < 0.7 || f > 0.95 {
		t.Fatalf("fill of revision 4 = %.2f", f)
	}
	mustContain(t, g.Advice(kube.DriverSecret), "does not help", "chunked")
	// Store the revisions that follow, as upgrades would, until the server refuses.
	for rev := 5; rev <= g.FailsAt; rev++ {
		err := hd.Create(storage.RecordKey("big", rev), makeRelease("big", ns, rev, release.StatusDeployed, blob(rev)))
		switch {
		case rev < g.FailsAt && err != nil:
			t.Fatalf("revision %d, before the forecast %d, was refused: %v", rev, g.FailsAt, err)
		case rev == g.FailsAt && err == nil:
			t.Fatalf("revision %d, the forecast, was stored", rev)
		case rev == g.FailsAt && !apierrors.IsInvalid(errors.Unwrap(err)) && !strings.Contains(err.Error(), "Too long"):
			t.Fatalf("revision %d refused for another reason: %v", rev, err)
		}
	}
	t.Logf("forecast: revision %d (%.0f B a revision); the server refused it", g.FailsAt, g.PerRevision)
}

// TestHelmStoreFixStuck gets a Helm ConfigMaps release out of pending-upgrade both
// ways, through Helm's own driver held to the plan: marking the revision failed
// rewrites it in place, deleting it removes its ConfigMap; a plan another writer
// moved on from is refused.
func TestHelmStoreFixStuck(t *testing.T) {
	ctx := t.Context()
	ns := "helmstore-stuck"
	ensureNamespace(t, cluster.Client, ns)
	hd := helmDriverFor(kube.DriverConfigMap, ns)
	rels := history("stuck", ns, 2, 0)
	// Revision 3 has been pending since baseTime: long stuck.
	rels = append(rels, makeRelease("stuck", ns, 3, release.StatusPendingUpgrade, 0))
	seed(t, hd, rels...)
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns}, nil)

	sp, err := planByName(ctx, c, ns, "stuck", fixStuckPlan(ops.FixMarkFailed))
	if err != nil || sp.Stuck == nil || sp.Stuck.Row.Driver != kube.DriverConfigMap {
		t.Fatalf("plan: %+v, %v", sp, err)
	}
	// Another writer finishes the upgrade first: the fix is refused.
	v3, err := hd.Get(storage.RecordKey("stuck", 3))
	if err != nil {
		t.Fatal(err)
	}
	v3.Info.Status = release.StatusDeployed
	if err := hd.Update(storage.RecordKey("stuck", 3), v3); err != nil {
		t.Fatal(err)
	}
	mustErrIs(t, ops.NewRunner(c).Apply(ctx, sp), kube.ErrChanged)
	if got, _ := hd.Get(storage.RecordKey("stuck", 3)); got.Info.Status != release.StatusDeployed {
		t.Fatalf("the other writer's revision 3 is %s", got.Info.Status)
	}

	v3.Info.Status = release.StatusPendingUpgrade
	if err := hd.Update(storage.RecordKey("stuck", 3), v3); err != nil {
		t.Fatal(err)
	}
	if _, err := applyByName(ctx, c, ns, "stuck", fixStuckPlan(ops.FixMarkFailed)); err != nil {
		t.Fatal(err)
	}
	if got, err := hd.Get(storage.RecordKey("stuck", 3)); err != nil || got.Info.Status != release.StatusFailed {
		t.Fatalf("revision 3 after mark-failed: %v, %v", got.Info.Status, err)
	}

	rels4 := makeRelease("stuck", ns, 4, release.StatusPendingRollback, 0)
	seed(t, hd, rels4)
	if _, err := applyByName(ctx, c, ns, "stuck", fixStuckPlan(ops.FixDeletePending)); err != nil {
		t.Fatal(err)
	}
	if _, err := hd.Get(storage.RecordKey("stuck", 4)); !errors.Is(err, driver.ErrReleaseNotFound) {
		t.Fatalf("revision 4 after delete-pending: %v", err)
	}
	if _, err := hd.Get(storage.RecordKey("stuck", 3)); err != nil {
		t.Fatalf("revision 3 after delete-pending of 4: %v", err)
	}
}

// TestRollbackListsPerStore counts how often a rollback by name, as the CLI runs
// it (find the release by name, narrow to its store, plan, apply), lists the
// release's records, for a release of each store.
func TestRollbackListsPerStore(t *testing.T) {
	ctx := t.Context()
	ns := "helmstore-lists"
	ensureNamespace(t, cluster.Client, ns)
	seed(t, chunkviewDriver(ns, "helm", 4096), history("rb-chunked", ns, 3, 10_000)...)
	seed(t, helmDriverFor(kube.DriverSecret, ns), history("rb-secret", ns, 3, 10_000)...)
	seed(t, helmDriverFor(kube.DriverConfigMap, ns), history("rb-cfgmap", ns, 3, 10_000)...)
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns}, func(o *kube.Options) { o.WrapConfig = wire.install })
	for _, name := range []string{"rb-chunked", "rb-secret", "rb-cfgmap"} {
		wire.Reset()
		rows, err := c.ReleasesNamed(ctx, name)
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %+v, %v", name, rows, err)
		}
		one := c.WithDrivers(rows[0].Latest.Driver)
		plan, err := planByName(ctx, one, ns, name, rollbackPlan(1, kube.DiffOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := ops.NewRunner(one).Apply(ctx, plan); err != nil {
			t.Fatal(err)
		}
		lists, gets := 0, 0
		for _, r := range wire.Requests() {
			if r.Method != "GET" || !strings.Contains(r.Query, "name%3D"+name) && !strings.Contains(r.Path, name) {
				continue
			}
			if strings.Contains(r.Query, "labelSelector") {
				lists++
			} else {
				gets++
			}
		}
		t.Logf("%s: %d lists and %d gets of its records, %d requests in all", name, lists, gets, len(wire.Requests()))
		// Find (one metadata list per store: 3), plan (one), the check
		// (metadata), Helm's own queries (two or three), the look for older
		// deployed revisions (metadata).
		if lists > 9 {
			t.Errorf("%s: %d lists of its records: %v", name, lists, wire.Requests())
		}
	}
}
