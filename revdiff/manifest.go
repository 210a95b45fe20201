package revdiff

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Resource is one document of a rendered manifest.
type Resource struct {
	// Key identifies the resource across revisions: "Kind/namespace/name", or
	// "Kind/name" without a namespace, as kubectl names objects. A key seen again
	// in the same manifest gets "#2", "#3", ... in order of appearance.
	Key       string `json:"key"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Source is the template path from Helm's "# Source: ..." comment, if any.
	Source string `json:"source,omitempty"`
	// Manifest is the document's text, comments included, without the separator.
	Manifest string `json:"manifest"`

	// masked is the document after the first masking pass, when Diff split it.
	masked *maskedDoc
}

// SplitManifest splits a rendered manifest into its documents, sorted by key.
// Documents are separated by lines that start with "---" followed by nothing,
// a space or a tab; what follows the marker on that line stays with the document.
// Documents with nothing but blank lines and comments are dropped. Kind, namespace
// and name come from the document's kind and metadata; a document that does not
// parse, or lacks them, gets empty ones.
func SplitManifest(manifest string) []Resource { return splitManifest(manifest, "") }

// ReleaseResources is SplitManifest for the manifest of a release installed in
// namespace: a namespaced resource whose template leaves its namespace out gets
// the release's, where Helm creates it. Kinds known to be cluster-scoped keep none.
func ReleaseResources(manifest, namespace string) []Resource {
	return splitManifest(manifest, namespace)
}

func splitManifest(manifest, namespace string) []Resource {
	return splitMasked(manifest, namespace, nil)
}

// splitMasked is splitManifest that also masks each document with mask, when
// not nil, and takes kind, name and namespace from the parse that masking made
// when that tells them as surely as parsing the document again would.
func splitMasked(manifest, namespace string, mask func(doc string) *maskedDoc) []Resource {
	var out []Resource
	seen := map[string]int{}
	for _, doc := range splitDocs(manifest) {
		if isBlankDoc(doc) {
			continue
		}
		r := Resource{Manifest: doc, Source: sourceOf(doc)}
		if mask != nil {
			r.masked = mask(doc)
		}
		if r.masked != nil && r.masked.headOK {
			r.Kind, r.Name, r.Namespace = r.masked.kind, r.masked.name, r.masked.namespace
		} else {
			var head struct {
				Kind     any `json:"kind"`
				Metadata struct {
					Name      any `json:"name"`
					Namespace any `json:"namespace"`
				} `json:"metadata"`
			}
			if yaml.Unmarshal([]byte(doc), &head) == nil {
				r.Kind, _ = head.Kind.(string)
				r.Name, _ = head.Metadata.Name.(string)
				r.Namespace, _ = head.Metadata.Namespace.(string)
			}
		}
		if r.Namespace == "" && namespace != "" && r.Kind != "" && !clusterScoped[r.Kind] {
			r.Namespace = namespace
		}
		key := r.Kind + "/" + r.Name
		if r.Namespace != "" {
			key = r.Kind + "/" + r.Namespace + "/" + r.Name
		}
		r.Key = uniqueKey(seen, key)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Resource) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// clusterScoped are the kinds of Kubernetes and of common operators that have no
// namespace. Other kinds are taken as namespaced, as most custom resources are.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "CustomResourceDefinition": true, "StorageClass": true,
	"PriorityClass": true, "ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true, "APIService": true,
	"IngressClass": true, "RuntimeClass": true, "CSIDriver": true, "CSINode": true,
	"VolumeAttachment": true, "CertificateSigningRequest": true, "FlowSchema": true,
	"PriorityLevelConfiguration": true, "PodSecurityPolicy": true, "ClusterIssuer": true,
	"ClusterPolicy": true, "ClusterExtension": true, "ClusterCatalog": true,
}

// uniqueKey returns key, or key#n for its n-th appearance.
func uniqueKey(seen map[string]int, key string) string {
	seen[key]++
	if n := seen[key]; n > 1 {
		return key + "#" + strconv.Itoa(n)
	}
	return key
}

// splitDocs cuts a manifest at its document separators, in order. Each document
// is trimmed of blank lines around it and ends with a newline.
func splitDocs(manifest string) []string {
	manifest = strings.ReplaceAll(manifest, "\r\n", "\n")
	var docs []string
	var cur strings.Builder
	flush := func() {
		if d := trimBlankLines(cur.String()); d != "" {
			docs = append(docs, d)
		}
		cur.Reset()
	}
	for line := range strings.Lines(manifest) {
		body := strings.TrimSuffix(line, "\n")
		if body == "---" || strings.HasPrefix(body, "--- ") || strings.HasPrefix(body, "---\t") {
			flush()
			if rest := strings.TrimSpace(body[3:]); rest != "" {
				cur.WriteString(rest + "\n")
			}
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return docs
}

func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// isBlankDoc reports whether a document holds nothing but blank lines and comments.
func isBlankDoc(doc string) bool {
	for line := range strings.Lines(doc) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

func sourceOf(doc string) string {
	for line := range strings.Lines(doc) {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "# Source:"); ok {
			return strings.TrimSpace(rest)
		}
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
	}
	return ""
}

// MaskManifest masks the secrets in a rendered manifest: every value under data and
// stringData of a Secret, and every value the sensitive-key rule (see MaskValues)
// picks out in any resource. Secrets found that way are also scrubbed from the rest
// of the text. Documents that needed masking are re-encoded as YAML, keeping key
// order and comments; the others keep their text. A document that cannot be parsed
// is masked as a whole. Documents come back in their order, each after "---".
func MaskManifest(manifest string) string {
	m := newMasker(false)
	var docs []*maskedDoc
	for _, d := range splitDocs(manifest) {
		docs = append(docs, m.maskDoc(d))
	}
	r := m.replacer()
	var b strings.Builder
	for _, d := range docs {
		b.WriteString("---\n")
		b.WriteString(d.text(r))
	}
	return b.String()
}

// maskedDoc is one manifest document between the two masking passes: masked where
// it sits after the first, scrubbed of secrets found anywhere by the second.
type maskedDoc struct {
	raw     string
	node    *yamlv3.Node // nil when raw is shown as it is
	changed bool         // node differs from raw
	bad     bool         // raw did not parse and is masked as a whole
	masked  string       // the whole-document token when bad
	// kind, name and namespace are read from node before masking, when headOK
	// (see nodeHead).
	kind, name, namespace string
	headOK                bool
}

// maskDoc parses a document and masks it in place (the first pass).
func (m *masker) maskDoc(raw string) *maskedDoc {
	d := &maskedDoc{raw: raw}
	if m.reveal {
		return d
	}
	dec := yamlv3.NewDecoder(strings.NewReader(raw))
	var n yamlv3.Node
	err := dec.Decode(&n)
	if err == nil {
		// A second document would be shown unmasked from raw.
		var extra yamlv3.Node
		if e := dec.Decode(&extra); !errors.Is(e, io.EOF) {
			err = errors.New("more than one document")
		}
	}
	if errors.Is(err, io.EOF) {
		return d // comments only
	}
	if err != nil {
		d.bad = true
		d.masked = maskToken(m.key, raw)
		return d
	}
	d.node = &n
	d.kind, d.name, d.namespace, d.headOK = nodeHead(&n)
	d.changed = m.maskNode(&n, nodeCtx{})
	return d
}

// nodeHead reads kind, metadata.name and metadata.namespace from a parsed
// document, as splitManifest's parse (YAML 1.1, through JSON) reads them, and
// reports whether it could tell: in anything but the plain case (a mapping of
// plain keys, said once, whose values are strings that read as strings in
// YAML 1.1 too, or absent, with no tags, anchors or merge keys on the way) it
// says no, and the document is parsed again.
func nodeHead(doc *yamlv3.Node) (kind, name, namespace string, ok bool) {
	if doc.Kind != yamlv3.DocumentNode || len(doc.Content) != 1 {
		return "", "", "", false
	}
	top, ok := plainMap(doc.Content[0])
	if !ok {
		return "", "", "", false
	}
	if kind, ok = plainString(top["kind"]); !ok {
		return "", "", "", false
	}
	md := top["metadata"]
	if md == nil {
		return kind, "", "", true
	}
	meta, ok := plainMap(md)
	if !ok {
		return "", "", "", false
	}
	name, okName := plainString(meta["name"])
	namespace, okNS := plainString(meta["namespace"])
	if !okName || !okNS {
		return "", "", "", false
	}
	return kind, name, namespace, true
}

// plainMap returns the entries of a mapping node whose keys are all plain
// strings, each said once; ok is false for anything else.
func plainMap(n *yamlv3.Node) (map[string]*yamlv3.Node, bool) {
	if n.Kind != yamlv3.MappingNode || n.Anchor != "" || n.Style&yamlv3.TaggedStyle != 0 || len(n.Content)%2 != 0 {
		return nil, false
	}
	out := make(map[string]*yamlv3.Node, len(n.Content)/2)
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		key, ok := plainString(k)
		if !ok || k == nil || key == "<<" {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		out[key] = n.Content[i+1]
	}
	return out, true
}

// plainString returns a scalar's value when both YAML 1.2 (this parser) and
// YAML 1.1 (the one it stands in for) read it as a string: quoted, or plain
// starting with a letter and not one of 1.1's booleans. A nil node (absent) is
// "". ok is false for anything else, strings that 1.1 might read otherwise
// among them.
func plainString(n *yamlv3.Node) (string, bool) {
	if n == nil {
		return "", true
	}
	if n.Kind != yamlv3.ScalarNode || n.Anchor != "" || n.Style&yamlv3.TaggedStyle != 0 {
		return "", false
	}
	if n.Style&(yamlv3.DoubleQuotedStyle|yamlv3.SingleQuotedStyle) != 0 {
		return n.Value, true
	}
	if n.Style != 0 || n.ShortTag() != "!!str" || n.Value == "" {
		return "", false
	}
	c := n.Value[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') || yaml11Bools[strings.ToLower(n.Value)] {
		return "", false
	}
	return n.Value, true
}

// yaml11Bools are the plain words YAML 1.1 reads as booleans (lower-cased).
var yaml11Bools = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true, "true": true, "false": true}

// text returns the document's final text, scrubbed with r (the second pass).
func (d *maskedDoc) text(r *strings.Replacer) string {
	if d.bad {
		var b strings.Builder
		if src := sourceOf(d.raw); src != "" {
			b.WriteString("# Source: " + scrub(r, src) + "\n")
		}
		b.WriteString("# this document could not be parsed, so all of it is masked\n")
		b.WriteString(d.masked + "\n")
		return b.String()
	}
	if d.node == nil {
		return scrub(r, d.raw)
	}
	if r != nil && scrubNode(r, d.node) {
		d.changed = true
	}
	if !d.changed {
		return scrub(r, d.raw)
	}
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.node); err != nil || enc.Close() != nil {
		// The node came from the parser and only had scalars replaced, so this
		// should not happen; if it does, show nothing of the document.
		return "# this document could not be re-encoded after masking\n"
	}
	return scrub(r, b.String())
}

// nodeCtx is where a node sits, for the masking rules.
type nodeCtx struct {
	secret bool // under a sensitive key: mask every leaf
	base64 bool // under a Secret's data: leaves are base64
	inRef  bool // a list item, or under a "...Ref" key
}

// maskNode masks a parsed YAML tree in place and reports whether it changed it.
func (m *masker) maskNode(n *yamlv3.Node, c nodeCtx) bool {
	changed := false
	switch n.Kind {
	case yamlv3.DocumentNode:
		for _, ch := range n.Content {
			changed = m.maskNode(ch, c) || changed
		}
	case yamlv3.SequenceNode:
		for _, ch := range n.Content {
			cc := c
			cc.inRef = true
			changed = m.maskNode(ch, cc) || changed
		}
	case yamlv3.MappingNode:
		isSecret := mapValue(n, "kind") == "Secret"
		valueSecret := namesSecret(mapValue(n, "name"), mapValue(n, "key"))
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			cc := nodeCtx{secret: c.secret, base64: c.base64, inRef: lastWord(k) == "ref"}
			switch {
			case isSecret && k == "data":
				cc.secret, cc.base64 = true, true
			case isSecret && k == "stringData":
				cc.secret = true
			case sensitiveKey(k, c.inRef), valueSecret && k == "value":
				cc.secret = true
			}
			changed = m.maskNode(v, cc) || changed
		}
	case yamlv3.ScalarNode:
		if !c.secret {
			return false
		}
		switch n.ShortTag() {
		case "!!bool", "!!null":
			return false
		}
		tok := ""
		if c.base64 {
			tok = m.maskBase64(n.Value)
		} else {
			tok = m.mask(n.Value)
		}
		*n = yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: tok,
			HeadComment: n.HeadComment, FootComment: n.FootComment, Line: n.Line, Column: n.Column}
		return true
	case yamlv3.AliasNode:
		if !c.secret {
			return false
		}
		v := n.Value
		if n.Alias != nil && n.Alias.Kind == yamlv3.ScalarNode {
			v = n.Alias.Value
		}
		*n = yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: m.mask(v)}
		return true
	}
	return changed
}

// mapValue returns the scalar value under key in a mapping node, or nil.
func mapValue(n *yamlv3.Node, key string) any {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yamlv3.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return nil
}

// scrubNode replaces remembered secrets in the scalar values and comments of a
// tree, and reports whether it replaced any. Mapping keys are left alone: they name
// things and do not hold secrets.
func scrubNode(r *strings.Replacer, n *yamlv3.Node) bool {
	changed := false
	fix := func(s *string) {
		if *s == "" {
			return
		}
		if v := r.Replace(*s); v != *s {
			*s = v
			changed = true
		}
	}
	fix(&n.HeadComment)
	fix(&n.LineComment)
	fix(&n.FootComment)
	switch n.Kind {
	case yamlv3.ScalarNode:
		old := n.Value
		fix(&n.Value)
		if n.Value != old {
			n.Tag = "!!str"
		}
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			fix(&k.HeadComment)
			fix(&k.LineComment)
			fix(&k.FootComment)
			if scrubNode(r, n.Content[i+1]) {
				changed = true
			}
		}
	default:
		for _, ch := range n.Content {
			if scrubNode(r, ch) {
				changed = true
			}
		}
	}
	return changed
}
