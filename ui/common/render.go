package common

import (
	"slices"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// The TUI's printer of package render: it styles what render yields by its
// meaning. A word of state (a status, a phase) is drawn in the statuses' bold
// colours (StateStyle), other text in the text colours (MeaningStyle).

// MeaningStyle is the style of text of meaning m; nil for plain text.
func MeaningStyle(s *theme.Styles, m render.Meaning) *lipgloss.Style {
	switch m {
	case render.OK:
		return &s.OK
	case render.Warning:
		return &s.Warning
	case render.Failed:
		return &s.Error
	case render.Muted:
		return &s.Dim
	}
	return nil
}

// StateStyle is the style of a word of state of meaning m: a status, a phase.
func StateStyle(s *theme.Styles, m render.Meaning) *lipgloss.Style {
	switch m {
	case render.OK:
		return &s.StatusDeployed
	case render.Warning:
		return &s.StatusPending
	case render.Failed:
		return &s.StatusFailed
	}
	return &s.StatusSuperseded
}

// Paint draws text of meaning m in its style (MeaningStyle).
func Paint(s *theme.Styles, text string, m render.Meaning) string {
	if st := MeaningStyle(s, m); st != nil {
		return st.Render(text)
	}
	return text
}

// TextCell is c as a table cell in the text colours.
func TextCell(s *theme.Styles, c render.Cell) table.Cell {
	return table.Cell{Text: c.Text, Style: MeaningStyle(s, c.Meaning)}
}

// StateTextCell is c, a word of state, as a table cell in the statuses'
// colours.
func StateTextCell(s *theme.Styles, c render.Cell) table.Cell {
	return table.Styled(c.Text, StateStyle(s, c.Meaning))
}

// TableColumns are t's columns as the TUI lays them out: each as layout has it
// under the column's name, titled with its short title and aligned as t says.
// A column layout does not name is left out.
func TableColumns(t render.Table, layout map[string]table.Column) []table.Column {
	var out []table.Column
	for _, c := range t.Columns {
		if l, ok := layout[c.Name]; ok {
			l.Title, l.Right = c.Title(), c.Right
			out = append(out, l)
		}
	}
	return out
}

// TableCells are the cells of t's row i under the TUI's column titles, styled
// by their meaning: those of the columns named in states are words of state.
func TableCells(s *theme.Styles, t render.Table, i int, states ...string) map[string]table.Cell {
	out := make(map[string]table.Cell, len(t.Columns))
	for j, c := range t.Columns {
		cell := t.Rows[i][j]
		if slices.Contains(states, c.Name) {
			out[c.Title()] = StateTextCell(s, cell)
		} else {
			out[c.Title()] = TextCell(s, cell)
		}
	}
	return out
}
