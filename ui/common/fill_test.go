package common_test

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/theme"
)

// TestFillCell: the share of the store's limit is marked, and coloured, at 80%
// (warning) and 95% (error), so it reads without colour too.
func TestFillCell(t *testing.T) {
	st := theme.DefaultStyles()
	for _, tc := range []struct {
		fill  float64
		mark  string
		style lipgloss.Style
	}{
		{0.10, " ", st.GaugeLow}, {0.79, " ", st.GaugeLow},
		{0.80, "⚠", st.Warning}, {0.85, "⚠", st.Warning},
		{0.95, "✗", st.Error}, {0.97, "✗", st.Error}, {1.20, "✗", st.Error},
	} {
		mark, style := common.FillStyle(&st, tc.fill)
		if mark != tc.mark || style.GetForeground() != tc.style.GetForeground() {
			t.Errorf("fill %.2f: mark %q, want %q (or another colour)", tc.fill, mark, tc.mark)
		}
		row := screentest.StoreRow(kube.DriverSecret, "x", 1, tc.fill)
		text := screentest.Plain(common.FillCell(&st, row, 10).Text)
		if want := table.Itoa(int(tc.fill*100+0.5)) + "%" + strings.TrimSpace(tc.mark); !strings.Contains(text, want) {
			t.Errorf("fill %.2f: cell %q lacks %q", tc.fill, text, want)
		}
	}
	noLimit := screentest.StoreRow(kube.DriverChunked, "x", 1, 0.5)
	noLimit.LimitBytes = 0
	if got := common.FillCell(&st, noLimit, 10).Text; got != "no limit" {
		t.Errorf("chunked without --max-write-chunks: %q", got)
	}
}
