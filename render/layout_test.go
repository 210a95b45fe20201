package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

func TestLayoutTable(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	l := &storage.Layout{
		Index: storage.SecretInfo{Name: "idx", Role: storage.TypeIndex, State: storage.StateOK, Bytes: 100, Share: 0.5, Created: now.Add(-3 * time.Hour)},
		Chunks: []storage.SecretInfo{
			{Name: "c2", Role: storage.TypeChunk, State: storage.StateOK, Bytes: 10, Share: 0.25, HashOK: true, Owned: true},
			{Name: "c3", Role: storage.TypeChunk, State: storage.StateMissing, Created: now},
			{Name: "c4", Role: storage.TypeChunk, State: storage.StateCorrupt, Bytes: 10, HashOK: false, Owned: true},
		},
		Orphans: []storage.SecretInfo{{Name: "o", Role: storage.TypeChunk, State: storage.StateOrphan, Bytes: 10, HashOK: true, Owned: false}},
	}
	tb := LayoutTable(l, kube.DriverChunked, Options{Now: now})
	type want struct {
		row     int
		col     string
		text    string
		meaning Meaning
	}
	for _, w := range []want{
		{0, LayoutSecret, "idx", Plain}, {0, LayoutRole, "index", Plain}, {0, LayoutHash, "n/a", Muted}, {0, LayoutOwner, "n/a", Muted},
		{0, LayoutShare, "50%", Plain}, {0, LayoutState, "ok", OK}, {0, LayoutAge, "3h", Plain},
		{1, LayoutRole, "chunk 2", Plain}, {1, LayoutState, "ok", OK}, {1, LayoutHash, "ok", OK}, {1, LayoutOwner, "ok", OK},
		{2, LayoutRole, "chunk 3", Plain}, {2, LayoutState, "missing", Failed}, {2, LayoutSize, "-", Muted}, {2, LayoutHash, "-", Muted},
		{2, LayoutOwner, "-", Muted}, {2, LayoutShare, "(does not exist)", Failed}, {2, LayoutAge, "-", Muted},
		{3, LayoutState, "corrupt", Failed}, {3, LayoutHash, "MISMATCH", Failed}, {3, LayoutOwner, "ok", OK},
		{4, LayoutRole, "orphan", Plain}, {4, LayoutState, "orphan", Warning}, {4, LayoutOwner, "missing", Failed},
	} {
		c := tb.Cell(w.row, w.col)
		if c.Text != w.text || c.Meaning != w.meaning {
			t.Errorf("row %d %s = %q/%v, want %q/%v", w.row, w.col, c.Text, c.Meaning, w.text, w.meaning)
		}
	}
	if got := tb.Cell(3, LayoutHash).Marked(); got != "✗ MISMATCH" {
		t.Errorf("marked hash = %q", got)
	}
	if len(tb.Rows) != 5 || len(tb.Rows[0]) != len(tb.Columns) {
		t.Errorf("%d rows of %d cells under %d columns, want 5 rows of one cell a column", len(tb.Rows), len(tb.Rows[0]), len(tb.Columns))
	}
}

// TestLayoutTableOfHelmsRecord: a record of Helm's ConfigMaps store is one
// ConfigMap, titled so, whose role is "record", with its type and no hash or
// owner.
func TestLayoutTableOfHelmsRecord(t *testing.T) {
	l := &storage.Layout{Index: storage.SecretInfo{Name: "sh.helm.release.v1.web.v2", Role: storage.RoleRecord, Type: "", State: storage.StateOK, Bytes: 2048, Share: 0.002}}
	tb := LayoutTable(l, kube.DriverConfigMap, Options{})
	if tb.Index(LayoutSecret) >= 0 || tb.Cell(0, LayoutConfigMap).Text != "sh.helm.release.v1.web.v2" {
		t.Errorf("columns %v, want the object's column titled %s", tb.Head(), LayoutConfigMap)
	}
	for col, text := range map[string]string{LayoutRole: "record", LayoutSize: "2.0 KiB", LayoutShare: "0%", LayoutType: "-", LayoutState: "ok"} {
		if got := tb.Cell(0, col).Text; got != text {
			t.Errorf("%s = %q, want %q", col, got, text)
		}
	}
	if tb.Index(LayoutHash) >= 0 || tb.Index(LayoutOwner) >= 0 {
		t.Errorf("columns %v: a record of Helm's has no hash or owner to check", tb.Head())
	}
	if ch := LayoutTable(l, kube.DriverChunked, Options{}); ch.Index(LayoutType) >= 0 || ch.Index(LayoutHash) < 0 {
		t.Errorf("chunked columns %v, want the hash and no type", ch.Head())
	}
}

// TestLayoutTotals: a chunked revision is weighed against Helm's Secrets
// driver, one of Helm's own against its store's limit; each verdict means OK
// or Failed.
func TestLayoutTotals(t *testing.T) {
	value := func(ts []Total, label string) Cell {
		for _, x := range ts {
			if x.Label == label {
				return x.Value
			}
		}
		return Cell{Text: "<none>"}
	}
	chunked := &storage.Layout{Chunks: make([]storage.SecretInfo, 2), StoredBytes: 2000, DecodedBytes: 5000, HelmSecretBytes: 2700, HelmSecretFits: true}
	ts := LayoutTotals(chunked, kube.DriverChunked)
	for label, want := range map[string]Cell{
		"Secrets":             Text("3"),
		"Stored (gzip)":       Text("2.0 KiB (2000 bytes)"),
		"Decompressed (JSON)": Text("4.9 KiB (5000 bytes, 2.5× the stored size)"),
		"Helm Secrets driver": {Text: "2.6 KiB of 1.0 MiB (base64 of gzip): fits in one Secret", Meaning: OK},
	} {
		if got := value(ts, label); got != want {
			t.Errorf("chunked %s = %+v, want %+v", label, got, want)
		}
	}
	chunked.HelmSecretBytes, chunked.HelmSecretFits, chunked.DecodedBytes = storage.HelmRecordLimit+1024, false, 0
	ts = LayoutTotals(chunked, kube.DriverChunked)
	if got := value(ts, "Helm Secrets driver"); got.Meaning != Failed || got.Text != "1.0 MiB of 1.0 MiB (base64 of gzip): would NOT fit in one Secret (1.0 KiB over)" {
		t.Errorf("too big for Helm's driver: %+v", got)
	}
	if got := value(ts, "Decompressed (JSON)"); got.Text != "<none>" {
		t.Errorf("not measured, yet decompressed %+v", got)
	}

	helms := &storage.Layout{StoredBytes: storage.HelmRecordLimit / 2, HelmSecretFits: true}
	ts = LayoutTotals(helms, kube.DriverConfigMap)
	if got := value(ts, "ConfigMaps"); got.Text != "1" {
		t.Errorf("ConfigMaps = %+v", got)
	}
	if got := value(ts, "Limit"); got.Meaning != OK || got.Text != "512 KiB of 1.0 MiB per ConfigMap (50%): 512 KiB to spare" {
		t.Errorf("limit = %+v", got)
	}
	if value(ts, "Helm Secrets driver").Text != "<none>" || value(ts, "Stored (base64 of gzip)").Text == "<none>" {
		t.Errorf("Helm's record weighed as a chunked one: %+v", ts)
	}
	helms.StoredBytes, helms.HelmSecretFits = storage.HelmRecordLimit+1, false
	if got := value(LayoutTotals(helms, kube.DriverSecret), "Limit"); got.Meaning != Failed || !strings.HasSuffix(got.Text, "over the limit: the API server refuses it") {
		t.Errorf("over the limit: %+v", got)
	}
}

// TestPartsTable: an empty part is left out, each part's share is of the
// parts' gzip bytes, and a part with no largest item says so.
func TestPartsTable(t *testing.T) {
	tb := PartsTable([]storage.Part{
		{Name: "chart files", Items: 2, JSONBytes: 4096, GzipBytes: 300, LargestOne: "a.json (10 bytes)"},
		{Name: "chart CRDs", Items: 0, JSONBytes: 4, GzipBytes: 28},
		{Name: "notes", Items: 1, JSONBytes: 50, GzipBytes: 72},
	})
	want := [][]string{{"chart files", "2", "4.0 KiB", "300 B", "75%", "a.json (10 bytes)"}, {"notes", "1", "50 B", "72 B", "18%", "-"}}
	if got := tb.Texts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parts %q, want %q", got, want)
	}
	if n := len(ShownParts([]storage.Part{{Items: 0}, {Items: 3}})); n != 1 {
		t.Errorf("%d parts shown, want the one that is not empty", n)
	}
}

// TestLayoutProblems: a revision that cannot be read says why first, then
// each wrong state once, in the layout's order; a sound one has none.
func TestLayoutProblems(t *testing.T) {
	l := &storage.Layout{
		Index:       storage.SecretInfo{State: storage.StateOK},
		Chunks:      []storage.SecretInfo{{State: storage.StateCorrupt}, {State: storage.StateMissing}, {State: storage.StateCorrupt}},
		Orphans:     []storage.SecretInfo{{State: storage.StateOrphan}},
		DecodeError: "corrupt release record:\n chunk missing",
	}
	got := LayoutProblems(l)
	want := []LayoutProblem{
		{Text: "This revision cannot be read: corrupt release record: chunk missing"},
		{State: storage.StateCorrupt, Text: storage.ProblemHashMismatch.Explain()},
		{State: storage.StateMissing, Text: storage.ProblemMissingChunk.Explain()},
		{State: storage.StateOrphan, Text: storage.ProblemOrphanChunk.Explain()},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("problems\n%q\nwant\n%q", got, want)
	}
	if got := LayoutProblems(&storage.Layout{Index: storage.SecretInfo{State: storage.StateOK}}); len(got) != 0 {
		t.Errorf("a sound revision has problems %q", got)
	}
}
