package table_test

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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
	plain := lipgloss.NewStyle()
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
		if got := ansi.Strip(table.Bar(tc.share, 4, &plain, &plain)); got != tc.want {
			t.Errorf("bar(%v) = %q, want %q", tc.share, got, tc.want)
		}
	}
	if got := table.Sparkline([]int64{0, 50, -1, 100}); got != "▁▅ █" {
		t.Errorf("sparkline = %q", got)
	}
}

// TestCursorModel: the list keys move the cursor within the rows, a page being
// the rows shown; the window follows the cursor; no rows means no cursor.
func TestCursorModel(t *testing.T) {
	key := func(code rune, text string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Text: text} }
	m := table.New()
	if m.Cursor() != -1 {
		t.Fatalf("a new cursor is on row %d, want none (-1)", m.Cursor())
	}
	m.Fit(10, 4)
	for _, step := range []struct {
		key          tea.KeyPressMsg
		cursor, from int
	}{
		{key(tea.KeyDown, ""), 1, 0},
		{key(0, "G"), 9, 6},
		{key(tea.KeyPgUp, ""), 5, 5},
		{key('k', "k"), 4, 4},
		{key(0, "g"), 0, 0},
		{key(tea.KeyUp, ""), 0, 0},
		{key(tea.KeyPgDown, ""), 4, 1},
		{key('x', "x"), 4, 1},
	} {
		m, _ = m.Update(step.key)
		if m.Cursor() != step.cursor || m.Offset() != step.from || m.End() != min(step.from+4, 10) {
			t.Fatalf("after %q: cursor %d showing from %d to %d, want %d from %d", step.key.String(), m.Cursor(), m.Offset(), m.End(), step.cursor, step.from)
		}
	}
	if m.Moves(key('x', "x")) || !m.Moves(key('j', "j")) {
		t.Error("Moves does not tell the list keys from others")
	}
	m.Fit(3, 4)
	if m.Cursor() != 2 || m.Offset() != 0 {
		t.Errorf("after the rows shrank to 3: cursor %d from %d, want 2 from 0", m.Cursor(), m.Offset())
	}
	m.Fit(0, 4)
	if m.Cursor() != -1 {
		t.Errorf("with no rows: cursor %d, want -1", m.Cursor())
	}
}

func TestClipLines(t *testing.T) {
	long := string(make([]byte, table.MaxLineBytes*3))
	got := table.ClipLines("short\n" + long + "\nend")
	if len(got) > table.MaxLineBytes+100 || !strings.Contains(got, "short\n") || !strings.Contains(got, "more on this line]\nend") {
		t.Fatalf("clipLines kept %d bytes: %q", len(got), got[len(got)-60:])
	}
}
