package releases

import (
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// releaseColumns are the list's columns. When room runs short the largest
// Secret's bar goes first (for a Helm record it repeats FILL; for chunked ones it
// stays far below 1 MiB), then the app version, the chunk count and the chart,
// which the detail line below the table shows for the selected release: at 80
// columns the store and its fill stay. NAME and STATUS never go.
var releaseColumns = []table.Column{
	{Title: "NAMESPACE", Width: 9, Flex: 1, Prio: 6},
	{Title: "NAME", Width: 12, Flex: 2},
	{Title: "REV", Width: 3, Right: true, Prio: 8},
	{Title: "STATUS", Width: 17},
	storeColumn,
	{Title: "CHART", Width: 12, Flex: 1, Prio: 5},
	{Title: "APP", Width: 7, Prio: 2},
	{Title: "AGE", Width: 5, Right: true, Prio: 7},
	{Title: "CHUNKS", Width: 6, Right: true, Prio: 4},
	{Title: "SIZE", Width: 8, Right: true, Prio: 9},
	{Title: "FILL", Width: 10, Prio: 10},
	{Title: "LARGEST", Width: 10, Prio: 1},
}

// historyColumn is what all the release's stored revisions take. It is shown
// only where the list has room to spare for it (see withHistory): the detail
// line says it for the selected release anyway.
var historyColumn = table.Column{Title: "HISTORY", Width: 9, Right: true, Prio: 1}

// historySpare is the room the flexible columns (names, charts) keep beyond
// their least widths before HISTORY is shown.
const historySpare = 24

// withHistory fits cols to total columns, with HISTORY before LARGEST when
// nothing else had to go and the names and charts keep room to spare.
func withHistory(cols []table.Column, total int) []table.Column {
	base := table.FitColumns(cols, total)
	least := 1
	for _, c := range cols {
		least += c.Width + 1
	}
	if len(base) < len(cols) || total-least < historyColumn.Width+1+historySpare {
		return base
	}
	out := make([]table.Column, 0, len(cols)+1)
	for _, c := range cols {
		if c.Title == "LARGEST" {
			out = append(out, historyColumn)
		}
		out = append(out, c)
	}
	return table.FitColumns(out, total)
}

// storeColumn names the store a row came from; it is shown only when the list
// reads more than one store (see columnsFor).
var storeColumn = table.Column{Title: "STORE", Width: 7, Prio: 11}

// storageNSColumn shows where a release's records live, only when some listed
// release keeps them outside its own namespace; a row that keeps them in its own
// shows "·". It takes no spare width: names and charts, which tell rows apart,
// get it (see storageNSText).
var storageNSColumn = table.Column{Title: "STORAGE NS", Width: 10, Prio: 3}

// nameRoom is the most NAME asks for before other columns give way: the
// longest listed name up to this, so that the names that tell rows apart are
// shown whole, at the cost of the app version (which the detail line shows).
const nameRoom = 20

// namespaceRoom is nameRoom for NAMESPACE.
const namespaceRoom = 16

// columnsFor returns the list's columns for items: STORAGE NS after NAMESPACE
// when some release's records live apart from it, and STORE when the list reads
// several stores (with one, every row would say the same).
func columnsFor(items []ReleaseItem, severalStores bool) []table.Column {
	cols := make([]table.Column, 0, len(releaseColumns)+1)
	apart := false
	for _, it := range items {
		if l := it.Row.Latest; l.StorageNamespace != common.ReleaseNamespace(l) {
			apart = true
			break
		}
	}
	for _, c := range releaseColumns {
		if c.Title == storeColumn.Title && !severalStores {
			continue
		}
		cols = append(cols, c)
		if c.Title == "NAMESPACE" && apart {
			cols = append(cols, storageNSColumn)
		}
	}
	return cols
}

// fitReleaseColumns returns the list's columns for items in width total. NAME
// and NAMESPACE, which tell rows apart, take the width of their longest value
// (up to nameRoom and namespaceRoom) when that costs no column but those the
// detail line repeats (the largest Secret's bar, the app version); otherwise
// they keep their least widths and their share of the spare room. A NAMESPACE
// that every row shares may go for them.
func fitReleaseColumns(items []ReleaseItem, severalStores bool, total int) []table.Column {
	base := columnsFor(items, severalStores)
	least := withHistory(base, total)
	whole := make([]table.Column, len(base))
	for i, c := range base {
		switch c.Title {
		case "NAME":
			c.Width = max(c.Width, min(longest(items, func(l kube.RevisionRow) string { return l.Name }), nameRoom))
		case "NAMESPACE":
			c.Width = max(c.Width, min(longest(items, common.ReleaseNamespace), namespaceRoom))
		}
		whole[i] = c
	}
	wide := withHistory(whole, total)
	kept := map[string]bool{}
	for _, c := range wide {
		kept[c.Title] = true
	}
	oneNamespace := true
	for _, it := range items {
		oneNamespace = oneNamespace && common.ReleaseNamespace(it.Row.Latest) == common.ReleaseNamespace(items[0].Row.Latest)
	}
	for _, c := range least {
		// A NAMESPACE that every row shares tells none apart.
		if !kept[c.Title] && c.Prio > detailPrio && (c.Title != "NAMESPACE" || !oneNamespace) {
			return least
		}
	}
	return wide
}

// detailPrio is the highest priority among the columns the detail line below
// the table repeats for the selected release (LARGEST, APP).
const detailPrio = 2

// longest is the width of the longest of field's values over items.
func longest(items []ReleaseItem, field func(kube.RevisionRow) string) int {
	n := 0
	for _, it := range items {
		n = max(n, len(field(it.Row.Latest)))
	}
	return n
}
