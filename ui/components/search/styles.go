package search

import "charm.land/lipgloss/v2"

// Styles are what a search draws with. Build them once (DefaultStyles).
type Styles struct {
	// Match marks what the search found in the text.
	Match lipgloss.Style
	// Found is the footer of a search with matches, NotFound of one without.
	Found, NotFound lipgloss.Style
}

// DefaultStyles returns the search's styles, in the ANSI 256 colours of the
// rest of the UI. A match is shown in reverse video, which reads on any
// terminal.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	return Styles{
		Match:    base.Reverse(true),
		Found:    base.Foreground(lipgloss.Color("63")),
		NotFound: base.Foreground(lipgloss.Color("214")),
	}
}
