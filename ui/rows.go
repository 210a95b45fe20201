package ui

import (
	"fmt"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// statusCell is how a revision's status reads in a table: an icon that works
// without colour, the word Helm uses, and a colour for the states that need
// attention.
func (s *Styles) statusCell(row kube.RevisionRow) cell {
	if row.Broken {
		return styled("✗ BROKEN", &s.StatusBroken)
	}
	if row.Writing {
		// Another writer is storing it (chunks after the index): checked again
		// shortly rather than called broken.
		return styled("◌ writing…", &s.StatusPending)
	}
	if row.PendingIndex != nil {
		// An interrupted create's pending index fails every create of the next
		// revision: the release cannot move on until gc removes it.
		return styled("⚠ blocked", &s.StatusPending)
	}
	st := row.Status
	switch {
	case st == "deployed":
		return styled("✓ "+st, &s.StatusDeployed)
	case st == "failed":
		return styled("✗ "+st, &s.StatusFailed)
	case kube.Pending(st) || st == "uninstalling":
		return styled("◔ "+st, &s.StatusPending)
	case st == "superseded" || st == "uninstalled":
		return styled("· "+st, &s.StatusSuperseded)
	case st == "":
		return styled("? unknown", &s.StatusOther)
	}
	return styled("? "+st, &s.StatusOther)
}

// chartText is a revision's chart as "name-version", or an ellipsis while it is
// not known yet.
func chartText(row kube.RevisionRow) string {
	switch {
	case row.Known && row.Summary.Chart != "":
		if row.Summary.ChartVersion == "" {
			return row.Summary.Chart
		}
		return row.Summary.Chart + "-" + row.Summary.ChartVersion
	case row.Broken:
		return "?"
	case row.Known:
		return "-"
	}
	return "…"
}

// knownOr returns s when the row's summary is known, else a placeholder.
func knownOr(row kube.RevisionRow, s string) string {
	switch {
	case row.Known:
		return s
	case row.Broken:
		return "?"
	}
	return "…"
}

// sizeText is a row's SIZE: what its revision takes in its store, "-" when its
// summary was peeked from its index (kube.FillSummaries) and it spans chunks,
// whose size only a decode tells, or a placeholder while it is not known yet.
func sizeText(row kube.RevisionRow) string {
	if row.Known && row.Peeked && row.Summary.StoredBytes <= 0 {
		return "-"
	}
	return knownOr(row, human.Bytes(row.Summary.StoredBytes))
}

// releaseNamespace is where a release's resources live: from its summary, else
// where its records are.
func releaseNamespace(row kube.RevisionRow) string {
	switch {
	case row.Summary.Namespace != "":
		return row.Summary.Namespace
	case row.NamespaceUnknown:
		return "?" // read from the index's slice alone: known once opened
	}
	return row.StorageNamespace
}

// largestSecret estimates the size of a revision's largest Secret: exactly, from
// a layout seen; else from its summary. A record of n chunks is n-1 full slices
// and a last one, so the index (holding the first slice) is the largest, and the
// slice size lies between stored/n and stored/(n-1): the configured chunk size if
// it lies there, else stored/n rounded up.
func largestSecret(row kube.RevisionRow, chunkSize int, lc *layoutCache) (int64, bool) {
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

// chunkSizeOf returns the chunk size the client writes with.
func chunkSizeOf(c *kube.Client) int {
	if cs := c.Config().Driver.ChunkSize; cs > 0 {
		return cs
	}
	return storage.DefaultChunkSize
}

// shareCell draws the largest Secret's share of the 1 MiB limit as a small gauge
// and a percentage.
func (s *Styles) shareCell(n int64, ok bool, width int) cell {
	if !ok {
		return plain("")
	}
	share := float64(n) / storage.MaxSecretDataBytes
	pct := int(share*100 + 0.5)
	label := fmt.Sprintf(" %3d%%", pct)
	g := bar(share, max(width-len(label), 1), s.gaugeStyle(share), &s.GaugeEmpty)
	return cell{text: g + label}
}

// problemLine tells what is wrong with a revision and what to do, or "" when
// nothing is.
func problemLine(row kube.RevisionRow) string {
	if row.Broken {
		return "cannot be read: " + oneLine(row.Problem)
	}
	return ""
}

// storedSize is a row's stored bytes when known, else 0.
func storedSize(row kube.RevisionRow) int64 {
	if row.Known {
		return max(row.Summary.StoredBytes, 0)
	}
	return 0
}

// historyText is a release's HISTORY: what its stored revisions take, "≥" the
// sum when some revisions' sizes are not known (see kube.ReleaseRow's
// HistoryBytes), "?" when none is.
func historyText(rr kube.ReleaseRow) string {
	b, sized := rr.HistoryBytes()
	switch {
	case sized == 0:
		return "?"
	case sized < rr.Revisions:
		return "≥" + human.Bytes(b)
	}
	return human.Bytes(b)
}

// revisionsText is "4 revisions holding 24 KiB": how many, and what they hold.
func revisionsText(rr kube.ReleaseRow) string {
	n := human.Plural(rr.Revisions, "revision", "revisions")
	if t := historyText(rr); t != "?" {
		n += " holding " + t
	}
	return n
}

// keepSummary gives r, a rewrite of revision old read from metadata alone, what
// old knew from its payload: its chart, sizes, and when it was deployed, which a
// status change leaves as they were.
func keepSummary(r *kube.RevisionRow, old kube.RevisionRow) {
	r.Summary, r.Known, r.Updated = old.Summary, true, old.Updated
	r.ApplyMethod, r.UnknownFields = old.ApplyMethod, old.UnknownFields
	r.Peeked, r.StoredAtMost = old.Peeked, old.StoredAtMost
}
