package dialog

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/components/table"
)

// Box draws a dialog of the given width in box: a heading in title, then the
// body.
func Box(box, title lipgloss.Style, heading, body string, width int) string {
	inner := max(width-box.GetHorizontalFrameSize(), 10)
	content := title.Render(ansi.Truncate(heading, inner, "…")) + "\n\n" + body
	return box.Width(width).Render(content)
}

// Overlay draws box centred over body, which is w by h cells; the body shows
// around it.
func Overlay(body, box string, w, h int) string {
	lines := strings.Split(table.PadLines(body, h), "\n")
	boxLines := strings.Split(box, "\n")
	bw := lipgloss.Width(box)
	x := max((w-bw)/2, 0)
	y := max((h-len(boxLines))/2, 0)
	for i, bl := range boxLines {
		row := y + i
		if row >= len(lines) {
			break
		}
		line := lines[row]
		left := ansi.Truncate(line, x, "")
		if pad := x - ansi.StringWidth(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		right := ""
		if ansi.StringWidth(line) > x+bw {
			right = ansi.TruncateLeft(line, x+bw, "")
		}
		lines[row] = left + bl + strings.Repeat(" ", max(bw-ansi.StringWidth(bl), 0)) + right
	}
	return strings.Join(lines, "\n")
}
