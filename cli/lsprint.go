package cli

import (
	"fmt"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// printReleases prints the table. By default it has the columns an on-call
// engineer reads, as helm ls and kubectl get do: NAME, NAMESPACE, REVISION,
// STATUS, CHART, APP VERSION, UPDATED, HEALTH, FILL, and STORAGE NS after
// NAMESPACE only when some release's records live outside its namespace. Wide
// adds STORAGE NS always, then STORE, CHUNKS, SIZE, REVISIONS, HISTORY and
// LAST DEPLOYED. The table is fitted to the terminal's width when stdout is
// one (fitColumns).
func (r *run) printReleases(out Releases, wide, noHeaders bool, apiHealth func(ReleaseItem) string) {
	now := r.now()
	storageNS := wide || mixedNamespaces(out.Releases)
	cells := func(it ReleaseItem, rest ...string) []string {
		ns := it.Namespace
		if ns == "" {
			ns = "?"
		}
		c := []string{it.Name, ns}
		if storageNS {
			c = append(c, it.StorageNamespace)
		}
		return append(c, rest...)
	}
	var rows [][]string
	if !noHeaders {
		head := cells(ReleaseItem{Name: "NAME", Namespace: "NAMESPACE", StorageNamespace: "STORAGE NS"}, "REVISION", "STATUS", "CHART", "APP VERSION", "UPDATED", "HEALTH", "FILL")
		if wide {
			head = append(head, "STORE", "CHUNKS", "SIZE", "REVISIONS", "HISTORY", "LAST DEPLOYED")
		}
		rows = append(rows, head)
	}
	var broken []ReleaseItem
	for _, it := range out.Releases {
		chart, app, chunks := "?", "?", "?"
		if it.Chart != "" || it.Chunks > 0 {
			chart, app, chunks = chartName(it.Chart, it.ChartVersion), human.OrUnknown(it.AppVersion), chunkCount(it.Driver, it.Chunks)
		}
		if it.Broken {
			chart, app, chunks = "<broken>", "-", "-"
			broken = append(broken, it)
		}
		hl := health(it.Broken, it.Checked, it.Writing)
		if it.PendingIndex != nil && !it.Broken {
			hl = "blocked"
		}
		if a := apiHealth(it); a != "" && !it.Broken {
			hl = a
		}
		if it.Status == "pending-index" {
			chart, app, chunks = "-", "-", "-"
		}
		c := cells(it, fmt.Sprint(it.Revision), it.Status, chart, app, human.Age(now, it.Updated), hl, fill(it.Fill, it.LimitBytes))
		if wide {
			c = append(c, kube.DriverLabel(it.Driver), chunks, human.StoredBytes(it.StoredBytes), fmt.Sprint(it.Revisions), historySize(it), human.Timestamp(it.Updated))
		}
		rows = append(rows, c)
	}
	widths, gap := columnWidths(nil, rows), columnGap
	if !wide {
		// -o wide is asked for in full; the default is what fits: CHART gives
		// first (cut in its middle, so that its version stays), then NAME;
		// a header is never cut.
		chartCol := 4
		if storageNS {
			chartCol++
		}
		gap = fitColumns(rows, widths, r.terminalWidth(), []shrink{{chartCol, 14}, {0, 16}})
	}
	_ = printAlignedGap(r.stdout, rows, widths, gap)
	for _, it := range broken {
		fmt.Fprintf(r.stderr, "Warning: revision %d of %s/%s cannot be read (%s); run `%s` for details\n",
			it.Revision, it.StorageNamespace, it.Name, it.Problem, it.verify)
	}
	for _, it := range out.Releases {
		if !it.Broken && !it.Checked {
			fmt.Fprintf(r.stderr, "Warning: revision %d of %s/%s was not checked: %s\n", it.Revision, it.StorageNamespace, it.Name, it.Unchecked)
		}
		if p := it.PendingIndex; p != nil {
			fmt.Fprintf(r.stderr, "Warning: %s\n", pendingIndexLine(it.StorageNamespace, it.Name, *p, now))
		}
	}
}

// historySize is the HISTORY column: what the stored revisions take, "≥" the
// sum when some revisions' sizes are not known, "?" when none is.
func historySize(it ReleaseItem) string {
	switch {
	case it.HistorySized == 0:
		return "?"
	case it.HistorySized < it.Revisions:
		return "≥" + human.StoredBytes(it.HistoryBytes)
	}
	return human.StoredBytes(it.HistoryBytes)
}

// pendingIndexLine says what a pending index left by an interrupted create does
// and what removes it: the wording of verify and gc, which act on it at this age.
func pendingIndexLine(ns, name string, p kube.PendingIndex, now time.Time) string {
	return fmt.Sprintf("revision %d of %s/%s was never written: a create of it was interrupted %s ago and left its pending index, which fails every create of revision %d (an operator's next upgrade included) until it is removed; `chunkview gc -n %s` removes it, `chunkview verify %s -n %s` reports it",
		p.Revision, ns, name, human.Age(now, p.Created), p.Revision, ns, name, ns)
}

// fill is the FILL column: the share of its store's limit a revision takes.
func fill(f float64, limit int64) string {
	if limit <= 0 || f <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}

// health is a revision's HEALTH column: what the check of its chunk Secrets found.
func health(broken, checked, writing bool) string {
	switch {
	case broken:
		return "broken"
	case checked:
		return "ok"
	case writing:
		return "writing"
	}
	return "unchecked"
}

// chartName renders a chart as Helm does: name-version.
func chartName(name, version string) string {
	switch {
	case name == "":
		return "-"
	case version == "":
		return name
	}
	return name + "-" + version
}
