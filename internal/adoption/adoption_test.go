package adoption_test

import (
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/adoption"
)

// TestReleaseLifeThroughActionClient runs a release's whole life through
// helm-operator-plugins' own ActionClientGetter with chunkview's driver in place of
// its own, as OLMv1 wires it: install, the steady-state reconcile (History, Get,
// server dry-run Upgrade), upgrade, rollback, uninstall. After each write,
// helm-operator-plugins' driver reads back what chunkview wrote, and every index
// Secret carries the ClusterExtension's controller reference. The same life with
// helm-operator-plugins' own driver is the reference: it holds to the same
// assertions, and its requests are logged beside chunkview's.
func TestReleaseLifeThroughActionClient(t *testing.T) {
	for _, d := range drivers() {
		t.Run(d.label, func(t *testing.T) { releaseLife(t, d.short, d.newDriver) })
	}
}

// testDriver is a driver the tests run the operator with.
type testDriver struct {
	label, short string
	newDriver    adoption.NewDriver
}

// drivers are helm-operator-plugins' driver, the reference, and chunkview's.
func drivers() []testDriver {
	return []testDriver{
		{"helm-operator-plugins", "orig", adoption.Original(adoption.Owner, testConfig)},
		{"chunkview", "cv", adoption.Chunkview(adoption.Owner, testConfig)},
	}
}

func releaseLife(t *testing.T, short string, newDriver adoption.NewDriver) {
	e := newEnv(t)
	defer e.logSteps()
	ext := e.extension("life-" + short)
	name := ext.GetName()
	acg := e.getter(newDriver, e.live)
	ch := testChart()
	blue, green := map[string]interface{}{"color": "blue"}, map[string]interface{}{"color": "green"}

	e.step("install", func() {
		ac, err := acg.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := ac.Install(name, e.install, ch, blue)
		if err != nil {
			t.Fatalf("install: %v", err)
		}
		if rel.Version != 1 || rel.Info.Status != release.StatusDeployed {
			t.Fatalf("install: revision %d %s, want 1 deployed", rel.Version, rel.Info.Status)
		}
	})
	if cm := e.configMap(name); cm == nil || cm.Data["color"] != "blue" {
		t.Fatalf("install: the chart's ConfigMap is %v, want color blue", cm)
	}
	recs := e.sameRecords(name, 1)
	if c := e.ownedIndexes(ext); c != 1 {
		t.Fatalf("install: %d index Secrets, want 1", c)
	}
	if n := chunksOf(t, e, recs[0]); n < 2 {
		t.Fatalf("the test release stores in %d chunks; it should need several, or no read fetches a chunk", n)
	}

	steady := e.step("steady-state reconcile, live reads", func() {
		o, err := adoption.Reconcile(t.Context(), acg, ext, e.install, ch, blue)
		if err != nil {
			t.Fatal(err)
		}
		checkSteady(t, o, 1)
	})
	if steady.secretWrts != 0 || steady.secrets == 0 {
		t.Fatalf("steady-state reconcile: %d Secret requests, %d of them writes; want reads only, live", steady.secrets, steady.secretWrts)
	}

	e.step("upgrade", func() {
		ac, err := acg.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := ac.Upgrade(name, e.install, ch, green, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil })
		if err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		if rel.Version != 2 || rel.Info.Status != release.StatusDeployed {
			t.Fatalf("upgrade: revision %d %s, want 2 deployed", rel.Version, rel.Info.Status)
		}
	})
	if cm := e.configMap(name); cm == nil || cm.Data["color"] != "green" {
		t.Fatalf("upgrade: the chart's ConfigMap is %v, want color green", cm)
	}
	recs = e.sameRecords(name, 2)
	wantStatuses(t, recs, release.StatusDeployed, release.StatusSuperseded)
	if c := e.ownedIndexes(ext); c != 2 {
		t.Fatalf("upgrade: %d index Secrets, want 2", c)
	}

	e.step("rollback to revision 1", func() {
		ac, err := acg.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		rb := action.NewRollback(ac.Config())
		rb.Version, rb.MaxHistory = 1, adoption.MaxHistory
		if err := rb.Run(name); err != nil {
			t.Fatalf("rollback: %v", err)
		}
	})
	if cm := e.configMap(name); cm == nil || cm.Data["color"] != "blue" {
		t.Fatalf("rollback: the chart's ConfigMap is %v, want color blue again", cm)
	}
	recs = e.sameRecords(name, 3)
	wantStatuses(t, recs, release.StatusDeployed, release.StatusSuperseded, release.StatusSuperseded)
	if recs[0].Config["color"] != "blue" {
		t.Fatalf("rollback: revision 3 has values %v, want revision 1's", recs[0].Config)
	}
	if c := e.ownedIndexes(ext); c != 3 {
		t.Fatalf("rollback: %d index Secrets, want 3", c)
	}

	e.step("uninstall", func() {
		ac, err := acg.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ac.Uninstall(name)
		if err != nil {
			t.Fatalf("uninstall: %v", err)
		}
		if res.Release == nil || res.Release.Info.Status != release.StatusUninstalled {
			t.Fatalf("uninstall: %+v, want the release uninstalled", res.Release)
		}
	})
	if cm := e.configMap(name); cm != nil {
		t.Fatalf("uninstall left the chart's ConfigMap")
	}
	e.noRecords(name)
	left, err := e.cs.CoreV1().Secrets(e.system).List(t.Context(), ownerSelector())
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 0 {
		t.Fatalf("uninstall left %d Secrets of the owner, first %s", len(left.Items), left.Items[0].Name)
	}
}

// TestAdoptRecordsTheOriginalWrote adopts chunkview over records helm-operator-plugins'
// driver wrote (an install and an upgrade, as OLMv1 does today): chunkview's
// reconcile reads them as the original does, and its upgrade on top is read back
// by the original.
func TestAdoptRecordsTheOriginalWrote(t *testing.T) {
	e := newEnv(t)
	defer e.logSteps()
	ext := e.extension("adopted")
	name := ext.GetName()
	orig := e.getter(adoption.Original(adoption.Owner, testConfig), e.live)
	cv := e.getter(adoption.Chunkview(adoption.Owner, testConfig), e.live)
	ch := testChart()
	blue, green := map[string]interface{}{"color": "blue"}, map[string]interface{}{"color": "green"}

	e.step("install and upgrade (helm-operator-plugins' driver)", func() {
		ac, err := orig.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ac.Install(name, e.install, ch, blue); err != nil {
			t.Fatalf("install: %v", err)
		}
		if _, err := ac.Upgrade(name, e.install, ch, green, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil }); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
	})
	written := e.sameRecords(name, 2)

	e.step("steady-state reconcile (chunkview over the original's records)", func() {
		o, err := adoption.Reconcile(t.Context(), cv, ext, e.install, ch, green)
		if err != nil {
			t.Fatal(err)
		}
		checkSteady(t, o, 2)
		for i := range written {
			if a, b := releaseJSON(t, o.History[i]), releaseJSON(t, written[i]); a != b {
				t.Fatalf("History through chunkview's driver, revision %d, differs from what the original wrote:\n%.300s\n%.300s", written[i].Version, a, b)
			}
		}
	})

	e.step("upgrade (chunkview, over the original's records)", func() {
		ac, err := cv.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := ac.Upgrade(name, e.install, ch, blue, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil })
		if err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		if rel.Version != 3 {
			t.Fatalf("upgrade: revision %d, want 3", rel.Version)
		}
	})
	recs := e.sameRecords(name, 3)
	wantStatuses(t, recs, release.StatusDeployed, release.StatusSuperseded, release.StatusSuperseded)
	if c := e.ownedIndexes(ext); c != 3 {
		t.Fatalf("%d index Secrets, want 3", c)
	}
}

// checkSteady asserts what a steady-state reconcile of a release at revision rev
// reads and would write: its whole history, the current revision, and a dry run
// that would write the next revision with nothing to change.
func checkSteady(t *testing.T, o adoption.Observed, rev int) {
	t.Helper()
	if len(o.History) != rev || o.History[0].Version != rev {
		t.Fatalf("History: %d revisions, want %d, newest first", len(o.History), rev)
	}
	if o.Current.Version != rev || o.Current.Info.Status != release.StatusDeployed {
		t.Fatalf("Get: revision %d %s, want %d deployed", o.Current.Version, o.Current.Info.Status, rev)
	}
	if o.Desired.Version != rev+1 || o.Desired.Manifest != o.Current.Manifest {
		t.Fatalf("dry-run Upgrade: revision %d, manifest unchanged %v; want %d, unchanged", o.Desired.Version, o.Desired.Manifest == o.Current.Manifest, rev+1)
	}
}

// wantStatuses asserts the statuses of records, newest first.
func wantStatuses(t *testing.T, recs []*release.Release, want ...release.Status) {
	t.Helper()
	for i, r := range recs {
		if r.Info.Status != want[i] {
			t.Fatalf("revision %d is %s, want %s", r.Version, r.Info.Status, want[i])
		}
	}
}
