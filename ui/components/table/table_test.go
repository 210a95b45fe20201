package table_test

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

func TestFitColumns(t *testing.T) {
	cols := []table.Column{
		{Title: "A", Width: 10},
		{Title: "B", Width: 10, Prio: 2},
		{Title: "C", Width: 10, Prio: 1},
		{Title: "D", Width: 10, Flex: 1},
	}
	titles := func(cs []table.Column) (s string) {
		for _, c := range cs {
			s += c.Title
		}
		return s
	}
	// Gutter 2 + 4 columns of 10 + 3 spaces = 45.
	if got := table.FitColumns(cols, 45); titles(got) != "ABCD" || got[3].Width != 10 {
		t.Errorf("at 45: %s, D %d wide", titles(got), got[3].Width)
	}
	if got := table.FitColumns(cols, 60); got[3].Width != 25 {
		t.Errorf("at 60 the flexible column is %d wide, want 25", got[3].Width)
	}
	if got := table.FitColumns(cols, 40); titles(got) != "ABD" {
		t.Errorf("at 40: %s, want the lowest priority (C) dropped", titles(got))
	}
	if got := table.FitColumns(cols, 25); titles(got) != "AD" {
		t.Errorf("at 25: %s, want AD", titles(got))
	}
}

func TestBarsAndSparks(t *testing.T) {
	st := common.DefaultStyles()
	for _, tc := range []struct {
		share float64
		want  string
	}{
		{0, "····"},
		{0.001, "▏···"},
		{0.5, "██··"},
		{0.5625, "██▎·"},
		{1, "████"},
		{3, "████"},
	} {
		if got := ansi.Strip(table.Bar(tc.share, 4, &st.GaugeLow, &st.GaugeEmpty)); got != tc.want {
			t.Errorf("bar(%v) = %q, want %q", tc.share, got, tc.want)
		}
	}
	if got := table.Sparkline([]int64{0, 50, -1, 100}); got != "▁▅ █" {
		t.Errorf("sparkline = %q", got)
	}
}
