package cli

import (
	"io"
	"strings"
	"unicode/utf8"
)

// columnGap is the space between columns, as newTable's tabwriter leaves it.
const columnGap = 3

// columnWidths widens widths to fit every cell of rows but the last of each row,
// which is never padded. A nil widths starts from nothing.
func columnWidths(widths []int, rows [][]string) []int {
	for _, cells := range rows {
		for i, c := range cells[:max(len(cells)-1, 0)] {
			for len(widths) <= i {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(clean(c)))
		}
	}
	return widths
}

// printAligned prints rows with each column padded to widths plus columnGap, as
// newTable does, but to widths fixed beforehand: rows printed later (history
// --watch) line up under the table printed first. A cell wider than its column
// pushes the rest of its own row right, and no other.
func printAligned(w io.Writer, rows [][]string, widths []int) error {
	return printAlignedGap(w, rows, widths, columnGap)
}

// printAlignedGap is printAligned with gap spaces between columns.
func printAlignedGap(w io.Writer, rows [][]string, widths []int, gap int) error {
	var b strings.Builder
	for _, cells := range rows {
		for i, c := range cells {
			c = clean(c)
			b.WriteString(c)
			if i == len(cells)-1 {
				break
			}
			pad := gap
			if i < len(widths) {
				pad += widths[i] - utf8.RuneCountInString(c)
			}
			b.WriteString(strings.Repeat(" ", max(pad, 1)))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clean keeps a cell on its line: a tab or newline inside it would break the
// columns.
func clean(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }

// shrink is a column fitColumns may narrow, down to min cells.
type shrink struct{ col, min int }

// fitColumns narrows the columns of order, in turn, each down to its min, then
// the gap between columns to 2, until rows printed at widths with the gap it
// returns (printAlignedGap) fit in width cells, or nothing more can give. A
// cell wider than its column is cut in its middle with "…", so that its start
// and its end (a chart's version) stay. width 0 (not a terminal) fits nothing.
// The last column is never padded and so counts at its longest.
func fitColumns(rows [][]string, widths []int, width int, order []shrink) int {
	if width <= 0 || len(rows) == 0 {
		return columnGap
	}
	total := 0
	for _, w := range widths {
		total += w + columnGap
	}
	last := 0
	for _, cells := range rows {
		if len(cells) > len(widths) {
			last = max(last, utf8.RuneCountInString(clean(cells[len(cells)-1])))
		}
	}
	over := total + last - width
	for _, s := range order {
		if over <= 0 {
			break
		}
		if s.col >= len(widths) || widths[s.col] <= s.min {
			continue
		}
		cut := min(over, widths[s.col]-s.min)
		widths[s.col] -= cut
		over -= cut
		for _, cells := range rows {
			if s.col < len(cells) {
				cells[s.col] = cutMiddle(clean(cells[s.col]), widths[s.col])
			}
		}
	}
	if over > 0 {
		return columnGap - 1
	}
	return columnGap
}

// cutMiddle shortens s to n runes, its middle replaced by "…".
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
