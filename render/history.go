package render

import (
	"strconv"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// HistoryColumns are the columns of a history table, the widest set: each
// front end shows those it has room and use for (Table.Select). UPDATED is
// when, AGE how long ago.
var HistoryColumns = []Column{
	{Name: "REVISION", Short: "REV", Right: true}, {Name: "UPDATED"}, {Name: "AGE", Right: true},
	{Name: "STATUS"}, {Name: "CHART"}, {Name: "APP VERSION", Short: "APP"}, {Name: "CHUNKS", Right: true},
	{Name: "FILL"}, {Name: "SIZE", Right: true}, {Name: "HEALTH"},
	{Name: "STORAGE NS"}, {Name: "INDEX SECRET"}, {Name: "APPLY METHOD"}, {Name: "DESCRIPTION"},
}

// HistoryTable renders a release's revisions rows, one row each, in their
// order: the columns of HistoryColumns.
func HistoryTable(rows []kube.RevisionRow, opts Options) Table {
	t := Table{Columns: HistoryColumns}
	for _, r := range rows {
		t.Rows = append(t.Rows, HistoryRow(r, opts))
	}
	return t
}

// HistoryRow is one revision's row of a history table, in HistoryColumns'
// order. A superseded revision is muted, a failed one failed (STATUS); one
// that cannot be read says why in DESCRIPTION, as a failure.
func HistoryRow(r kube.RevisionRow, opts Options) []Cell {
	status := StatusCell(r)
	if opts.Screen {
		status = RevisionState(r)
	}
	chart, app, chunks := historySummary(r, opts)
	size := Text(KnownOr(r, human.Bytes(r.Summary.StoredBytes), opts))
	if !opts.Screen {
		size = Text(human.StoredBytes(0))
		if r.Known {
			size.Text = human.StoredBytes(r.Summary.StoredBytes)
		}
	}
	return []Cell{
		Text(strconv.Itoa(r.Revision)), Text(human.Timestamp(r.Updated)), Text(human.Age(opts.Now, r.Updated)),
		status, chart, app, chunks, FillCell(r, opts), size, Health(r),
		Text(r.StorageNamespace), Text(r.Key), Text(human.OrUnknown(r.ApplyMethod)), description(r, opts),
	}
}

// historySummary are a revision's CHART, APP VERSION and CHUNKS. The CLI,
// which shows STATUS and HEALTH apart, says a broken revision in its CHART.
func historySummary(r kube.RevisionRow, opts Options) (chart, app, chunks Cell) {
	if opts.Screen {
		return ChartCell(r, opts), Text(KnownOr(r, r.Summary.AppVersion, opts)), Text(KnownOr(r, strconv.Itoa(r.Summary.Chunks), opts))
	}
	dash := Cell{Text: "-", Meaning: Muted}
	switch {
	case r.Broken:
		return Cell{Text: "<broken>", Meaning: Failed}, dash, dash
	case !r.Known || r.Summary.Chunks == 0:
		return Text("?"), Text("?"), Text("?")
	}
	return ChartCell(r, opts), Text(human.OrUnknown(r.Summary.AppVersion)), chunkCount(r.Driver, r.Summary.Chunks)
}

// description is a revision's DESCRIPTION: Helm's, or why the revision
// cannot be read (failed); the CLI, which prints it whole, also says why it
// was not checked.
func description(r kube.RevisionRow, opts Options) Cell {
	switch {
	case r.Broken && opts.Screen:
		return Cell{Text: OneLine(r.Problem), Meaning: Failed}
	case r.Broken:
		return Cell{Text: "cannot be read: " + r.Problem, Meaning: Failed}
	case opts.Screen:
		return Text(KnownOr(r, OneLine(r.Summary.Description), opts))
	case !r.Checked:
		return Cell{Text: "not checked: " + r.Unchecked, Meaning: Muted}
	case !r.Known:
		return Text("")
	}
	return Text(r.Summary.Description)
}
