package theme

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// maxHighlightBytes bounds the text coloured token by token; larger texts are
// shown plain (with masked values still marked), which keeps rendering quick.
const maxHighlightBytes = 512 << 10

// HighlightYAML colours YAML with chroma's lexer and the UI's own styles, so the
// colours match the rest of the screen and follow the terminal's profile.
func (s *Styles) HighlightYAML(src string) string {
	src = table.ClipLines(src)
	lexer := lexers.Get("yaml")
	if lexer == nil || len(src) > maxHighlightBytes {
		return viewer.MarkMasked(src, nil, &s.Masked)
	}
	it, err := lexer.Tokenise(nil, src)
	if err != nil {
		return viewer.MarkMasked(src, nil, &s.Masked)
	}
	var b strings.Builder
	b.Grow(len(src) * 2)
	for tok := it(); tok != chroma.EOF; tok = it() {
		st := s.yamlStyle(tok.Type)
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if part != "" {
				b.WriteString(viewer.MarkMasked(part, st, &s.Masked))
			}
		}
	}
	return b.String()
}

func (s *Styles) yamlStyle(t chroma.TokenType) *lipgloss.Style {
	switch {
	case t == chroma.NameTag || t.InCategory(chroma.Name) && t != chroma.NameNamespace:
		return &s.YAMLKey
	case t == chroma.NameNamespace:
		return &s.YAMLPunct
	case t.InCategory(chroma.Comment):
		return &s.YAMLComment
	case t == chroma.KeywordConstant || t.InCategory(chroma.Keyword):
		return &s.YAMLLiteral
	case t.InSubCategory(chroma.LiteralNumber) || t == chroma.LiteralDate:
		return &s.YAMLNumber
	case t.InSubCategory(chroma.LiteralString) || t == chroma.Literal:
		return &s.YAMLString
	case t.InCategory(chroma.Punctuation) || t.InCategory(chroma.Operator):
		return &s.YAMLPunct
	}
	return nil
}
