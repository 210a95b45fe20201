package viewer

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/revdiff"
)

// MarkMasked renders text in style st (nil: plain), with every masked token
// ("<masked:1a2b3c4d>") in style masked so hidden secrets stand out.
func MarkMasked(text string, st, masked *lipgloss.Style) string {
	render := func(t string) string {
		if st == nil || t == "" {
			return t
		}
		return st.Render(t)
	}
	if !strings.Contains(text, revdiff.MaskPrefix) {
		return render(text)
	}
	var b strings.Builder
	for {
		i := strings.Index(text, revdiff.MaskPrefix)
		if i < 0 {
			b.WriteString(render(text))
			return b.String()
		}
		j := strings.IndexByte(text[i:], '>')
		if j < 0 {
			b.WriteString(render(text))
			return b.String()
		}
		b.WriteString(render(text[:i]))
		b.WriteString(masked.Render(text[i : i+j+1]))
		text = text[i+j+1:]
	}
}
