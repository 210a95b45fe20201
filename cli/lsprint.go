package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
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
	cols := []string{"NAME", "NAMESPACE", "REVISION", "STATUS", "CHART", "APP VERSION", "UPDATED", "HEALTH", "FILL"}
	if storageNS {
		cols = slices.Insert(cols, 2, "STORAGE NS")
	}
	if wide {
		cols = append(cols, "STORE", "CHUNKS", "SIZE", "REVISIONS", "HISTORY", "LAST DEPLOYED")
	}
	rels := make([]kube.ReleaseRow, len(out.Releases))
	for i, it := range out.Releases {
		rels[i] = *it.release
	}
	t := render.ReleaseTable(rels, render.Options{Now: now})
	health := t.Index("HEALTH")
	for i, it := range out.Releases {
		if a := apiHealth(it); a != "" && !it.Broken {
			t.Rows[i][health] = render.Text(a)
		}
	}
	t = t.Select(cols...)
	var rows [][]string
	if !noHeaders {
		rows = append(rows, t.Head())
	}
	rows = append(rows, t.Texts()...)
	var broken []ReleaseItem
	for _, it := range out.Releases {
		if it.Broken {
			broken = append(broken, it)
		}
	}
	widths, gap := columnWidths(nil, rows), columnGap
	if !wide {
		// -o wide is asked for in full; the default is what fits: CHART gives
		// first (cut in its middle, so that its version stays), then NAME;
		// a header is never cut.
		chartCol := t.Index("CHART")
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

// pendingIndexLine says what a pending index left by an interrupted create does
// and what removes it: the wording of verify and gc, which act on it at this age.
func pendingIndexLine(ns, name string, p kube.PendingIndex, now time.Time) string {
	return fmt.Sprintf("revision %d of %s/%s was never written: a create of it was interrupted %s ago and left its pending index, which fails every create of revision %d (an operator's next upgrade included) until it is removed; `chunkview gc -n %s` removes it, `chunkview verify %s -n %s` reports it",
		p.Revision, ns, name, human.Age(now, p.Created), p.Revision, ns, name, ns)
}
