package table

import "charm.land/lipgloss/v2"

// Styles are what a table is drawn with. Build them once (DefaultStyles);
// drawing only applies them.
type Styles struct {
	// Header draws the column titles.
	Header lipgloss.Style
	// Cursor draws the gutter's mark of the selected row, Selected the cell
	// that names it.
	Cursor   lipgloss.Style
	Selected lipgloss.Style
}

// DefaultStyles returns the table's styles, in the ANSI 256 colours of the rest
// of the UI. The selected row is also marked by the gutter's ▶, so it reads
// without colour.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	return Styles{
		Header:   base.Bold(true).Foreground(lipgloss.Color("245")),
		Cursor:   base.Foreground(lipgloss.Color("170")).Bold(true),
		Selected: base.Bold(true).Foreground(lipgloss.Color("255")),
	}
}
