package releases

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// The tests below drive the list as the root sizes it: the terminal less the
// header, status line and help line (3 lines); 120x37 is a 120x40 terminal.

// openOn is the release list of client at w x h.
func openOn(t *testing.T, client *kube.Client, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	s := New(screentest.Common(client))
	return s, screentest.New(t, s, w, h)
}

func TestReleasesDropsStaleAnswers(t *testing.T) {
	f := screentest.NewFixture(t)
	s := New(screentest.Common(f.Client))
	s.SetSize(120, 37)
	s.Init() // gen 1
	s.reload()
	rows := []kube.ReleaseRow{{Latest: kube.RevisionRow{StorageNamespace: "default", Name: "late", Key: storage.RecordKey("late", 1), Revision: 1}}}

	s.Update(LoadedMsg{View: "default", Gen: 1, Rows: rows})
	if s.loaded || len(s.Items) != 0 {
		t.Fatalf("an answer to an earlier load was kept: %d rows", len(s.Items))
	}
	s.Update(LoadedMsg{View: "shop", Gen: 2, Rows: rows})
	if s.loaded {
		t.Fatal("an answer for another namespace was kept")
	}
	s.Update(LoadedMsg{View: "default", Gen: 2, Rows: rows})
	if !s.loaded || len(s.Items) != 1 {
		t.Fatalf("the current answer was dropped")
	}
	// Details of a record that changed since (another resourceVersion) are dropped.
	s.Update(rowcheck.RowDetailsMsg{Ns: "default", Key: storage.RecordKey("late", 1), Rv: "999", Row: kube.RevisionRow{Broken: true}})
	if s.Items[0].Row.Latest.Broken {
		t.Fatal("details of another resourceVersion were applied")
	}
}

func TestReleasesFillAndMarkBroken(t *testing.T) {
	s, h := open(t, 120, 37)
	byName := map[string]ReleaseItem{}
	for _, it := range s.Items {
		byName[it.Row.Latest.Name] = it
	}
	if l := byName["legacy"].Row.Latest; !l.Broken || !strings.HasPrefix(l.Problem, "1 of 3 chunks missing: chunk 3 of 3") {
		t.Errorf("legacy (a chunk deleted) is not marked broken: %+v", l)
	}
	if l := byName["old-tool"].Row.Latest; !l.Known || l.Summary.Chart != "old-tool" {
		t.Errorf("old-tool (no annotations) was not decoded: %+v", l)
	}
	if l := byName["web"].Row.Latest; l.Broken {
		t.Errorf("web is marked broken: %s", l.Problem)
	}
	h.Contains("✗ BROKEN", "old-tool-0.1.1")
}

func TestReleasesRowErrorMarksOnlyThatRow(t *testing.T) {
	s, h := open(t, 120, 37)
	var web kube.RevisionRow
	for _, it := range s.Items {
		if it.Row.Latest.Name == "web" {
			web = it.Row.Latest
		}
	}
	err := kube.Explain(errors.New("boom"), "get", "secrets", "default")
	h.Send(rowcheck.RowDetailsMsg{Ns: web.StorageNamespace, Key: web.Key, Rv: web.ResourceVersion, Err: err})
	h.Contains("! deployed", "✓ deployed") // web marked, old-tool untouched
	h.Press("down", "down").Contains("✗ Error: boom")
}

// TestMatchReleasesKeepsOrder: the filter keeps the list's order, for a substring
// and for a fuzzy match alike, and matches a substring on the name only.
func TestMatchReleasesKeepsOrder(t *testing.T) {
	items := []ReleaseItem{}
	for _, n := range []string{"ledger", "led-sign", "fraud-model", "payments-api", "old-led"} {
		items = append(items, ReleaseItem{Row: kube.ReleaseRow{Latest: kube.RevisionRow{Name: n, StorageNamespace: "led", Status: "deployed"}}})
	}
	cases := []struct {
		q    string
		want []int
	}{
		{"", []int{0, 1, 2, 3, 4}},
		{"led", []int{0, 1, 4}},
		{"LED", []int{0, 1, 4}},
		{"del", []int{2}},
		{"~", []int{0, 1, 2, 3, 4}},
		{"~frmd", []int{2}},
		{"~pa", []int{3}},
	}
	for _, c := range cases {
		if got := matchReleases(items, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
}

func TestReleasesVerifyFindsCorruptChunk(t *testing.T) {
	f := screentest.NewFixture(t)
	_, h := openOn(t, f.Client.WithNamespace("shop", false), 120, 37)
	// The chunk check reads metadata only: a damaged chunk is still there.
	h.Press("down").Contains("cache").Lacks("BROKEN")
	h.Press("V").Contains("✗ BROKEN", "cache revision 1 cannot be read: corrupt release record")
}

// TestPendingInProgressIsNotStuck: a revision pending for less than the stuck
// threshold (here 4h, worker's has been pending 3h) is an operation in progress:
// the list says so and does not offer the fixes yet (the history's side is
// ui/screens/history's test of the same name).
func TestPendingInProgressIsNotStuck(t *testing.T) {
	f := screentest.NewFixture(t)
	cfg := screentest.Config()
	cfg.StuckAfter = 4 * time.Hour
	client := kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
	_, h := openOn(t, client, 120, 37)
	h.Press("G").Contains("worker has been pending-upgrade for 3h: an operation is in progress", "stuck after 4h").Lacks("F to fix")

	// With the default threshold (5 minutes), the same revision is stuck.
	_, h = openOn(t, f.Client, 120, 37)
	h.Press("G").Contains("if no Helm operation is running, it is stuck", "F to fix")
}

// TestStorageNamespaceGivesWayToNames: in the demo, one release keeps its records
// outside its namespace, so the list shows STORAGE NS; the rows that keep them in
// their own show "·", and the column takes no spare room: at 120 columns every
// release's name is shown whole.
func TestStorageNamespaceGivesWayToNames(t *testing.T) {
	_, client := screentest.DemoClient(t, nil)
	_, h := openOn(t, client, 120, 37)
	h.Contains("STORAGE NS", "grafana-dashboards", "ingress-nginx", "payments-api", "web-frontend")
	var same, apart int
	for _, line := range strings.Split(h.View(), "\n") {
		f := strings.Fields(strings.TrimLeft(line, "▶ "))
		if len(f) < 3 {
			continue
		}
		switch {
		case f[1] == "·":
			same++
		case f[0] == "monitoring" && f[1] == "demo":
			apart++
		}
	}
	if same < 8 || apart != 1 {
		t.Errorf("STORAGE NS: %d rows with \"·\", %d kept apart; want 8 and grafana-dashboards's:\n%s", same, apart, h.View())
	}
}

// TestNamesWholeOnlyAtTheDetailLinesCost: over every namespace, at 80 columns
// NAMESPACE stays (names may be cut) since showing the names whole would cost it;
// at 160 the names are whole and NAMESPACE too.
func TestNamesWholeOnlyAtTheDetailLinesCost(t *testing.T) {
	_, client := screentest.DemoClient(t, nil)
	_, h := openOn(t, client, 80, 21)
	h.Contains("NAMESPACE", "monitori… ")
	h.Resize(160, 42)
	h.Contains("NAMESPACE", "monitoring", "grafana-dashboards")
}

// TestStorageNamespaceColumnOnlyWhenApart: the list shows STORAGE NS only when a
// release keeps its records outside its own namespace; the bar is the first
// column to go, NAME never.
func TestStorageNamespaceColumnOnlyWhenApart(t *testing.T) {
	item := func(name, ns, storageNS string) ReleaseItem {
		return ReleaseItem{Row: kube.ReleaseRow{Latest: kube.RevisionRow{Name: name, StorageNamespace: storageNS, Known: true, Summary: storage.Summary{Namespace: ns}}}}
	}
	titles := func(cols []table.Column) string {
		var out []string
		for _, c := range cols {
			out = append(out, c.Title)
		}
		return strings.Join(out, ",")
	}
	beside := []ReleaseItem{item("a", "demo", "demo"), item("b", "payments", "payments")}
	apart := append(beside, item("c", "monitoring", "demo"))
	if got := titles(columnsFor(beside, false)); strings.Contains(got, "STORAGE NS") {
		t.Errorf("records beside their releases: %s", got)
	}
	if got := titles(columnsFor(apart, false)); !strings.HasPrefix(got, "NAMESPACE,STORAGE NS,NAME") {
		t.Errorf("records apart: %s", got)
	}
	for w := 160; w >= 40; w-- {
		got := titles(table.FitColumns(columnsFor(apart, true), w))
		if !strings.Contains(got, "NAME") {
			t.Fatalf("at %d, NAME dropped: %s", w, got)
		}
		if strings.Contains(got, "LARGEST") && !strings.Contains(got, "APP") {
			t.Errorf("at %d, the bar outlived the app version: %s", w, got)
		}
	}
}
