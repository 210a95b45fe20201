package releases

import (
	"slices"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/history"
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

// TestSameNameInTwoStoresOpensItsOwn: a name held by two stores is two rows, and
// each opens a history, chunk layout and everything below them through a client
// narrowed to its own store, so the TUI never meets kube.ErrAmbiguous.
func TestSameNameInTwoStoresOpensItsOwn(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := openOn(t, f.Client.WithDrivers(kube.AllDrivers...), 120, 37)
	showRows(s, h, screentest.MixedRows(), nil)
	var redis []int
	for i, idx := range s.Shown {
		if s.Items[idx].Row.Latest.Name == "redis" {
			redis = append(redis, i)
		}
	}
	if len(redis) != 2 {
		t.Fatalf("redis is on %d rows, want 2 (one per store)", len(redis))
	}
	for _, i := range redis {
		row := s.Items[s.Shown[i]].Row.Latest
		want := common.StoreOf(row.Driver)
		h.Press("home")
		for range i {
			h.Press("down")
		}
		h.Forget().Press("enter")
		hs, ok := h.Pushed().(*history.Screen)
		if !ok {
			t.Fatalf("enter on redis (%s) opened %T", want, h.Pushed())
		}
		if got := hs.Client.Config().Drivers; !slices.Equal(got, []string{want}) {
			t.Errorf("redis (%s): the history loads through a client reading %v", want, got)
		}
		// The history, opened as the root opens it.
		hh := screentest.New(t, hs, 120, 37)
		if v := hh.View(); strings.Contains(v, kube.ErrAmbiguous.Error()) {
			t.Errorf("redis (%s): history refused as ambiguous:\n%s", want, v)
		}
		if want == kube.DriverSecret && hs.Title() != "redis (secret)" {
			t.Errorf("title %q does not name the store", hs.Title())
		}
		// Screens opened from the history inherit the narrowed client.
		hh.Send(history.LoadedMsg{Ns: row.StorageNamespace, Name: row.Name, Rows: []kube.RevisionRow{screentest.StoreRow(want, "redis", 1, 0.1)}})
		hh.Press("c")
		if cs, ok := hh.Pushed().(*chunks.Screen); !ok || !slices.Equal(cs.Client.Config().Drivers, []string{want}) {
			t.Errorf("redis (%s): c opened %T reading another store", want, hh.Pushed())
		}
		h.Forget().Press("c")
		if cs, ok := h.Pushed().(*chunks.Screen); !ok || !slices.Equal(cs.Client.Config().Drivers, []string{want}) {
			t.Errorf("redis (%s): c from the list opened %T reading another store", want, h.Pushed())
		}
	}
}
