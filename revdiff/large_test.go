package revdiff

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lines returns n lines of text that differ from seed to seed.
func lines(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d: %x\n", i, r.Uint64())
	}
	return b.String()
}

// block is a YAML block scalar of text under key, indented for a ConfigMap's
// data.
func block(key, text string) string {
	return "  " + key + ": |\n    " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n    ") + "\n"
}

// TestSummarizeLargeValues: with SummarizeOver, a plan's diff shows a value past
// the bound as its size, lines and SHA-256 (written out here by hand), never its
// lines, whether it changed (a changed summary), came with an added object, or
// sat in the values; a value within the bound is diffed as ever, and equal large
// values are no change. A Secret's large data stays masked: a token, not a
// summary, and no hash of it is shown. Without SummarizeOver, every line shows.
func TestSummarizeLargeValues(t *testing.T) {
	const over = 4096
	big1, big2 := lines(1, 400), lines(2, 400)
	secret := strings.Repeat("s3cr3t-", 1000)
	from := testRelease(1,
		doc("ConfigMap", "ns", "dash", "data:\n"+block("dash.json", big1)+"  small: \"one\"\n")+
			doc("ConfigMap", "ns", "same", "data:\n"+block("same.json", big1))+
			doc("Secret", "ns", "db", "data:\n  blob: "+base64.StdEncoding.EncodeToString([]byte(secret))+"\n"),
		map[string]any{"huge": big1})
	to := testRelease(2,
		doc("ConfigMap", "ns", "dash", "data:\n"+block("dash.json", big2)+"  small: \"two\"\n")+
			doc("ConfigMap", "ns", "same", "data:\n"+block("same.json", big1))+
			doc("ConfigMap", "ns", "added", "data:\n"+block("new.json", big2))+
			doc("Secret", "ns", "db", "data:\n  blob: "+base64.StdEncoding.EncodeToString([]byte(secret+"x"))+"\n"),
		map[string]any{"huge": big2})

	res, err := Diff(from, to, Options{SummarizeOver: over})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Unified()
	sha := func(v string) string { s := sha256.Sum256([]byte(v)); return hex.EncodeToString(s[:6]) }
	for _, want := range []string{
		fmt.Sprintf("-  dash.json: <%d bytes in 400 lines, sha256 %s;", len(big1), sha(big1)),
		fmt.Sprintf("+  dash.json: <%d bytes in 400 lines, sha256 %s;", len(big2), sha(big2)),
		fmt.Sprintf("+  new.json: <%d bytes in 400 lines, sha256 %s;", len(big2), sha(big2)),
		"-  small: \"one\"", "+  small: \"two\"",
		fmt.Sprintf("+huge: <%d bytes in 400 lines, sha256 %s;", len(big2), sha(big2)),
		"longer than 4096 bytes shown as size and hash",
		"<masked:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan's diff lacks %q:\n%.3000s", want, text)
		}
	}
	for _, never := range []string{"line 7: ", secret[:40], sha(secret), sha(secret + "x")} {
		if strings.Contains(text, never) {
			t.Errorf("the plan's diff shows %q", never)
		}
	}
	// Each side of dash.json, of the values and the computed values, and the
	// added new.json; not the unchanged same.json, whose diff is empty.
	if res.Summarized != 7 || res.SummarizedOver != over {
		t.Errorf("summarized %d values over %d, want 7 over %d", res.Summarized, res.SummarizedOver, over)
	}
	for _, c := range res.Resources {
		if c.Key == "ConfigMap/ns/same" && (c.Change != Unchanged || c.Diff != "") {
			t.Errorf("equal large values: %v %q", c.Change, c.Diff)
		}
	}

	whole, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := whole.Unified(); !strings.Contains(w, "line 7: ") || whole.Summarized != 0 || strings.Contains(w, "sha256") {
		t.Errorf("without SummarizeOver, want every line:\n%.600s", w)
	}
}
