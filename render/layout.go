package render

import (
	"fmt"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The layout table's columns, by name. The first is LayoutSecret, or
// LayoutConfigMap for a record of Helm's ConfigMaps store.
const (
	LayoutSecret    = "SECRET"
	LayoutConfigMap = "CONFIGMAP"
	LayoutRole      = "ROLE"
	LayoutType      = "TYPE"
	LayoutSize      = "SIZE"
	LayoutShare     = "OF 1 MiB"
	LayoutHash      = "HASH"
	LayoutOwner     = "OWNER REF"
	LayoutState     = "STATE"
	LayoutAge       = "AGE"
)

// SecretState is what a stored object's state means, with its sign. Its word
// is the state's own, as `inspect -o json` gives it.
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

// LayoutRow is one stored object of a revision and the role it plays there.
type LayoutRow struct {
	// Role is "index", "chunk N" (N from 2, as chunk Secrets are named),
	// "orphan", or "record" for Helm's own record.
	Role string
	Info storage.SecretInfo
}

// LayoutRows are a revision's stored objects in the order a layout shows them:
// its index (or Helm's record), its chunks in order, the orphans of its key.
func LayoutRows(l *storage.Layout) []LayoutRow {
	role := "index"
	if l.Index.Role == storage.RoleRecord {
		role = storage.RoleRecord
	}
	rows := []LayoutRow{{Role: role, Info: l.Index}}
	for i, c := range l.Chunks {
		rows = append(rows, LayoutRow{Role: fmt.Sprintf("chunk %d", i+2), Info: c})
	}
	for _, o := range l.Orphans {
		rows = append(rows, LayoutRow{Role: "orphan", Info: o})
	}
	return rows
}

// LayoutTable is the table of a revision's stored objects (LayoutRows), kept by
// store driver: a chunked record's with their hash and owner checks, Helm's
// record with its type. A missing object has no size, hash, owner or age ("-"); an
// index, or Helm's record, has no hash in its name and no owner to point to
// ("n/a"). STATE is the state's word alone: each printer puts the object's
// Detail where it fits.
func LayoutTable(l *storage.Layout, driver string, o Options) Table {
	object := LayoutSecret
	if driver == kube.DriverConfigMap {
		object = LayoutConfigMap
	}
	t := Table{Columns: []Column{
		{Name: object}, {Name: LayoutRole}, {Name: LayoutType}, {Name: LayoutSize, Right: true},
		{Name: LayoutShare}, {Name: LayoutHash}, {Name: LayoutOwner, Short: "OWNER"},
		{Name: LayoutState}, {Name: LayoutAge, Right: true},
	}}
	for _, r := range LayoutRows(l) {
		t.Rows = append(t.Rows, layoutRow(r, o))
	}
	if driver == kube.DriverSecret || driver == kube.DriverConfigMap {
		// One record: no hash or owner, which only chunks carry; its type,
		// which a chunked record's labels fix, instead.
		return t.Select(object, LayoutRole, LayoutType, LayoutSize, LayoutShare, LayoutState, LayoutAge)
	}
	return t.Select(object, LayoutRole, LayoutSize, LayoutShare, LayoutHash, LayoutOwner, LayoutState, LayoutAge)
}

func layoutRow(r LayoutRow, o Options) []Cell {
	s := r.Info
	row := []Cell{Text(s.Name), Text(r.Role), Text(human.OrUnknown(s.Type))}
	if s.State == storage.StateMissing {
		none := Cell{Text: "-", Meaning: Muted}
		return append(row, none, Cell{Text: "(does not exist)", Meaning: Failed}, none, none, SecretState(s.State), none)
	}
	row = append(row, Text(human.Bytes(int64(s.Bytes))), Text(fmt.Sprintf("%.0f%%", s.Share*100)))
	if r.Role == "index" {
		na := Cell{Text: "n/a", Meaning: Muted}
		row = append(row, na, na)
	} else {
		row = append(row, check(s.HashOK, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))
	}
	return append(row, SecretState(s.State), Text(human.Age(o.Now, s.Created)))
}

func check(ok bool, yes, no string) Cell {
	if ok {
		return Cell{Text: yes, Meaning: OK, Mark: "✓"}
	}
	return Cell{Text: no, Meaning: Failed, Mark: "✗"}
}

// Total is one line of a layout's totals: what is measured, and its value.
type Total struct {
	Label string
	Value Cell
}

// LayoutTotals are what a revision kept by store driver takes: its objects,
// its stored and decompressed bytes, and the room it has in its store (Helm's
// own) or would have in Helm's Secrets driver (chunked). The decompressed
// size is left out until the payload is measured.
func LayoutTotals(l *storage.Layout, driver string) []Total {
	helms := driver == kube.DriverSecret || driver == kube.DriverConfigMap
	object := "Secret"
	if driver == kube.DriverConfigMap {
		object = "ConfigMap"
	}
	stored := "Stored (gzip)"
	if helms {
		stored = "Stored (base64 of gzip)"
	}
	out := []Total{
		{object + "s", Text(fmt.Sprint(1 + len(l.Chunks)))},
		{stored, Text(fmt.Sprintf("%s (%d bytes)", human.Bytes(int64(l.StoredBytes)), l.StoredBytes))},
	}
	if l.DecodedBytes > 0 {
		ratio := float64(l.DecodedBytes) / float64(max(l.StoredBytes, 1))
		out = append(out, Total{"Decompressed (JSON)", Text(fmt.Sprintf("%s (%d bytes, %.1f× the stored size)", human.Bytes(int64(l.DecodedBytes)), l.DecodedBytes, ratio))})
	}
	limit := int64(storage.HelmRecordLimit)
	switch {
	case helms:
		share := fmt.Sprintf("%s of %s per %s (%.0f%%): ", human.Bytes(int64(l.StoredBytes)), human.Bytes(limit), object, float64(l.StoredBytes)*100/float64(limit))
		v := Cell{Text: share + human.Bytes(max(limit-int64(l.StoredBytes), 0)) + " to spare", Meaning: OK}
		if !l.HelmSecretFits {
			v = Cell{Text: share + "over the limit: the API server refuses it", Meaning: Failed}
		}
		out = append(out, Total{"Limit", v})
	case l.HelmSecretBytes > 0:
		size := fmt.Sprintf("%s of %s (base64 of gzip): ", human.Bytes(int64(l.HelmSecretBytes)), human.Bytes(limit))
		v := Cell{Text: size + "fits in one Secret", Meaning: OK}
		if !l.HelmSecretFits {
			v = Cell{Text: size + fmt.Sprintf("would NOT fit in one Secret (%s over)", human.Bytes(int64(l.HelmSecretBytes)-limit)), Meaning: Failed}
		}
		out = append(out, Total{"Helm Secrets driver", v})
	}
	return out
}

// The parts table's columns, by name.
const (
	PartName    = "PART"
	PartItems   = "ITEMS"
	PartJSON    = "JSON"
	PartGzip    = "GZIP"
	PartShare   = "SHARE"
	PartLargest = "LARGEST"
)

// PartsTitle and PartsNote head the table of what takes a release's space.
const (
	PartsTitle = "What takes the space"
	PartsNote  = "Each part compressed on its own, so they add up to more than the whole."
)

// ShownParts are the parts a table of them shows, in their order: an empty
// part, which costs a few bytes of JSON and says nothing, is left out.
func ShownParts(parts []storage.Part) []storage.Part {
	var out []storage.Part
	for _, p := range parts {
		if p.Items > 0 {
			out = append(out, p)
		}
	}
	return out
}

// PartsTable is what takes a release's space, part by part (storage.Breakdown),
// largest first as given, a row for each of ShownParts; SHARE is the part's
// gzip bytes among all the parts'.
func PartsTable(parts []storage.Part) Table {
	t := Table{Columns: []Column{
		{Name: PartName}, {Name: PartItems, Right: true}, {Name: PartJSON, Right: true},
		{Name: PartGzip, Right: true}, {Name: PartShare}, {Name: PartLargest},
	}}
	total := 0
	for _, p := range parts {
		total += p.GzipBytes
	}
	for _, p := range ShownParts(parts) {
		t.Rows = append(t.Rows, []Cell{
			Text(p.Name), Text(fmt.Sprint(p.Items)), Text(human.Bytes(int64(p.JSONBytes))), Text(human.Bytes(int64(p.GzipBytes))),
			Text(fmt.Sprintf("%.0f%%", float64(p.GzipBytes)*100/float64(max(total, 1)))), Text(human.OrUnknown(p.LargestOne)),
		})
	}
	return t
}

// LayoutProblem is one thing wrong with a revision's stored objects.
type LayoutProblem struct {
	// State is the objects' state it explains; "" for the revision that
	// cannot be read.
	State storage.SecretState
	// Text says what it means and what to do; a printer leads it with
	// State's word (SecretState).
	Text string
}

// LayoutProblems say what is wrong with a revision's stored objects: that it
// cannot be read and why, then each state found wrong (in LayoutRows' order,
// once) with what it means and what to do. None for a sound revision.
func LayoutProblems(l *storage.Layout) []LayoutProblem {
	var out []LayoutProblem
	if l.Broken() {
		out = append(out, LayoutProblem{Text: "This revision cannot be read: " + OneLine(l.DecodeError)})
	}
	seen := map[storage.SecretState]bool{}
	for _, r := range LayoutRows(l) {
		st := r.Info.State
		k := stateProblem(st)
		if k == "" || seen[st] {
			continue
		}
		seen[st] = true
		out = append(out, LayoutProblem{State: st, Text: k.Explain()})
	}
	return out
}

// stateProblem is the verification problem that explains an object's state;
// "" for a sound one.
func stateProblem(st storage.SecretState) storage.ProblemKind {
	switch st {
	case storage.StateMissing:
		return storage.ProblemMissingChunk
	case storage.StateCorrupt:
		return storage.ProblemHashMismatch
	case storage.StateOrphan:
		return storage.ProblemOrphanChunk
	case storage.StateWrongTyp:
		return storage.ProblemWrongType
	}
	return ""
}
