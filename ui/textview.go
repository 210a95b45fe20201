package ui

import (
	"strings"

	"charm.land/bubbles/v2/viewport"
	"github.com/charmbracelet/x/ansi"
)

// viewMarked draws vp with "…" in the last cell of every line that goes on past
// its right edge, so that a line cut by the terminal says so; →/l scrolls to the
// rest.
func viewMarked(vp *viewport.Model) string {
	view := vp.View()
	w := vp.Width()
	if w < 2 {
		return view
	}
	content := strings.Split(vp.GetContent(), "\n")
	lines := strings.Split(view, "\n")
	for i := range lines {
		n := vp.YOffset() + i
		if n >= len(content) {
			break
		}
		if ansi.StringWidth(content[n]) > vp.XOffset()+w {
			lines[i] = ansi.Truncate(lines[i], w-1, "") + "…"
		}
	}
	return strings.Join(lines, "\n")
}
