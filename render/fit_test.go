package render

import (
	"fmt"
	"testing"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/kube"
)

// TestFitTable: each store's row says what the record takes there, its fill
// judged as the release list judges it, and the verdict; REVISIONS LEFT is
// there only with growth, counting the revisions after the one weighed.
func TestFitTable(t *testing.T) {
	stores := []fit.Store{
		{Driver: kube.DriverChunked, StoredBytes: 300 << 10, LimitBytes: 704 << 10, Fits: true, Objects: 6, Growth: &fit.Growth{RevisionsLeft: 12, FailsAt: 16}},
		{Driver: kube.DriverSecret, StoredBytes: 1000 << 10, LimitBytes: 1 << 20, Fits: true, Growth: &fit.Growth{RevisionsLeft: 3, FailsAt: 7}},
		{Driver: kube.DriverConfigMap, StoredBytes: 2 << 20, LimitBytes: 1 << 20, Fits: false, Growth: &fit.Growth{RevisionsLeft: 0}},
	}
	tb := FitTable(stores, true)
	want := [][]string{
		{"chunked", "300 KiB", "704 KiB", "43%", "yes", "6 Secrets", "11 (r16 fails)"},
		{"secret", "1000 KiB", "1.0 MiB", "98%", "yes", "1 Secret", "2 (r7 fails)"},
		{"cfgmap", "2.0 MiB", "1.0 MiB", "200%", "NO", "1 ConfigMap", "none"},
	}
	if got := tb.Texts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	for _, c := range []struct {
		row     int
		col     string
		meaning Meaning
	}{
		{0, FitFill, Plain}, {1, FitFill, Failed}, {0, FitFits, OK}, {2, FitFits, Failed},
		{0, FitRevisionsLeft, Plain}, {1, FitRevisionsLeft, Warning}, {2, FitRevisionsLeft, Failed},
	} {
		if got := tb.Cell(c.row, c.col).Meaning; got != c.meaning {
			t.Errorf("row %d %s means %v, want %v", c.row, c.col, got, c.meaning)
		}
	}
	if got := FitTable([]fit.Store{{Driver: kube.DriverChunked, Fits: true, Objects: 1}}, false); got.Index(FitRevisionsLeft) >= 0 || got.Cell(0, FitLimit).Text != "none" || got.Cell(0, FitFill).Text != "-" {
		t.Errorf("an install with no chunk limit: %v %q", got.Head(), got.Texts())
	}
}
