package diffview

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// colorDiff colours a unified diff line by line.
func colorDiff(st *Styles, d string) string {
	lines := strings.Split(strings.TrimRight(table.ClipLines(d), "\n"), "\n")
	for i, l := range lines {
		var ls *lipgloss.Style
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			ls = &st.File
		case strings.HasPrefix(l, "+"):
			ls = &st.Add
		case strings.HasPrefix(l, "-"):
			ls = &st.Del
		case strings.HasPrefix(l, "@@"):
			ls = &st.Hunk
		}
		lines[i] = viewer.MarkMasked(l, ls, &st.Masked)
	}
	return strings.Join(lines, "\n")
}
