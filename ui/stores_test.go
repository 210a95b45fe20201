package ui

import (
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/releases"
	"github.com/chunkview/chunkview/ui/screens/revision"
)

// The demo holds no records of Helm's own stores yet, and the Helm record codec
// is a stub until its branch merges: the tests below build those rows by hand and
// hand them to the screens as the answers of their loads. Listing Helm's stores
// on the demo finds nothing, so a client reading every store is safe to use.

// allStores is the fixture's client reading every store, as chunkview does by
// default.
func allStores(f *fixture) *kube.Client { return f.Client.WithDrivers(kube.AllDrivers...) }

// showRows hands the release list rows as the answer of its current load.
func showRows(h *harness, rows []kube.ReleaseRow, err error) {
	h.t.Helper()
	rs := h.m.stack[0].(*releases.Screen)
	h.send(releases.LoadedMsg{View: rs.ViewName, Gen: rs.Gen, Rows: rows, Err: err})
}

// storeGoldens are the screens of releases kept by Helm's own stores, at the
// golden sizes.
var storeGoldens = []struct {
	name  string
	steps func(h *harness, f *fixture)
}{
	{"releases_stores", func(h *harness, f *fixture) {
		showRows(h, mixedRows(), nil)
		h.press("down", "down") // loki-stack, at 97%
	}},
	{"releases_store_skipped", func(h *harness, f *fixture) {
		// Nothing hand-made: the demo refuses ConfigMaps and kube skips that store.
	}},
	{"history_secret_forecast", func(h *harness, f *fixture) {
		rows := lokiHistory()
		h.send(common.PushMsg{S: history.New(h.m.Common.ForRow(rows[0]), "default", "loki-stack")})
		h.send(history.LoadedMsg{Ns: "default", Name: "loki-stack", Rows: rows})
	}},
	{"chunks_helm_record", func(h *harness, f *fixture) {
		row := lokiHistory()[5]
		cs := chunks.New(h.m.Common.ForRow(row), row)
		cs.Named = true
		h.send(common.PushMsg{S: cs})
		h.send(chunks.LayoutLoadedMsg{Ns: row.StorageNamespace, Name: row.Name, Rev: row.Revision, Layout: lokiLayout()})
	}},
	{"revision_summary_helm4", func(h *harness, f *fixture) {
		row := lokiHistory()[5]
		row.ApplyMethod, row.UnknownFields = "server-side", []string{"apply_method", "info.resources"}
		rs := revision.New(h.m.Common.ForRow(row), row)
		h.send(common.PushMsg{S: rs})
		rls := simpleRelease("loki-stack", "default", 6, release.StatusDeployed, 1<<10, testNow.Add(-24*time.Hour))
		h.send(revision.DetailsLoadedMsg{Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion, Details: &kube.Details{Row: row, Release: rls}})
	}},
}

func TestGoldenStores(t *testing.T) {
	for _, c := range storeGoldens {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range goldenSizes {
				t.Run(table.Itoa(sz.w)+"x"+table.Itoa(sz.h), func(t *testing.T) {
					f := newFixture(t)
					client := allStores(f)
					if c.name == "releases_store_skipped" {
						client = f.Client.WithDrivers(kube.DriverChunked, kube.DriverConfigMap)
						f.Cluster.Authorize(func(ns, verb, resource string) (bool, string) {
							return resource != "configmaps", ""
						})
					}
					h := newHarness(t, client, Options{}, sz.w, sz.h)
					c.steps(h, f)
					h.golden()
				})
			}
		})
	}
}
