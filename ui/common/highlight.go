package common

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/revdiff"
)

// maxHighlightBytes bounds the text coloured token by token; larger texts are
// shown plain (with masked values still marked), which keeps rendering quick.
const maxHighlightBytes = 512 << 10

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

// HighlightYAML colours YAML with chroma's lexer and the UI's own styles, so the
// colours match the rest of the screen and follow the terminal's profile.
func (s *Styles) HighlightYAML(src string) string {
	src = ClipLines(src)
	lexer := lexers.Get("yaml")
	if lexer == nil || len(src) > maxHighlightBytes {
		return s.markMasked(src, nil)
	}
	it, err := lexer.Tokenise(nil, src)
	if err != nil {
		return s.markMasked(src, nil)
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
				b.WriteString(s.markMasked(part, st))
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

// markMasked renders text in style st (nil: plain), with every masked token
// ("<masked:1a2b3c4d>") in the Masked style so hidden secrets stand out.
func (s *Styles) markMasked(text string, st *lipgloss.Style) string {
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
		b.WriteString(s.Masked.Render(text[i : i+j+1]))
		text = text[i+j+1:]
	}
}

// ColorDiff colours a unified diff line by line.
func (s *Styles) ColorDiff(d string) string {
	lines := strings.Split(strings.TrimRight(ClipLines(d), "\n"), "\n")
	for i, l := range lines {
		var st *lipgloss.Style
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			st = &s.DiffFile
		case strings.HasPrefix(l, "+"):
			st = &s.DiffAdd
		case strings.HasPrefix(l, "-"):
			st = &s.DiffDel
		case strings.HasPrefix(l, "@@"):
			st = &s.DiffHunk
		}
		lines[i] = s.markMasked(l, st)
	}
	return strings.Join(lines, "\n")
}
