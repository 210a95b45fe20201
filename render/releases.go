package render

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// Options say for which front end a release or history table is rendered.
type Options struct {
	// Now is the time ages are told from.
	Now time.Time
	// Screen renders for the TUI, which reads summaries after it lists
	// rows and draws meanings in colour: a summary not read yet is "…" (the
	// CLI, which has read all it will, says "?"); STATUS says what HEALTH
	// would when that needs attention, since the screen has no HEALTH
	// column; STORAGE NS is "·" where a release keeps its records in its own
	// namespace; FILL says "no limit" for a store that has none.
	Screen bool
}

// ReleaseColumns are the columns of a release table, the widest set: each
// front end shows those it has room and use for (Table.Select). The CLI's
// titles are the names; the TUI's the short ones.
var ReleaseColumns = []Column{
	{Name: "NAME"}, {Name: "NAMESPACE"}, {Name: "STORAGE NS"}, {Name: "REVISION", Short: "REV", Right: true},
	{Name: "STATUS"}, {Name: "CHART"}, {Name: "APP VERSION", Short: "APP"}, {Name: "UPDATED", Short: "AGE", Right: true},
	{Name: "HEALTH"}, {Name: "FILL"}, {Name: "STORE"}, {Name: "CHUNKS", Right: true}, {Name: "SIZE", Right: true},
	{Name: "REVISIONS", Right: true}, {Name: "HISTORY", Right: true}, {Name: "LAST DEPLOYED"},
}

// ReleaseTable renders the releases rows, one row each, from its latest
// revision: the columns of ReleaseColumns.
func ReleaseTable(rows []kube.ReleaseRow, opts Options) Table {
	t := Table{Columns: ReleaseColumns}
	for _, rr := range rows {
		t.Rows = append(t.Rows, ReleaseRow(rr, opts))
	}
	return t
}

// ReleaseRow is one release's row of a release table, in ReleaseColumns'
// order.
func ReleaseRow(rr kube.ReleaseRow, opts Options) []Cell {
	l := rr.Latest
	status := StatusCell(l)
	if opts.Screen {
		status = RevisionState(l)
	}
	chart, app, chunks := summaryCells(l, opts)
	return []Cell{
		Text(l.Name), Text(ReleaseNamespace(l)), storageNS(l, opts), Text(strconv.Itoa(l.Revision)),
		status, chart, app, Text(human.Age(opts.Now, l.Updated)),
		Health(l), FillCell(l, opts), Text(StoreLabel(l.Driver)), chunks, sizeCell(l, opts),
		Text(strconv.Itoa(rr.Revisions)), Text(HistorySize(rr)), Text(human.Timestamp(l.Updated)),
	}
}

// ReleaseNamespace is where a release's resources live: from its summary,
// else where its records are; "?" when the row was read from an index's
// slice alone, which does not hold it.
func ReleaseNamespace(l kube.RevisionRow) string {
	switch {
	case l.Summary.Namespace != "":
		return l.Summary.Namespace
	case l.NamespaceUnknown || l.StorageNamespace == "":
		return "?"
	}
	return l.StorageNamespace
}

// storageNS is the STORAGE NS cell: muted where the records live in the
// release's own namespace, as most do, which a screen says with "·".
func storageNS(l kube.RevisionRow, opts Options) Cell {
	if l.StorageNamespace != ReleaseNamespace(l) {
		return Text(l.StorageNamespace)
	}
	if opts.Screen {
		return Cell{Text: "·", Meaning: Muted}
	}
	return Cell{Text: l.StorageNamespace, Meaning: Muted}
}

// StoreLabel names the store d ("" is the chunked one, the default).
func StoreLabel(d string) string {
	if d == "" {
		d = kube.DriverChunked
	}
	return kube.DriverLabel(d)
}

// isHelmStore reports whether d is one of Helm's own drivers, which keep each
// revision whole in one object: there are no chunks to count.
func isHelmStore(d string) bool { return d == kube.DriverSecret || d == kube.DriverConfigMap }

// unread is what a cell of a summary that was not read says: "…" on a
// screen still reading it, "?" where it will not be (the CLI, a broken row).
func unread(l kube.RevisionRow, opts Options) string {
	if opts.Screen && !l.Broken {
		return "…"
	}
	return "?"
}

// summaryCells are a latest revision's CHART, APP VERSION and CHUNKS: "?"
// (or "…", see unread) when its summary is not known. The CLI, which shows
// STATUS and HEALTH apart, says a broken revision in its CHART.
func summaryCells(l kube.RevisionRow, opts Options) (chart, app, chunks Cell) {
	if opts.Screen {
		return ChartCell(l, opts), Text(KnownOr(l, l.Summary.AppVersion, opts)), screenChunks(l, opts)
	}
	dash := Cell{Text: "-", Meaning: Muted}
	switch {
	case l.Status == "pending-index":
		// Nothing but an interrupted create's pending index: no revision.
		return dash, dash, dash
	case l.Broken:
		return Cell{Text: "<broken>", Meaning: Failed}, dash, dash
	case !l.Known || l.Summary.Chart == "" && l.Summary.Chunks <= 0:
		return Text("?"), Text("?"), Text("?")
	}
	return ChartCell(l, opts), Text(human.OrUnknown(l.Summary.AppVersion)), chunkCount(l.Driver, l.Summary.Chunks)
}

// screenChunks is CHUNKS on a screen: "-" for Helm's stores at once.
func screenChunks(l kube.RevisionRow, opts Options) Cell {
	if isHelmStore(l.Driver) {
		return Cell{Text: "-", Meaning: Muted}
	}
	return Text(KnownOr(l, strconv.Itoa(l.Summary.Chunks), opts))
}

// chunkCount is the CHUNKS cell: "-" for Helm's own stores, whose record is
// one object.
func chunkCount(driver string, n int) Cell {
	if isHelmStore(driver) {
		return Cell{Text: "-", Meaning: Muted}
	}
	return Text(strconv.Itoa(n))
}

// KnownOr is s when the row's summary is known, else what a cell of an
// unread summary says (see Options.Screen).
func KnownOr(l kube.RevisionRow, s string, opts Options) string {
	if l.Known {
		return s
	}
	return unread(l, opts)
}

// ChartCell is a revision's chart as Helm names it, "name-version"; "-" when
// its summary has none, "?" or "…" when it was not read (see unread).
func ChartCell(l kube.RevisionRow, opts Options) Cell {
	if !l.Known {
		return Text(unread(l, opts))
	}
	return Text(ChartName(l.Summary.Chart, l.Summary.ChartVersion))
}

// ChartName renders a chart as Helm does: name-version; "-" for none.
func ChartName(name, version string) string {
	switch {
	case name == "":
		return "-"
	case version == "":
		return name
	}
	return name + "-" + version
}

// sizeCell is SIZE: what the revision takes in its store. On a screen, "-"
// for a chunked record peeked from its index, whose size only a decode tells.
func sizeCell(l kube.RevisionRow, opts Options) Cell {
	switch {
	case !opts.Screen && l.Known:
		return Text(human.StoredBytes(l.Summary.StoredBytes))
	case !opts.Screen:
		return Text(human.StoredBytes(0))
	case l.Known && l.Peeked && l.Summary.StoredBytes <= 0:
		return Text("-")
	}
	return Text(KnownOr(l, human.Bytes(l.Summary.StoredBytes), opts))
}

// Health is a revision's HEALTH: what the check of its chunk Secrets found,
// and "blocked" when an interrupted create's pending index fails every
// create of the next revision.
func Health(l kube.RevisionRow) Cell {
	switch {
	case l.Broken:
		return Cell{Text: "broken", Meaning: Failed, Mark: "✗"}
	case l.PendingIndex != nil:
		return Cell{Text: "blocked", Meaning: Warning, Mark: "⚠"}
	case l.Checked:
		return Cell{Text: "ok", Meaning: OK}
	case l.Writing:
		return Cell{Text: "writing", Meaning: Warning, Mark: "◌"}
	}
	return Cell{Text: "unchecked", Meaning: Muted}
}

// StatusCell is Helm's status of a revision, with the mark that says its
// meaning without colour; "unknown" when the record has none.
func StatusCell(l kube.RevisionRow) Cell {
	st := l.Status
	m := ReleaseStatus(st)
	c := Cell{Text: st, Meaning: m, Mark: statusMarks[m]}
	if st == "" {
		c.Text = "unknown"
	}
	return c
}

// statusMarks are the marks of Helm's statuses by what they mean.
var statusMarks = map[Meaning]string{OK: "✓", Failed: "✗", Warning: "◔", Muted: "·", Plain: "?"}

// RevisionState is a revision's STATUS where there is no HEALTH column (the
// TUI's tables): what its health says when that needs attention (it cannot be
// read, another writer is storing it, a pending index blocks the next
// revision), else Helm's status.
func RevisionState(l kube.RevisionRow) Cell {
	switch {
	case l.Broken:
		return Cell{Text: "BROKEN", Meaning: Failed, Mark: "✗"}
	case l.Writing:
		// Checked again shortly rather than called broken.
		return Cell{Text: "writing…", Meaning: Warning, Mark: "◌"}
	case l.PendingIndex != nil:
		return Health(l)
	}
	return StatusCell(l)
}

// Fill thresholds: at FillWarn of its store's limit a revision is a warning,
// at FillFail a failure: a few more revisions of growth and the next upgrade
// fails.
const (
	FillWarn = 0.80
	FillFail = 0.95
)

// FillMeaning is what a share of the store's limit means, with its mark. It
// judges the percentage as shown, so that 95% never reads as a warning.
func FillMeaning(share float64) (Meaning, string) {
	share = math.Round(share*100) / 100
	switch {
	case share >= FillFail:
		return Failed, "✗"
	case share >= FillWarn:
		return Warning, "⚠"
	}
	return Plain, ""
}

// FillCell is FILL: the share of its store's limit the revision takes, "-"
// when the limit or the size is not known (on a screen, "no limit" for a
// store without one, and nothing while the size is not known).
func FillCell(l kube.RevisionRow, opts Options) Cell {
	share := l.Fill()
	if share > 0 {
		m, mark := FillMeaning(share)
		return Cell{Text: fmt.Sprintf("%.0f%%", share*100), Meaning: m, Mark: mark}
	}
	switch {
	case !opts.Screen:
		return Cell{Text: "-", Meaning: Muted}
	case l.Known && l.LimitBytes <= 0:
		return Cell{Text: "no limit", Meaning: Muted}
	}
	return Text("")
}

// HistorySize is a release's HISTORY: what its stored revisions take, "≥" the
// sum when some revisions' sizes are not known, "?" when none is.
func HistorySize(rr kube.ReleaseRow) string {
	b, sized := rr.HistoryBytes()
	switch {
	case sized == 0:
		return "?"
	case sized < rr.Revisions:
		return "≥" + human.StoredBytes(b)
	}
	return human.StoredBytes(b)
}
