package dialog

import "charm.land/lipgloss/v2"

// Styles are what a dialog is drawn with. Build them once (DefaultStyles); View
// only applies them.
type Styles struct {
	// Box is the border around the dialog, Title its heading.
	Box, Title lipgloss.Style
	// Where names the cluster and namespace changed; Prompt asks.
	Where, Prompt lipgloss.Style
	// Cursor marks the choice picked, Selected its label.
	Cursor, Selected lipgloss.Style
	// Warning is a choice's warning and a hint; Dim what is under way; OK and
	// Error the outcome.
	Warning, Dim, OK, Error lipgloss.Style
}

// DefaultStyles returns the dialog's styles, in the ANSI 256 colours of the
// rest of the UI. The choice picked is also marked ▶, the outcome ✓ or ✗, so a
// dialog reads without colour.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	var (
		accent  = lipgloss.Color("63")
		green   = lipgloss.Color("42")
		red     = lipgloss.Color("196")
		yellow  = lipgloss.Color("214")
		magenta = lipgloss.Color("170")
		gray    = lipgloss.Color("245")
		white   = lipgloss.Color("255")
	)
	return Styles{
		Box:      base.Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1),
		Title:    base.Bold(true).Foreground(accent),
		Where:    base.Bold(true),
		Prompt:   base.Foreground(accent).Bold(true),
		Cursor:   base.Foreground(magenta).Bold(true),
		Selected: base.Bold(true).Foreground(white),
		Warning:  base.Foreground(yellow),
		Dim:      base.Foreground(gray),
		OK:       base.Foreground(green),
		Error:    base.Foreground(red),
	}
}
