package table

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
)

// Column is one column of a table. Columns are dropped from the lowest priority
// up until the rest fit; what is left over goes to the flexible ones.
type Column struct {
	Title string
	Width int  // width when not flexible; the minimum when flexible
	Flex  int  // share of the spare width
	Right bool // align right
	Prio  int  // higher stays longer; 0 is never dropped
}

// FitColumns returns the columns to draw in width total (with one space between
// columns and a two-cell cursor gutter), with their final widths.
func FitColumns(cols []Column, total int) []Column {
	out := append([]Column(nil), cols...)
	need := func(cs []Column) int {
		n := 2
		for _, c := range cs {
			n += c.Width + 1
		}
		return n - 1
	}
	for need(out) > total {
		drop, best := -1, 0
		for i, c := range out {
			if c.Prio > 0 && (drop < 0 || c.Prio < best) {
				drop, best = i, c.Prio
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
		flexTotal += c.Flex
	}
	if spare > 0 && flexTotal > 0 {
		given := 0
		last := -1
		for i := range out {
			if out[i].Flex > 0 {
				add := spare * out[i].Flex / flexTotal
				out[i].Width += add
				given += add
				last = i
			}
		}
		out[last].Width += spare - given
	}
	return out
}

// Cell is one table cell: its text and, when set, its style.
type Cell struct {
	Text  string
	Style *lipgloss.Style
}

// Plain is a cell of unstyled text.
func Plain(s string) Cell { return Cell{Text: s} }

// Styled is a cell of text drawn in st.
func Styled(s string, st *lipgloss.Style) Cell { return Cell{Text: s, Style: st} }

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

// FitLeft is fit that keeps the end of s, for names whose tail tells them apart.
func FitLeft(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return fit(s, w, false)
	}
	if w <= 1 {
		return fit("…", w, false)
	}
	return "…" + ansi.Cut(s, n-w+1, n)
}

// RenderRow draws one table row: the cursor gutter, then each cell fitted to
// its column.
func RenderRow(cols []Column, cells map[string]Cell, gutter string) string {
	var b strings.Builder
	b.WriteString(gutter)
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		cl := cells[c.Title]
		var text string
		if cl.Style != nil && ansi.StringWidth(cl.Text) > 0 {
			// Style the text only; padding stays plain.
			t := ansi.Truncate(cl.Text, c.Width, "…")
			pad := max(c.Width-ansi.StringWidth(t), 0)
			if c.Right {
				text = strings.Repeat(" ", pad) + cl.Style.Render(t)
			} else {
				text = cl.Style.Render(t) + strings.Repeat(" ", pad)
			}
		} else {
			text = fit(cl.Text, c.Width, c.Right)
		}
		b.WriteString(text)
	}
	return b.String()
}

// RenderHeader draws the column titles.
func RenderHeader(cols []Column, st *lipgloss.Style) string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = fit(c.Title, c.Width, c.Right)
	}
	return st.Render("  " + strings.Join(cells, " "))
}

// eighths are the partial blocks of a bar, from one eighth to a full cell.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"}

// Bar draws share (0..1) as a horizontal bar width cells wide, in eighths of a
// cell, with the empty part dotted.
func Bar(share float64, width int, fill, empty *lipgloss.Style) string {
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

// Sparkline draws values as one character each, scaled from zero to the largest;
// a negative value (unknown) draws as a gap.
func Sparkline(values []int64) string {
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

// Wrap is human.WrapCells, the screens' one way to wrap text.
func Wrap(s string, width int) string { return human.WrapCells(s, width) }

// PadLines pads or cuts s to exactly h lines, so a screen's body keeps its height
// and the help line stays at the bottom.
func PadLines(s string, h int) string {
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

// CutLines cuts every line of s to width cells, marking each cut with "…" so
// that no text ends where the terminal does without saying it goes on.
func CutLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// ScrollWindow returns the first row to show so that cursor stays visible in a
// window of height rows that started at offset.
func ScrollWindow(cursor, offset, height, total int) int {
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

// Line1 flattens s to one line of at most width cells, keeping its indent.
func Line1(width int, s string) string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	return ansi.Truncate(indent+OneLine(s), width, "…")
}

// Itoa is strconv.Itoa, short for the many counts drawn.
func Itoa(n int) string { return strconv.Itoa(n) }

// ColWidth is the width the column titled title was given, 0 when it was dropped.
func ColWidth(cols []Column, title string) int {
	for _, c := range cols {
		if c.Title == title {
			return c.Width
		}
	}
	return 0
}

// OneLine joins the lines of s.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// MaxLineBytes bounds a line of shown text. Base64 blobs and minified JSON run to
// hundreds of KiB on one line; nobody reads past a screen of it, and every frame
// of a viewport would cut it again.
const MaxLineBytes = 1024

// ClipLines shortens lines longer than MaxLineBytes, saying how much was cut.
func ClipLines(s string) string {
	if len(s) <= MaxLineBytes {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > MaxLineBytes {
			cut := MaxLineBytes
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			lines[i] = l[:cut] + fmt.Sprintf(" … [%s more on this line]", human.Bytes(int64(len(l)-cut)))
		}
	}
	return strings.Join(lines, "\n")
}
