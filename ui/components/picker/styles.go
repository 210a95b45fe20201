package picker

import (
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/ui/components/dialog"
)

// Styles are what a picker draws with. Build them once (DefaultStyles); View
// only applies them.
type Styles struct {
	// Box is the border around the picker, Title its heading.
	Box, Title lipgloss.Style
	// Cursor marks the name under the cursor, Selected the name.
	Cursor, Selected lipgloss.Style
	// Dim is the notes; Warning says the names could not be listed.
	Dim, Warning lipgloss.Style
}

// DefaultStyles returns the picker's styles: a dialog's box, and the colours of
// the rest of the UI. The name under the cursor is also marked ▶.
func DefaultStyles() Styles {
	d := dialog.DefaultStyles()
	return Styles{Box: d.Box, Title: d.Title, Cursor: d.Cursor, Selected: d.Selected, Dim: d.Dim, Warning: d.Warning}
}
