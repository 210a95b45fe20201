package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/history"
)

// chartGoldenSizes are the sizes the history's size chart is checked at: the
// smallest supported terminal and a large one.
var chartGoldenSizes = []struct{ w, h int }{{80, 24}, {160, 45}}

// slowHistory is a Helm Secrets release at 64% of its 1 MiB, growing 4 KiB a
// revision: the limit is far off, and revision 3 cannot be read, its size not
// known.
func slowHistory() []kube.RevisionRow {
	var rows []kube.RevisionRow
	for v := 1; v <= 8; v++ {
		r := storeRow(kube.DriverSecret, "prometheus", v, 0)
		r.Summary.StoredBytes = int64(640+4*v) << 10
		r.Updated = testNow.Add(-time.Duration(9-v) * 24 * time.Hour)
		r.Status = "superseded"
		if v == 8 {
			r.Status = "deployed"
		}
		if v == 3 {
			r.Known, r.Summary, r.Checked = false, storage.Summary{}, false
			r.Broken, r.Problem = true, "corrupt: data.release is not base64"
		}
		rows = append(rows, r)
	}
	return rows
}

// showHistory opens the history of rows' release with rows as its answer.
func showHistory(h *harness, rows []kube.RevisionRow) {
	h.send(common.PushMsg{S: history.New(h.m.Common.ForRow(rows[0]), "default", rows[0].Name)})
	h.send(history.LoadedMsg{Ns: "default", Name: rows[0].Name, Rows: rows})
}

// TestGoldenSizeChart compares the history with its size chart at 80x24 and
// 160x45: a chunked release three upgrades from its write limit (the forecast
// drawn), a Helm Secrets release at 89% of its Secret (the limit line over
// nearly full bars), one far from its limit with a size not known (the
// failing revision named past the end), one with no write limit, and the
// selected revision moved. go test ./ui -run TestGoldenSizeChart -update
// rewrites them.
func TestGoldenSizeChart(t *testing.T) {
	noLimit := func(f *fixture) *kube.Client {
		cfg := testConfig()
		cfg.Driver.MaxWriteChunks = 0
		return kube.New(f.cluster.Clientset(), f.cluster.Metadata(), demo.DiscardKubeClients, cfg)
	}
	for _, c := range []struct {
		name   string
		client func(f *fixture) *kube.Client
		steps  func(h *harness)
		// shows is what the chart must draw, beside the golden.
		shows []string
	}{
		{name: "chunked_forecast", steps: keys("down", "down", "enter"), shows: []string{"128 KiB┤", "7✗", "░░░", "▓▓▓", "✗ revision 7 will not fit"}},
		{name: "chunked_selected_first", steps: keys("down", "down", "enter", "home"), shows: []string{"128 KiB┤"}},
		{name: "secret_near_limit", client: allStores, steps: func(h *harness) { showHistory(h, lokiHistory()) }, shows: []string{"1.0 MiB┤", "9✗", "Secret limit 1 MiB"}},
		{name: "secret_far_off", client: allStores, steps: func(h *harness) { showHistory(h, slowHistory()) }, shows: []string{"→ 97✗", "?   ███", "more than 5 upgrades away"}},
		{name: "chunked_no_limit", client: noLimit, steps: keys("down", "down", "enter"), shows: []string{"no write limit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range chartGoldenSizes {
				t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
					f := newFixture(t)
					client := f.client
					if c.client != nil {
						client = c.client(f)
					}
					h := newHarness(t, client, Options{}, sz.w, sz.h)
					c.steps(h)
					h.contains(c.shows...)
					if !strings.Contains(h.screen(), "┤") {
						t.Fatalf("no chart on the history at %dx%d:\n%s", sz.w, sz.h, h.screen())
					}
					h.golden()
				})
			}
		})
	}
}
