package releases

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// showRows hands the list rows as the answer of its current load.
func showRows(s *Screen, h *screentest.Harness, rows []kube.ReleaseRow, err error) {
	h.Send(LoadedMsg{View: s.ViewName, Gen: s.Gen, Rows: rows, Err: err})
}

// TestStoreSkipNote: a store the user may not read is named in the list's
// footer and the status line, with why; the rows of the other stores stay.
func TestStoreSkipNote(t *testing.T) {
	f := screentest.NewFixture(t)
	f.Cluster.Authorize(func(ns, verb, resource string) (bool, string) { return resource != "configmaps", "" })
	s, h := openOn(t, f.Client.WithDrivers(kube.DriverChunked, kube.DriverConfigMap), 120, 37)
	if s.skipped == nil || s.err != nil {
		t.Fatalf("skipped = %v, err = %v; want a StoreSkipError and no error", s.skipped, s.err)
	}
	if len(s.Items) != 4 {
		t.Errorf("%d rows, want the 4 chunked ones", len(s.Items))
	}
	h.Contains("cfgmap store skipped: may not list configmaps in namespace default", "web", "worker")
	if st, _ := h.Status(); !strings.Contains(st, "The cfgmap store was skipped: Forbidden") {
		t.Errorf("status line %q does not announce the skipped store", st)
	}
	// Announced once, not on every reload.
	h.Forget()
	h.Press("r")
	if st, _ := h.Status(); st != "" {
		t.Errorf("reload announced the skip again: %q", st)
	}
}

// TestRowAnswersMatchTheirStore: a record of one store does not take the answer
// for a record of another store that has the same name and resourceVersion.
func TestRowAnswersMatchTheirStore(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := openOn(t, f.Client.WithDrivers(kube.AllDrivers...), 120, 37)
	cm, sec := screentest.StoreRow(kube.DriverConfigMap, "twin", 1, 0.1), screentest.StoreRow(kube.DriverSecret, "twin", 1, 0.1)
	showRows(s, h, []kube.ReleaseRow{{Latest: cm, Revisions: 1}, {Latest: sec, Revisions: 1}}, nil)
	broken := sec
	broken.Broken, broken.Problem = true, "bad gzip"
	h.Send(rowcheck.RowDetailsMsg{Driver: sec.Driver, Ns: sec.StorageNamespace, Key: sec.Key, Rv: sec.ResourceVersion, Row: broken})
	for _, it := range s.Items {
		if got, want := it.Row.Latest.Broken, it.Row.Latest.Driver == kube.DriverSecret; got != want {
			t.Errorf("%s row: broken = %v, want %v", it.Row.Latest.Driver, got, want)
		}
	}
}

// TestFilterMatchesStore: the fuzzy filter finds releases by store too.
func TestFilterMatchesStore(t *testing.T) {
	var items []ReleaseItem
	for _, r := range screentest.MixedRows() {
		items = append(items, ReleaseItem{Row: r})
	}
	got := matchReleases(items, "~cfgmap")
	if len(got) != 1 || items[got[0]].Row.Latest.Name != "ingress-nginx" {
		t.Errorf("~cfgmap kept %v", got)
	}
}
