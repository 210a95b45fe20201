package render

import (
	"fmt"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/storage"
)

// The layout table's columns, by name.
const (
	LayoutSecret = "SECRET"
	LayoutRole   = "ROLE"
	LayoutState  = "STATE"
	LayoutBytes  = "BYTES"
	LayoutShare  = "OF 1 MiB"
	LayoutHash   = "HASH"
	LayoutOwner  = "OWNER"
)

// SecretState is what a stored object's state means, with its sign.
func SecretState(st storage.SecretState) Cell {
	switch st {
	case storage.StateOK:
		return Cell{Text: string(st), Meaning: OK, Mark: "✓"}
	case storage.StateMissing, storage.StateCorrupt, storage.StateWrongTyp:
		return Cell{Text: string(st), Meaning: Failed, Mark: "✗"}
	case storage.StateOrphan:
		return Cell{Text: string(st), Meaning: Warning, Mark: "!"}
	}
	return Cell{Text: string(st), Meaning: Warning, Mark: "?"}
}

// LayoutTable is the table of a revision's stored objects: its index, its
// chunks in order and the orphans of its key. A missing object has no size,
// hash or owner ("-"); an index has no hash in its name and no owner ("n/a").
func LayoutTable(l *storage.Layout) Table {
	t := Table{Columns: []Column{
		{Name: LayoutSecret}, {Name: LayoutRole}, {Name: LayoutState},
		{Name: LayoutBytes, Right: true}, {Name: LayoutShare, Right: true},
		{Name: LayoutHash}, {Name: LayoutOwner},
	}}
	add := func(role string, s storage.SecretInfo) {
		t.Rows = append(t.Rows, layoutRow(role, s))
	}
	add("index", l.Index)
	for i, c := range l.Chunks {
		add(fmt.Sprintf("chunk %d", i+2), c)
	}
	for _, o := range l.Orphans {
		add("orphan", o)
	}
	return t
}

func layoutRow(role string, s storage.SecretInfo) []Cell {
	row := []Cell{Text(s.Name), Text(role), SecretState(s.State)}
	switch {
	case s.State == storage.StateMissing:
		none := Cell{Text: "-", Meaning: Muted}
		row = append(row, none, Cell{Text: "(does not exist)", Meaning: Failed}, none, none)
	default:
		row = append(row, Text(human.Bytes(int64(s.Bytes))), Text(fmt.Sprintf("%.0f%%", s.Share*100)))
		if s.Role == storage.TypeIndex {
			na := Cell{Text: "n/a", Meaning: Muted}
			return append(row, na, na)
		}
		row = append(row, check(s.HashOK, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))
	}
	return row
}

func check(ok bool, yes, no string) Cell {
	if ok {
		return Cell{Text: yes, Meaning: OK, Mark: "✓"}
	}
	return Cell{Text: no, Meaning: Failed, Mark: "✗"}
}
