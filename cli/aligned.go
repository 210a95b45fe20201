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
	var b strings.Builder
	for _, cells := range rows {
		for i, c := range cells {
			c = clean(c)
			b.WriteString(c)
			if i == len(cells)-1 {
				break
			}
			pad := columnGap
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
