package common

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// StatusCell is how a revision's status reads in a table: its state as
// render says it where there is no HEALTH column (render.RevisionState).
func StatusCell(s *theme.Styles, row kube.RevisionRow) table.Cell {
	return StateCell(s, render.RevisionState(row), row.Broken)
}

// StateCell is c, a revision's state, as a table cell: its mark, which works
// without colour, its word, and its meaning's colour; a broken revision's
// stands out most.
func StateCell(s *theme.Styles, c render.Cell, broken bool) table.Cell {
	st := &s.StatusOther
	switch {
	case broken:
		st = &s.StatusBroken
	case c.Meaning == render.OK:
		st = &s.StatusDeployed
	case c.Meaning == render.Failed:
		st = &s.StatusFailed
	case c.Meaning == render.Warning:
		st = &s.StatusPending
	case c.Meaning == render.Muted:
		st = &s.StatusSuperseded
	}
	return table.Styled(c.Marked(), st)
}

// ChartFit is ChartText in w cells: when it does not fit, the chart's name
// gives way and its version stays whole ("payments…-1.9.2"), since the version
// is what differs from one revision to the next.
func ChartFit(row kube.RevisionRow, w int) string {
	text := ChartText(row)
	v := row.Summary.ChartVersion
	if ansi.StringWidth(text) <= w || !row.Known || row.Summary.Chart == "" || v == "" {
		return text
	}
	name := w - ansi.StringWidth(v) - 1
	if name < 2 {
		// Not even a letter of the name and "…": the version alone, cut.
		return table.FitLeft(v, w)
	}
	return ansi.Truncate(row.Summary.Chart, name, "…") + "-" + v
}

// ChartText is a revision's chart as "name-version", or an ellipsis while it is
// not known yet (render.ChartCell).
func ChartText(row kube.RevisionRow) string { return render.ChartCell(row, screen).Text }

// screen renders for the TUI; ages are not told through it.
var screen = render.Options{Screen: true}

// KnownOr returns s when the row's summary is known, else a placeholder.
func KnownOr(row kube.RevisionRow, s string) string { return render.KnownOr(row, s, screen) }

// ReleaseNamespace is where a release's resources live: from its summary, else
// where its records are (render.ReleaseNamespace).
func ReleaseNamespace(row kube.RevisionRow) string { return render.ReleaseNamespace(row) }

// ActionNamespace is the namespace an operation on the release of rows changes,
// for its confirmation: the release's own, where its objects live, as its
// newest row knows it; storage (where its records are) when no row knows it.
// The two differ under OLMv1 (records in olmv1-system) and with --storage-namespace.
func ActionNamespace(rows []kube.RevisionRow, storage string) string {
	newest := -1
	for i, r := range rows {
		if newest < 0 || r.Revision > rows[newest].Revision {
			newest = i
		}
	}
	if newest >= 0 {
		if ns := ReleaseNamespace(rows[newest]); ns != "?" && ns != "" {
			return ns
		}
	}
	return storage
}

// LargestSecret estimates the size of a revision's largest Secret: exactly, from
// a layout seen; else from its summary. A record of n chunks is n-1 full slices
// and a last one, so the index (holding the first slice) is the largest, and the
// slice size lies between stored/n and stored/(n-1): the configured chunk size if
// it lies there, else stored/n rounded up.
func LargestSecret(row kube.RevisionRow, chunkSize int, lc *LayoutCache) (int64, bool) {
	if n, ok := lc.get(row); ok {
		return int64(n), true
	}
	if !row.Known || row.Summary.StoredBytes <= 0 {
		return 0, false
	}
	stored, n := row.Summary.StoredBytes, int64(max(row.Summary.Chunks, 1))
	if n == 1 {
		return stored, true
	}
	lo := (stored + n - 1) / n
	hi := stored / (n - 1)
	if cs := int64(chunkSize); cs >= lo && cs <= hi {
		return cs, true
	}
	return lo, true
}

// ChunkSizeOf returns the chunk size the client writes with.
func ChunkSizeOf(c *kube.Client) int {
	if cs := c.Config().Driver.ChunkSize; cs > 0 {
		return cs
	}
	return storage.DefaultChunkSize
}

// ShareCell draws the largest Secret's share of the 1 MiB limit as a small gauge
// and a percentage.
func ShareCell(s *theme.Styles, n int64, ok bool, width int) table.Cell {
	if !ok {
		return table.Plain("")
	}
	share := float64(n) / storage.MaxSecretDataBytes
	pct := int(share*100 + 0.5)
	label := fmt.Sprintf(" %3d%%", pct)
	g := table.Bar(share, max(width-len(label), 1), s.GaugeStyle(share), &s.GaugeEmpty)
	return table.Cell{Text: g + label}
}

// ProblemLine tells what is wrong with a revision and what to do, or "" when
// nothing is.
func ProblemLine(row kube.RevisionRow) string {
	if row.Broken {
		return "cannot be read: " + table.OneLine(row.Problem)
	}
	return ""
}

// StoredSize is a row's stored bytes when known, else 0.
func StoredSize(row kube.RevisionRow) int64 {
	if row.Known {
		return max(row.Summary.StoredBytes, 0)
	}
	return 0
}

// HistoryText is a release's HISTORY (render.HistorySize).
func HistoryText(rr kube.ReleaseRow) string { return render.HistorySize(rr) }

// RevisionsText is "4 revisions holding 24 KiB": how many, and what they hold.
func RevisionsText(rr kube.ReleaseRow) string {
	n := human.Plural(rr.Revisions, "revision", "revisions")
	if t := HistoryText(rr); t != "?" {
		n += " holding " + t
	}
	return n
}

// KeepSummary gives r, a rewrite of revision old read from metadata alone, what
// old knew from its payload: its chart, sizes, and when it was deployed, which a
// status change leaves as they were.
func KeepSummary(r *kube.RevisionRow, old kube.RevisionRow) {
	r.Summary, r.Known, r.Updated = old.Summary, true, old.Updated
	r.ApplyMethod, r.UnknownFields = old.ApplyMethod, old.UnknownFields
	r.Peeked, r.StoredAtMost = old.Peeked, old.StoredAtMost
}
