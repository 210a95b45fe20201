package ui

import (
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// column is one column of a table. Columns are dropped from the lowest priority
// up until the rest fit; what is left over goes to the flexible ones.
type column struct {
	title string
	width int  // width when not flexible; the minimum when flexible
	flex  int  // share of the spare width
	right bool // align right
	prio  int  // higher stays longer; 0 is never dropped
}

// fitColumns returns the columns to draw in width total (with one space between
// columns and a two-cell cursor gutter), with their final widths.
func fitColumns(cols []column, total int) []column {
	out := append([]column(nil), cols...)
	need := func(cs []column) int {
		n := 2
		for _, c := range cs {
			n += c.width + 1
		}
		return n - 1
	}
	for need(out) > total {
		drop, best := -1, 0
		for i, c := range out {
			if c.prio > 0 && (drop < 0 || c.prio < best) {
				drop, best = i, c.prio
			}
		}
		if drop < 0 {
			break
		}
		out = append(out[:drop], out[drop+1:]...)
	}
	spare := total - need(out)
	flexTotal := 0
	for _, c := range out {
		flexTotal += c.flex
	}
	if spare > 0 && flexTotal > 0 {
		given := 0
		last := -1
		for i := range out {
			if out[i].flex > 0 {
				add := spare * out[i].flex / flexTotal
				out[i].width += add
				given += add
				last = i
			}
		}
		out[last].width += spare - given
	}
	return out
}

// cell is one table cell: its text and, when set, its style.
type cell struct {
	text  string
	style *lipgloss.Style
}

func plain(s string) cell                      { return cell{text: s} }
func styled(s string, st *lipgloss.Style) cell { return cell{text: s, style: st} }

// fit truncates s to w cells (with an ellipsis) and pads it to exactly w.
func fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	pad := w - ansi.StringWidth(s)
	if pad <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", pad) + s
	}
	return s + strings.Repeat(" ", pad)
}

// fitLeft is fit that keeps the end of s, for names whose tail tells them apart.
func fitLeft(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return fit(s, w, false)
	}
	if w <= 1 {
		return fit("…", w, false)
	}
	return "…" + ansi.Cut(s, n-w+1, n)
}

// renderRow draws one table row: the cursor gutter, then each cell fitted to
// its column.
func renderRow(cols []column, cells map[string]cell, gutter string) string {
	var b strings.Builder
	b.WriteString(gutter)
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		cl := cells[c.title]
		var text string
		if cl.style != nil && ansi.StringWidth(cl.text) > 0 {
			// Style the text only; padding stays plain.
			t := ansi.Truncate(cl.text, c.width, "…")
			pad := max(c.width-ansi.StringWidth(t), 0)
			if c.right {
				text = strings.Repeat(" ", pad) + cl.style.Render(t)
			} else {
				text = cl.style.Render(t) + strings.Repeat(" ", pad)
			}
		} else {
			text = fit(cl.text, c.width, c.right)
		}
		b.WriteString(text)
	}
	return b.String()
}

// renderHeader draws the column titles.
func renderHeader(cols []column, st *lipgloss.Style) string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = fit(c.title, c.width, c.right)
	}
	return st.Render("  " + strings.Join(cells, " "))
}

// eighths are the partial blocks of a bar, from one eighth to a full cell.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"}

// bar draws share (0..1) as a horizontal bar width cells wide, in eighths of a
// cell, with the empty part dotted.
func bar(share float64, width int, fill, empty *lipgloss.Style) string {
	if width <= 0 {
		return ""
	}
	share = math.Max(0, math.Min(1, share))
	units := int(math.Round(share * float64(width*8)))
	if share > 0 && units == 0 {
		units = 1 // anything stored shows
	}
	full, part := units/8, units%8
	filled := strings.Repeat("█", full) + eighths[part]
	used := full
	if part > 0 {
		used++
	}
	return fill.Render(filled) + empty.Render(strings.Repeat("·", width-used))
}

// sparks are the levels of a sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as one character each, scaled from zero to the largest;
// a negative value (unknown) draws as a gap.
func sparkline(values []int64) string {
	var top int64
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case v < 0:
			b.WriteRune(' ')
		case top == 0:
			b.WriteRune(sparks[0])
		default:
			i := int(math.Round(float64(v) / float64(top) * float64(len(sparks)-1)))
			b.WriteRune(sparks[i])
		}
	}
	return b.String()
}

// wrap breaks s into lines of at most width cells.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	out := ansi.Wrap(s, width, " ,;/")
	for _, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > width {
			// ansi.Wrap can keep a breakpoint character past the width
			// ("values," at 81 of 80): break at spaces only then.
			return ansi.Wrap(s, width, " ")
		}
	}
	return out
}

// padLines pads or cuts s to exactly h lines, so a screen's body keeps its height
// and the help line stays at the bottom.
func padLines(s string, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// cutLines cuts every line of s to width cells, marking each cut with "…" so
// that no text ends where the terminal does without saying it goes on.
func cutLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// scrollWindow returns the first row to show so that cursor stays visible in a
// window of height rows that started at offset.
func scrollWindow(cursor, offset, height, total int) int {
	if height <= 0 {
		return 0
	}
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+height {
		offset = cursor - height + 1
	}
	return max(0, min(offset, max(total-height, 0)))
}

// line1 flattens s to one line of at most width cells, keeping its indent.
func line1(width int, s string) string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	return ansi.Truncate(indent+oneLine(s), width, "…")
}

func itoa(n int) string { return strconv.Itoa(n) }

func colWidth(cols []column, title string) int {
	for _, c := range cols {
		if c.title == title {
			return c.width
		}
	}
	return 0
}

// oneLine joins the lines of s.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
