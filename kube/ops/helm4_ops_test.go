package ops_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	common4 "helm.sh/helm/v4/pkg/release/common"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// helm4Release installs release name with Helm 4's actions (server-side apply)
// and upgrades it twice, in namespace ns and the store st: three revisions, the
// last deployed.
func helm4Release(t *testing.T, ns, name string, st helm4Store) {
	t.Helper()
	var d driver4.Driver
	if st.driver != nil {
		d = st.driver(ns)
	}
	cfg := config4(t, adminKubeconfig(t, ns), ns, st.store, d)
	install4(t, cfg, ns, name, values4(name, 0))
	upgrade4(t, cfg, ns, name, "1.1.0", values4(name, 1))
	upgrade4(t, cfg, ns, name, "1.2.0", values4(name, 2))
}

// helm4Store is one row of helm4Stores.
type helm4Store = struct {
	store  string
	driver func(ns string) driver4.Driver
	reader func(ns string) driver4.Driver
}

// TestHelm4Operations: on releases Helm 4's actions wrote, in every store,
// uninstall, delete-revision and both fixes of a stuck release run through Helm 4
// and keep every field of what they leave; a stale plan, a release that moves on
// while Helm runs, and --read-only are refused, changing nothing.
func TestHelm4Operations(t *testing.T) {
	for _, st := range helm4Stores {
		t.Run(st.store, func(t *testing.T) {
			ctx := t.Context()
			ns := cluster.Namespace(t)
			args := []string{"-n", ns, "--driver", st.store, "--chunk-size", "1024"}
			helm4Release(t, ns, "four", st)
			read := st.reader(ns)
			c := connect(t, adminKubeconfig(t, ns), args, nil)

			// A stale plan: Helm 4 upgrades the release after the plan.
			stale, err := planByName(ctx, c, ns, "four", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil || stale.Major != 4 {
				t.Fatalf("rollback plan: %+v, %v", stale, err)
			}
			var d driver4.Driver
			if st.driver != nil {
				d = st.driver(ns)
			}
			upgrade4(t, config4(t, adminKubeconfig(t, ns), ns, st.store, d), ns, "four", "1.3.0", values4("four", 3))
			before := snapshot(t, ns)
			err = ops.NewRunner(c).Apply(ctx, stale)
			mustContain(t, mustErrIs(t, err, kube.ErrChanged), "revision 4 (deployed) was added", "Nothing was changed")
			mustSame(t, before, snapshot(t, ns))

			// The release moves on while Helm runs: another writer (Helm 4's own
			// driver) marks the latest revision failed after the plan's check,
			// before Helm's rollback reads the history.
			tr := &trigger{match: func(r *http.Request) bool {
				return r.Method == http.MethodGet && strings.Contains(r.URL.RawQuery, "labelSelector") &&
					!strings.Contains(r.Header.Get("Accept"), "PartialObjectMetadata") &&
					(strings.HasSuffix(r.URL.Path, "/secrets") || strings.HasSuffix(r.URL.Path, "/configmaps"))
			}}
			hooked := connect(t, adminKubeconfig(t, ns), args, func(o *kube.Options) { o.WrapConfig = tr.wrap })
			plan, err := planByName(ctx, hooked, ns, "four", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			fired := false
			tr.arm(func() {
				r := record4(t, read, "four", 4)
				r.Info.Status, r.Info.Description = common4.StatusFailed, "another writer"
				if err := read.Update(storage.RecordKey("four", 4), r); err != nil {
					t.Error(err)
				}
				fired = true
			})
			before = snapshot(t, ns)
			err = ops.NewRunner(hooked).Apply(ctx, plan)
			if !fired {
				t.Fatal("the other writer's change never ran: no list of the records reached the server after the check")
			}
			mustContain(t, mustErrIs(t, err, kube.ErrChanged), "Nothing was changed")
			after := snapshot(t, ns)
			changed := 0
			for k, v := range before {
				if after[k] != v {
					changed++
				}
			}
			if changed != 1 || len(after) != len(before) {
				t.Errorf("%d objects changed and %d were added, want only the other writer's record changed", changed, len(after)-len(before))
			}
			if got := record4(t, read, "four", 4); got.Info.Status != common4.StatusFailed || got.Info.Description != "another writer" {
				t.Errorf("the other writer's revision 4 is %s (%q)", got.Info.Status, got.Info.Description)
			}

			// Read-only: refused before anything is sent.
			ro := connect(t, adminKubeconfig(t, ns), append(args, "--read-only"), nil)
			plan, err = planByName(ctx, ro, ns, "four", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			err = ops.NewRunner(ro).Apply(ctx, plan)
			mustErrIs(t, err, kube.ErrReadOnly)
			mustSame(t, after, snapshot(t, ns))

			// fix-stuck on a Helm 4 revision left pending: marked failed, its
			// Helm 4 fields kept.
			r := record4(t, read, "four", 4)
			r.Info.Status, r.Info.LastDeployed = common4.StatusPendingUpgrade, time.Now().Add(-time.Hour)
			if err := read.Update(storage.RecordKey("four", 4), r); err != nil {
				t.Fatal(err)
			}
			fs, err := planByName(ctx, c, ns, "four", fixStuckPlan(ops.FixMarkFailed))
			if err != nil || fs.Stuck == nil || fs.Major != 4 || fs.Stuck.InProgress {
				t.Fatalf("fix-stuck plan: %+v, %v", fs, err)
			}
			if err := ops.NewRunner(c).Apply(ctx, fs); err != nil {
				t.Fatal(err)
			}
			got := record4(t, read, "four", 4)
			if got.Info.Status != common4.StatusFailed || got.ApplyMethod != "ssa" || got.Chart.Metadata.Version != "1.3.0" || !strings.HasPrefix(got.Info.Description, "Marked failed by chunkview") {
				t.Errorf("revision 4 after mark-failed: %s %q, apply method %q, chart %s", got.Info.Status, got.Info.Description, got.ApplyMethod, got.Chart.Metadata.Version)
			}
			if diff := diffFields(fieldsBut(t, r, "info"), fieldsBut(t, got, "info")); len(diff) > 0 {
				t.Errorf("mark-failed changed more than the revision's info:\n  %s", strings.Join(diff, "\n  "))
			}

			// delete-revision through Helm 4's driver: the record goes, the others
			// stay as they were.
			if _, err := applyByName(ctx, c, ns, "four", deleteRevisionPlan(1, false)); err != nil {
				t.Fatal(err)
			}
			if _, err := read.Get(storage.RecordKey("four", 1)); err != driver4.ErrReleaseNotFound {
				t.Errorf("revision 1 after its deletion: %v", err)
			}

			// uninstall --keep-history, then uninstall: through Helm 4, whose
			// uninstalled record keeps its fields.
			up, err := planByName(ctx, c, ns, "four", uninstallPlan(true))
			if err != nil || up.Major != 4 {
				t.Fatalf("uninstall plan: %+v, %v", up, err)
			}
			if err := ops.NewRunner(c).Apply(ctx, up); err != nil {
				t.Fatal(err)
			}
			if got := record4(t, read, "four", 4); got.Info.Status != common4.StatusUninstalled || got.ApplyMethod != "ssa" || got.Info.Deleted.IsZero() {
				t.Errorf("revision 4 after uninstall --keep-history: %s, apply method %q, deleted %v", got.Info.Status, got.ApplyMethod, got.Info.Deleted)
			}
			if _, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(ctx, "four-config", metav1.GetOptions{}); err == nil {
				t.Error("four-config is still there after the uninstall")
			}
			if _, err := applyByName(ctx, c, ns, "four", uninstallPlan(false)); err != nil {
				t.Fatal(err)
			}
			if rls, err := read.Query(map[string]string{"name": "four", "owner": "helm"}); err != driver4.ErrReleaseNotFound {
				t.Errorf("records after the uninstall: %d, %v", len(rls), err)
			}
		})
	}
}

// mustSame fails unless two snapshots are equal.
func mustSame(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("a refused operation changed the namespace: %d objects, then %d", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("a refused operation changed %s", k)
		}
	}
}

// fieldsBut returns a record's fields without the top-level field drop.
func fieldsBut(t *testing.T, v any, drop string) map[string]any {
	t.Helper()
	f := recordFields(t, v)
	delete(f, drop)
	return f
}
