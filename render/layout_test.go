package render

import (
	"testing"

	"github.com/chunkview/chunkview/storage"
)

func TestLayoutTable(t *testing.T) {
	l := &storage.Layout{
		Index: storage.SecretInfo{Name: "idx", Role: storage.TypeIndex, State: storage.StateOK, Bytes: 100, Share: 0.5},
		Chunks: []storage.SecretInfo{
			{Name: "c2", State: storage.StateOK, Bytes: 10, Share: 0.25, HashOK: true, Owned: true},
			{Name: "c3", State: storage.StateMissing},
			{Name: "c4", State: storage.StateCorrupt, Bytes: 10, HashOK: false, Owned: true},
		},
		Orphans: []storage.SecretInfo{{Name: "o", State: storage.StateOrphan, Bytes: 10, HashOK: true, Owned: false}},
	}
	tb := LayoutTable(l)
	type want struct {
		row     int
		col     string
		text    string
		meaning Meaning
	}
	for _, w := range []want{
		{0, LayoutRole, "index", Plain}, {0, LayoutHash, "n/a", Muted}, {0, LayoutOwner, "n/a", Muted}, {0, LayoutShare, "50%", Plain},
		{1, LayoutRole, "chunk 2", Plain}, {1, LayoutState, "ok", OK}, {1, LayoutHash, "ok", OK}, {1, LayoutOwner, "ok", OK},
		{2, LayoutState, "missing", Failed}, {2, LayoutBytes, "-", Muted}, {2, LayoutHash, "-", Muted}, {2, LayoutShare, "(does not exist)", Failed},
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
}
