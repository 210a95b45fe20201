package apis

import (
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Object is one object of a manifest, as the manifest writes it, and where it
// sits in the text: what the rewrite needs to change its apiVersion in place.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Hook is the name of the hook whose manifest holds the object; "" for the
	// release's manifest.
	Hook string `json:"hook,omitempty"`
	// Template is the chart template that rendered it (Helm's "# Source:"
	// line), when the manifest says.
	Template string `json:"template,omitempty"`

	doc        span // the document, from its separator line to the next one
	apiVersion span // the apiVersion's text, quotes excluded; invalid when not rewritable in place
	listItem   bool // an item of a List document, which cannot be dropped alone
}

// span is a range of bytes of a text, [start, end).
type span struct{ start, end int }

var noSpan = span{-1, -1}

func (s span) valid() bool { return s.start >= 0 }

// Ref names the object as kubectl does, Kind/name, with its namespace when
// the manifest sets one.
func (o Object) Ref() string {
	if o.Namespace != "" {
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	return o.Kind + "/" + o.Name
}

// splitDocuments cuts text into YAML documents at the lines that start with
// "---" (the document marker, which Helm writes before each template's
// output). Each span starts at its marker line, the first at 0, and ends where
// the next marker line starts.
func splitDocuments(text string) []span {
	var docs []span
	start := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		line := text[off:]
		next := len(text)
		if end >= 0 {
			line, next = text[off:off+end], off+end+1
		}
		if isMarker(line) && off > start {
			docs = append(docs, span{start, off})
			start = off
		}
		off = next
	}
	if start < len(text) || len(docs) == 0 {
		docs = append(docs, span{start, len(text)})
	}
	return docs
}

func isMarker(line string) bool {
	if !strings.HasPrefix(line, "---") {
		return false
	}
	rest := line[3:]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r'
}

// objectsOf reads the objects of a manifest. A document YAML cannot read is
// returned as an error beside the objects of the others: Helm cannot build it
// either, and nothing is said of what it holds.
func objectsOf(text, hook string) ([]Object, []error) {
	var objs []Object
	var errs []error
	for i, d := range splitDocuments(text) {
		body := text[d.start:d.end]
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(body), &n); err != nil {
			errs = append(errs, fmt.Errorf("%sdocument %d cannot be read as YAML: %w", hookPrefix(hook), i+1, err))
			continue
		}
		if n.Kind != yaml.DocumentNode || len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue // empty, or comments only, as a template that rendered nothing
		}
		pos := newPositions(text, d.start)
		top := n.Content[0]
		o := objectAt(top, pos)
		o.Hook, o.doc, o.Template = hook, d, sourceOf(body)
		if items := field(top, "items"); items != nil && items.Kind == yaml.SequenceNode && strings.HasSuffix(o.Kind, "List") {
			for _, it := range items.Content {
				if it.Kind != yaml.MappingNode {
					continue
				}
				io := objectAt(it, pos)
				io.Hook, io.doc, io.Template, io.listItem = hook, d, o.Template, true
				objs = append(objs, io)
			}
			continue
		}
		if o.APIVersion == "" && o.Kind == "" {
			continue
		}
		objs = append(objs, o)
	}
	return objs, errs
}

func hookPrefix(hook string) string {
	if hook == "" {
		return ""
	}
	return "hook " + hook + ": "
}

// objectAt reads an object's head off its mapping node.
func objectAt(m *yaml.Node, pos positions) Object {
	o := Object{apiVersion: noSpan}
	if v := field(m, "apiVersion"); v != nil && v.Kind == yaml.ScalarNode {
		o.APIVersion, o.apiVersion = v.Value, pos.scalar(v)
	}
	if v := field(m, "kind"); v != nil && v.Kind == yaml.ScalarNode {
		o.Kind = v.Value
	}
	if md := field(m, "metadata"); md != nil && md.Kind == yaml.MappingNode {
		if v := field(md, "name"); v != nil && v.Kind == yaml.ScalarNode {
			o.Name = v.Value
		}
		if v := field(md, "namespace"); v != nil && v.Kind == yaml.ScalarNode {
			o.Namespace = v.Value
		}
	}
	return o
}

// field returns the value node of key in mapping m.
func field(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// sourceOf returns the template a document came from, from the "# Source:"
// comment Helm writes at its head.
func sourceOf(body string) string {
	for _, line := range strings.SplitN(body, "\n", 4) {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "# Source: "); ok {
			return s
		}
	}
	return ""
}

// positions turns the line and column yaml reports for a node of one
// document (both from 1; the column counts characters) into a byte offset in
// the whole text.
type positions struct {
	text  string
	base  int
	lines []int // byte offset in text of each line of the document
}

func newPositions(text string, base int) positions {
	p := positions{text: text, base: base, lines: []int{base}}
	for i := base; i < len(text); i++ {
		if text[i] == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	return p
}

func (p positions) offset(line, column int) int {
	if line < 1 || line > len(p.lines) {
		return -1
	}
	off := p.lines[line-1]
	for c := 1; c < column; c++ {
		if off >= len(p.text) || p.text[off] == '\n' {
			return -1
		}
		_, w := utf8.DecodeRuneInString(p.text[off:])
		off += w
	}
	return off
}

// scalar returns the span of a scalar's text, quotes excluded, when the text
// there is the value as written: a plain or quoted scalar without escapes.
// Anything else (a tag, an escape, a block scalar, a scalar folded over
// lines) gets noSpan: it can be read, and is not rewritten in place.
func (p positions) scalar(n *yaml.Node) span {
	off := p.offset(n.Line, n.Column)
	if off < 0 {
		return noSpan
	}
	v := n.Value
	switch n.Style {
	case 0:
		if strings.HasPrefix(p.text[off:], v) {
			return span{off, off + len(v)}
		}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := `"`
		if n.Style == yaml.SingleQuotedStyle {
			q = "'"
		}
		if strings.HasPrefix(p.text[off:], q+v+q) {
			return span{off + 1, off + 1 + len(v)}
		}
	}
	return noSpan
}
