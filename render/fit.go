package render

import (
	"fmt"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// FitColumns name the columns of FitTable; FitRevisionsLeft is there only for
// an upgrade, which has a history to grow from.
const (
	FitStore         = "STORE"
	FitStored        = "STORED"
	FitLimit         = "LIMIT"
	FitFill          = "FILL"
	FitFits          = "FITS"
	FitObjects       = "OBJECTS"
	FitRevisionsLeft = "REVISIONS LEFT"
)

// FitTable is a fit check's answer, one row per store: what the record would
// take there, against what limit, whether it fits, in how many objects, and
// with growth (an upgrade) how many revisions after it would still fit.
func FitTable(stores []fit.Store, growth bool) Table {
	t := Table{Columns: []Column{
		{Name: FitStore}, {Name: FitStored, Right: true}, {Name: FitLimit, Right: true}, {Name: FitFill, Right: true},
		{Name: FitFits}, {Name: FitObjects},
	}}
	if growth {
		t.Columns = append(t.Columns, Column{Name: FitRevisionsLeft})
	}
	for _, s := range stores {
		limit, fill := Cell{Text: "none", Meaning: Muted}, Cell{Text: "-", Meaning: Muted}
		if s.LimitBytes > 0 {
			limit = Text(human.Bytes(s.LimitBytes))
			share := float64(s.StoredBytes) / float64(s.LimitBytes)
			m, mark := FillMeaning(share)
			fill = Cell{Text: fmt.Sprintf("%.0f%%", share*100), Meaning: m, Mark: mark}
		}
		fits := Cell{Text: "yes", Meaning: OK, Mark: "✓"}
		if !s.Fits {
			fits = Cell{Text: "NO", Meaning: Failed, Mark: "✗"}
		}
		row := []Cell{Text(kube.DriverLabel(s.Driver)), Text(human.Bytes(s.StoredBytes)), limit, fill, fits, Text(fitObjects(s))}
		if growth {
			row = append(row, RevisionsLeft(s.Growth))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// fitObjects is how many objects the record takes in its store.
func fitObjects(s fit.Store) string {
	switch s.Driver {
	case kube.DriverConfigMap:
		return "1 ConfigMap"
	case kube.DriverSecret:
		return "1 Secret"
	}
	return human.Plural(s.Objects, "Secret", "Secrets")
}

// RevisionsLeft says how many revisions after the one weighed fit at growth g,
// and which first fails: a warning within fit.WarnWithin, a failure when none
// is left.
func RevisionsLeft(g *fit.Growth) Cell {
	switch {
	case g == nil:
		return Cell{Text: "-", Meaning: Muted}
	case g.RevisionsLeft == 0:
		return Cell{Text: "none", Meaning: Failed}
	case g.RevisionsLeft < 0:
		return Text("not in sight")
	}
	c := Text(fmt.Sprintf("%d (r%d fails)", g.RevisionsLeft-1, g.FailsAt))
	if g.RevisionsLeft <= fit.WarnWithin {
		c.Meaning = Warning
	}
	return c
}
