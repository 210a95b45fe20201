package viewer

import "charm.land/lipgloss/v2"

// Styles are what a viewer draws with. Build them once (DefaultStyles); View
// only applies them.
type Styles struct {
	// More marks a line that goes on past the right edge.
	More lipgloss.Style
}

// DefaultStyles returns the viewer's styles: the mark of a cut line in the
// text's own colour, since a "…" reads without one.
func DefaultStyles() Styles { return Styles{More: lipgloss.NewStyle()} }
