package adoption_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	helmclient "github.com/operator-framework/helm-operator-plugins/pkg/client"

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
	l := &life{e: e, t: t, ext: ext, name: ext.GetName(), acg: e.getter(newDriver, e.live), ch: testChart()}
	l.install()
	l.steady()
	l.upgrade()
	l.rollback()
	l.uninstall()
}

var (
	blue  = map[string]interface{}{"color": "blue"}
	green = map[string]interface{}{"color": "green"}
)

// life is one release's life through an operator's action clients.
type life struct {
	e    *env
	t    *testing.T
	ext  *unstructured.Unstructured
	name string
	acg  helmclient.ActionClientGetter
	ch   *chart.Chart
}

// client is an action client for the release's ClusterExtension, as the
// operator gets one per step.
func (l *life) client() helmclient.ActionInterface {
	l.t.Helper()
	ac, err := l.acg.ActionClientFor(l.t.Context(), l.ext)
	if err != nil {
		l.t.Fatal(err)
	}
	return ac
}

// settings asserts the color of the chart's ConfigMap in the cluster.
func (l *life) settings(step, color string) {
	l.t.Helper()
	if cm := l.e.configMap(l.name); cm == nil || cm.Data["color"] != color {
		l.t.Fatalf("%s: the chart's ConfigMap is %v, want color %s", step, cm, color)
	}
}

// records asserts the release's records as both drivers read them, newest first,
// and that each index Secret carries the ClusterExtension's controller reference.
func (l *life) records(step string, want ...release.Status) []*release.Release {
	l.t.Helper()
	recs := l.e.sameRecords(l.name, len(want))
	wantStatuses(l.t, recs, want...)
	if c := l.e.ownedIndexes(l.ext); c != len(want) {
		l.t.Fatalf("%s: %d index Secrets, want %d", step, c, len(want))
	}
	return recs
}

func (l *life) install() {
	l.e.step("install", func() {
		rel, err := l.client().Install(l.name, l.e.install, l.ch, blue)
		if err != nil {
			l.t.Fatalf("install: %v", err)
		}
		if rel.Version != 1 || rel.Info.Status != release.StatusDeployed {
			l.t.Fatalf("install: revision %d %s, want 1 deployed", rel.Version, rel.Info.Status)
		}
	})
	l.settings("install", "blue")
	recs := l.records("install", release.StatusDeployed)
	if n := chunksOf(l.t, l.e, recs[0]); n < 2 {
		l.t.Fatalf("the test release stores in %d chunks; it should need several, or no read fetches a chunk", n)
	}
}

func (l *life) steady() {
	s := l.e.step("steady-state reconcile, live reads", func() {
		o, err := adoption.Reconcile(l.t.Context(), l.acg, l.ext, l.e.install, l.ch, blue)
		if err != nil {
			l.t.Fatal(err)
		}
		checkSteady(l.t, o, 1)
	})
	if s.secretWrts != 0 || s.secrets == 0 {
		l.t.Fatalf("steady-state reconcile: %d Secret requests, %d of them writes; want reads only, live", s.secrets, s.secretWrts)
	}
}

func (l *life) upgrade() {
	l.e.step("upgrade", func() {
		rel, err := l.client().Upgrade(l.name, l.e.install, l.ch, green, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil })
		if err != nil {
			l.t.Fatalf("upgrade: %v", err)
		}
		if rel.Version != 2 || rel.Info.Status != release.StatusDeployed {
			l.t.Fatalf("upgrade: revision %d %s, want 2 deployed", rel.Version, rel.Info.Status)
		}
	})
	l.settings("upgrade", "green")
	l.records("upgrade", release.StatusDeployed, release.StatusSuperseded)
}

func (l *life) rollback() {
	l.e.step("rollback to revision 1", func() {
		rb := action.NewRollback(l.client().Config())
		rb.Version, rb.MaxHistory = 1, adoption.MaxHistory
		if err := rb.Run(l.name); err != nil {
			l.t.Fatalf("rollback: %v", err)
		}
	})
	l.settings("rollback", "blue")
	recs := l.records("rollback", release.StatusDeployed, release.StatusSuperseded, release.StatusSuperseded)
	if recs[0].Config["color"] != "blue" {
		l.t.Fatalf("rollback: revision 3 has values %v, want revision 1's", recs[0].Config)
	}
}

func (l *life) uninstall() {
	l.e.step("uninstall", func() {
		res, err := l.client().Uninstall(l.name)
		if err != nil {
			l.t.Fatalf("uninstall: %v", err)
		}
		if res.Release == nil || res.Release.Info.Status != release.StatusUninstalled {
			l.t.Fatalf("uninstall: %+v, want the release uninstalled", res.Release)
		}
	})
	if cm := l.e.configMap(l.name); cm != nil {
		l.t.Fatalf("uninstall left the chart's ConfigMap")
	}
	l.e.noRecords(l.name)
	left, err := l.e.cs.CoreV1().Secrets(l.e.system).List(l.t.Context(), ownerSelector())
	if err != nil {
		l.t.Fatal(err)
	}
	if len(left.Items) != 0 {
		l.t.Fatalf("uninstall left %d Secrets of the owner, first %s", len(left.Items), left.Items[0].Name)
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
