package revdiff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// PlanSummarizeOver is the size past which a value is summarised in the diff of
// an operation's plan (Options.SummarizeOver): a ConfigMap of 1.8 MB of dashboards
// would otherwise print every line of it before the question.
const PlanSummarizeOver = 32 << 10

// summarizePair summarises, in the texts of one resource (or section) in the two
// revisions, when they differ (equal texts show no diff), every scalar value longer
// than over bytes, and returns the texts and
// how many values it summarised. Both texts are then written out by the same YAML
// encoder, so that the diff shows what changed, not two formats; a pair that holds
// no such value, or a text that does not parse, is left as it is.
func summarizePair(old, new string, over int) (string, string, int) {
	if over <= 0 || old == new || len(old) <= over && len(new) <= over {
		return old, new, 0
	}
	a, na, okA := summarizeDoc(old, over)
	b, nb, okB := summarizeDoc(new, over)
	if !okA || !okB || na+nb == 0 {
		return old, new, 0
	}
	return a, b, na + nb
}

// summarizeDoc parses text, a YAML document (or "" for a side that lacks it),
// replaces every scalar longer than over bytes with its summary and writes it out
// again. ok is false when text does not parse as one document.
func summarizeDoc(text string, over int) (out string, n int, ok bool) {
	if strings.TrimSpace(text) == "" {
		return text, 0, true
	}
	var doc yamlv3.Node
	dec := yamlv3.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		return text, 0, false
	}
	var extra yamlv3.Node
	if dec.Decode(&extra) == nil {
		return text, 0, false
	}
	n = summarizeNode(&doc, over)
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if enc.Encode(&doc) != nil || enc.Close() != nil {
		return text, 0, false
	}
	return b.String(), n, true
}

// summarizeNode replaces the scalars of n longer than over bytes with their
// summaries, and counts them.
func summarizeNode(n *yamlv3.Node, over int) int {
	if n.Kind == yamlv3.ScalarNode {
		if len(n.Value) <= over {
			return 0
		}
		*n = yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: summary(n.Value),
			HeadComment: n.HeadComment, LineComment: n.LineComment, FootComment: n.FootComment}
		return 1
	}
	c := 0
	for _, ch := range n.Content {
		c += summarizeNode(ch, over)
	}
	return c
}

// summary stands for a large value in a plan's diff: its size and lines, which
// say how it changed, and the start of its SHA-256, which says whether it did. A
// masked secret is a short token by then and is never summarised: the hash is of
// text already shown masked.
func summary(v string) string {
	sum := sha256.Sum256([]byte(v))
	n := strings.Count(v, "\n")
	if !strings.HasSuffix(v, "\n") {
		n++
	}
	return fmt.Sprintf("<%d bytes in %d lines, sha256 %s; `chunkview diff` shows it whole>", len(v), n, hex.EncodeToString(sum[:6]))
}
