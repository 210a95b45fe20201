package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// testCommon is what screens share, over the fixture's client, for tests that
// drive one screen directly.
func testCommon(f *fixture) common.Common {
	c := newCommon(context.Background(), f.Client, Options{Now: func() time.Time { return testNow }})
	c.SetSize(120, 37)
	return c
}

func TestReleasesDropsStaleAnswers(t *testing.T) {
	f := newFixture(t)
	s := releases.New(testCommon(f))
	s.Init() // gen 1
	s.Reload()
	rows := []kube.ReleaseRow{{Latest: kube.RevisionRow{StorageNamespace: "default", Name: "late", Key: storage.RecordKey("late", 1), Revision: 1}}}

	s.Update(releases.LoadedMsg{View: "default", Gen: 1, Rows: rows})
	if s.Loaded || len(s.Items) != 0 {
		t.Fatalf("an answer to an earlier load was kept: %d rows", len(s.Items))
	}
	s.Update(releases.LoadedMsg{View: "shop", Gen: 2, Rows: rows})
	if s.Loaded {
		t.Fatal("an answer for another namespace was kept")
	}
	s.Update(releases.LoadedMsg{View: "default", Gen: 2, Rows: rows})
	if !s.Loaded || len(s.Items) != 1 {
		t.Fatalf("the current answer was dropped")
	}
	// Details of a record that changed since (another resourceVersion) are dropped.
	s.Update(rowcheck.RowDetailsMsg{Ns: "default", Key: storage.RecordKey("late", 1), Rv: "999", Row: kube.RevisionRow{Broken: true}})
	if s.Items[0].Row.Latest.Broken {
		t.Fatal("details of another resourceVersion were applied")
	}
}

func TestReleasesFillAndMarkBroken(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	rs := h.top().(*releases.Screen)
	byName := map[string]releases.ReleaseItem{}
	for _, it := range rs.Items {
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
	h.contains("✗ BROKEN", "old-tool-0.1.1")
}

func TestReleasesRowErrorMarksOnlyThatRow(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	rs := h.top().(*releases.Screen)
	var web kube.RevisionRow
	for _, it := range rs.Items {
		if it.Row.Latest.Name == "web" {
			web = it.Row.Latest
		}
	}
	err := kube.Explain(errors.New("boom"), "get", "secrets", "default")
	h.send(rowcheck.RowDetailsMsg{Ns: web.StorageNamespace, Key: web.Key, Rv: web.ResourceVersion, Err: err})
	h.contains("! deployed", "✓ deployed") // web marked, old-tool untouched
	h.press("down", "down").contains("✗ Error: boom")
}

func TestReleasesFilter(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	// A substring of the name, any case; a fuzzy match needs ~.
	h.press("/").typeText("wrk").lacks("worker")
	h.press("enter").contains("filter: wrk (0 of 4; esc clears)")
	h.press("esc")
	h.press("/").typeText("~wrk")
	h.contains("worker").lacks("legacy", "old-tool")
	h.press("esc")
	h.press("/").typeText("ORK")
	h.contains("worker").lacks("legacy", "old-tool")
	h.press("enter").contains("filter: ORK (1 of 4; esc clears)")
	// q is a letter while typing, not quit, and the footer does not offer it.
	h.press("/").typeText("q")
	if h.quit {
		t.Fatal("q typed into the filter quit the program")
	}
	h.lacks("q quit").contains("ctrl+c quit")
	h.press("esc").contains("legacy", "web", "worker", "4 releases")
}

// TestMatchReleasesKeepsOrder: the filter keeps the list's order, for a substring
// and for a fuzzy match alike, and matches a substring on the name only.
func TestMatchReleasesKeepsOrder(t *testing.T) {
	items := []releases.ReleaseItem{}
	for _, n := range []string{"ledger", "led-sign", "fraud-model", "payments-api", "old-led"} {
		items = append(items, releases.ReleaseItem{Row: kube.ReleaseRow{Latest: kube.RevisionRow{Name: n, StorageNamespace: "led", Status: "deployed"}}})
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
		if got := releases.MatchReleases(items, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
}

func TestReleasesSwitchNamespace(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("n").typeText("shop").press("enter")
	h.contains("Releases in shop", "api", "cache").lacks("legacy")
	// A late answer for the namespace left behind is dropped.
	h.send(releases.LoadedMsg{View: "default", Gen: 1, Rows: []kube.ReleaseRow{{Latest: kube.RevisionRow{Name: "ghost"}}}})
	h.lacks("ghost")
	h.press("n", "enter").contains("Releases (all namespaces)", "legacy", "cache")
}

func TestReleasesVerifyFindsCorruptChunk(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client.WithNamespace("shop", false), Options{}, 120, 40)
	// The chunk check reads metadata only: a damaged chunk is still there.
	h.press("down").contains("cache").lacks("BROKEN")
	h.press("V").contains("✗ BROKEN", "cache revision 1 cannot be read: corrupt release record")
}

// TestEverySizeFits checks, for every screen, that the view fills the terminal
// exactly: no line wider than it, no more lines than it has.
func TestEverySizeFits(t *testing.T) {
	f := newFixture(t)
	screens := map[string][]string{
		"releases": nil,
		"history":  {"down", "down", "enter"},
		"revision": {"down", "down", "enter", "enter", "3"},
		"chunks":   {"c"},
		"diff":     {"down", "down", "enter", "d"},
		"rollback": {"down", "down", "enter", "up", "R"},
		"dialog":   {"G", "enter", "F"},
		"help":     {"?"},
	}
	for name, keys := range screens {
		h := newHarness(t, f.Client, Options{}, 120, 40)
		h.press(keys...)
		for _, sz := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {200, 60}, {60, 12}, {50, 10}} {
			h.resize(sz[0], sz[1])
			out := h.m.render()
			lines := strings.Split(out, "\n")
			if len(lines) > sz[1] {
				t.Errorf("%s at %dx%d: %d lines", name, sz[0], sz[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%s at %dx%d: line %d is %d wide: %q", name, sz[0], sz[1], i, w, ansi.Strip(l))
				}
			}
		}
		h.resize(50, 10).contains("needs a terminal of at least 60x12")
	}
}

func TestRunQuitsAndRestoresLog(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	log.SetOutput(&logs)
	defer log.SetOutput(nil)
	out := &syncBuffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), f.Client, Options{
			Input: pr, Output: out, Now: func() time.Time { return testNow },
			ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(80, 24)},
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(ansi.Strip(out.String()), "legacy") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, _ = pw.Write([]byte("q"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after q")
	}
	if log.Writer() != &logs {
		t.Fatal("Run did not put the standard logger back")
	}
	if !strings.Contains(ansi.Strip(out.String()), "legacy") {
		t.Fatalf("Run did not draw the release list: %q", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe to read while the program writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunStopsWithContext(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f.Client, Options{Input: pr, Output: &bytes.Buffer{}}) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop when its context was cancelled")
	}
}

// TestPendingInProgressIsNotStuck: a revision pending for less than the stuck
// threshold (here 4h, worker's has been pending 3h) is an operation in progress:
// the list says so and does not offer the fixes yet (the history's side is
// ui/screens/history's test of the same name).
func TestPendingInProgressIsNotStuck(t *testing.T) {
	f := newFixture(t)
	cfg := testConfig()
	cfg.StuckAfter = 4 * time.Hour
	client := kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
	h := newHarness(t, client, Options{}, 120, 40)
	h.press("G").contains("worker has been pending-upgrade for 3h: an operation is in progress", "stuck after 4h").lacks("F to fix")

	// With the default threshold (5 minutes), the same revision is stuck.
	h = newHarness(t, f.Client, Options{}, 120, 40)
	h.press("G").contains("if no Helm operation is running, it is stuck", "F to fix")
}

// TestHelpClosesOnQ: as in less and k9s, q and esc close the help; they do not
// quit chunkview from it.
func TestHelpClosesOnQ(t *testing.T) {
	f := newFixture(t)
	for _, k := range []string{"q", "esc"} {
		h := newHarness(t, f.Client, Options{}, 80, 24)
		h.press("?").contains("Keys: ", "q, esc or any other key closes this help")
		h.press(k).lacks("Keys: ")
		if h.quit {
			t.Fatalf("%s in the help quit chunkview", k)
		}
		h.press("q")
		if !h.quit {
			t.Fatalf("q after the help closed did not quit")
		}
	}
}

// TestStorageNamespaceGivesWayToNames: in the demo, one release keeps its records
// outside its namespace, so the list shows STORAGE NS; the rows that keep them in
// their own show "·", and the column takes no spare room: at 120 columns every
// release's name is shown whole.
func TestStorageNamespaceGivesWayToNames(t *testing.T) {
	_, client := demoClient(t, nil)
	h := newHarness(t, client, Options{}, 120, 40)
	h.contains("STORAGE NS", "grafana-dashboards", "ingress-nginx", "payments-api", "web-frontend")
	var same, apart int
	for _, line := range strings.Split(h.screen(), "\n") {
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
		t.Errorf("STORAGE NS: %d rows with \"·\", %d kept apart; want 8 and grafana-dashboards's:\n%s", same, apart, h.screen())
	}
}

// TestNamesWholeOnlyAtTheDetailLinesCost: over every namespace, at 80 columns
// NAMESPACE stays (names may be cut) since showing the names whole would cost it;
// at 160 the names are whole and NAMESPACE too.
func TestNamesWholeOnlyAtTheDetailLinesCost(t *testing.T) {
	_, client := demoClient(t, nil)
	h := newHarness(t, client, Options{}, 80, 24)
	h.contains("NAMESPACE", "monitori… ")
	h.resize(160, 45)
	h.contains("NAMESPACE", "monitoring", "grafana-dashboards")
}
