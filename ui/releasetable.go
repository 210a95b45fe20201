package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// releaseColumns are the list's columns. When room runs short the largest
// Secret's bar goes first (for a Helm record it repeats FILL; for chunked ones it
// stays far below 1 MiB), then the app version, the chunk count and the chart,
// which the detail line below the table shows for the selected release: at 80
// columns the store and its fill stay. NAME and STATUS never go.
var releaseColumns = []column{
	{title: "NAMESPACE", width: 9, flex: 1, prio: 6},
	{title: "NAME", width: 12, flex: 2},
	{title: "REV", width: 3, right: true, prio: 8},
	{title: "STATUS", width: 17},
	storeColumn,
	{title: "CHART", width: 12, flex: 1, prio: 5},
	{title: "APP", width: 7, prio: 2},
	{title: "AGE", width: 5, right: true, prio: 7},
	{title: "CHUNKS", width: 6, right: true, prio: 4},
	{title: "SIZE", width: 8, right: true, prio: 9},
	{title: "FILL", width: 10, prio: 10},
	{title: "LARGEST", width: 10, prio: 1},
}

// historyColumn is what all the release's stored revisions take. It is shown
// only where the list has room to spare for it (see withHistory): the detail
// line says it for the selected release anyway.
var historyColumn = column{title: "HISTORY", width: 9, right: true, prio: 1}

// historySpare is the room the flexible columns (names, charts) keep beyond
// their least widths before HISTORY is shown.
const historySpare = 24

// withHistory fits cols to total columns, with HISTORY before LARGEST when
// nothing else had to go and the names and charts keep room to spare.
func withHistory(cols []column, total int) []column {
	base := fitColumns(cols, total)
	least := 1
	for _, c := range cols {
		least += c.width + 1
	}
	if len(base) < len(cols) || total-least < historyColumn.width+1+historySpare {
		return base
	}
	out := make([]column, 0, len(cols)+1)
	for _, c := range cols {
		if c.title == "LARGEST" {
			out = append(out, historyColumn)
		}
		out = append(out, c)
	}
	return fitColumns(out, total)
}

// storeColumn names the store a row came from; it is shown only when the list
// reads more than one store (see columnsFor).
var storeColumn = column{title: "STORE", width: 7, prio: 11}

// storageNSColumn shows where a release's records live, only when some listed
// release keeps them outside its own namespace; a row that keeps them in its own
// shows "·". It takes no spare width: names and charts, which tell rows apart,
// get it (see storageNSText).
var storageNSColumn = column{title: "STORAGE NS", width: 10, prio: 3}

// nameRoom is the most NAME asks for before other columns give way: the
// longest listed name up to this, so that the names that tell rows apart are
// shown whole, at the cost of the app version (which the detail line shows).
const nameRoom = 20

// namespaceRoom is nameRoom for NAMESPACE.
const namespaceRoom = 16

// storageNSText is a row's STORAGE NS cell: "·" when its records live in its
// own namespace, as most do.
func storageNSText(l kube.RevisionRow) string {
	if l.StorageNamespace == releaseNamespace(l) {
		return "·"
	}
	return l.StorageNamespace
}

// columnsFor returns the list's columns for items: STORAGE NS after NAMESPACE
// when some release's records live apart from it, and STORE when the list reads
// several stores (with one, every row would say the same).
func columnsFor(items []releaseItem, severalStores bool) []column {
	cols := make([]column, 0, len(releaseColumns)+1)
	apart := false
	for _, it := range items {
		if l := it.row.Latest; l.StorageNamespace != releaseNamespace(l) {
			apart = true
			break
		}
	}
	for _, c := range releaseColumns {
		if c.title == storeColumn.title && !severalStores {
			continue
		}
		cols = append(cols, c)
		if c.title == "NAMESPACE" && apart {
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
func fitReleaseColumns(items []releaseItem, severalStores bool, total int) []column {
	base := columnsFor(items, severalStores)
	least := withHistory(base, total)
	whole := make([]column, len(base))
	for i, c := range base {
		switch c.title {
		case "NAME":
			c.width = max(c.width, min(longest(items, func(l kube.RevisionRow) string { return l.Name }), nameRoom))
		case "NAMESPACE":
			c.width = max(c.width, min(longest(items, releaseNamespace), namespaceRoom))
		}
		whole[i] = c
	}
	wide := withHistory(whole, total)
	kept := map[string]bool{}
	for _, c := range wide {
		kept[c.title] = true
	}
	oneNamespace := true
	for _, it := range items {
		oneNamespace = oneNamespace && releaseNamespace(it.row.Latest) == releaseNamespace(items[0].row.Latest)
	}
	for _, c := range least {
		// A NAMESPACE that every row shares tells none apart.
		if !kept[c.title] && c.prio > detailPrio && (c.title != "NAMESPACE" || !oneNamespace) {
			return least
		}
	}
	return wide
}

// detailPrio is the highest priority among the columns the detail line below
// the table repeats for the selected release (LARGEST, APP).
const detailPrio = 2

// longest is the width of the longest of field's values over items.
func longest(items []releaseItem, field func(kube.RevisionRow) string) int {
	n := 0
	for _, it := range items {
		n = max(n, len(field(it.row.Latest)))
	}
	return n
}

// refilter applies the filter, keeping the list's order: by default the rows
// whose name holds the text (any case), as k9s does; with a leading "~", a fuzzy
// match on name, namespace, chart, status and store.
func (s *releasesScreen) refilter() {
	s.shown = matchReleases(s.items, s.filter.Value())
}

// matchReleases returns the indexes of the items that filter q keeps, in order.
func matchReleases(items []releaseItem, q string) []int {
	q = strings.TrimSpace(q)
	fuzzyQ, isFuzzy := strings.CutPrefix(q, "~")
	fuzzyQ = strings.TrimSpace(fuzzyQ)
	out := []int{}
	switch {
	case q == "" || (isFuzzy && fuzzyQ == ""):
		for i := range items {
			out = append(out, i)
		}
	case isFuzzy:
		hay := make([]string, len(items))
		for i, it := range items {
			l := it.row.Latest
			hay[i] = fmt.Sprintf("%s/%s %s %s %s", releaseNamespace(l), l.Name, chartText(l), l.Status, kube.DriverLabel(storeOf(l.Driver)))
		}
		for _, m := range fuzzy.Find(fuzzyQ, hay) {
			out = append(out, m.Index)
		}
		slices.Sort(out)
	default:
		lq := strings.ToLower(q)
		for i, it := range items {
			if strings.Contains(strings.ToLower(it.row.Latest.Name), lq) {
				out = append(out, i)
			}
		}
	}
	return out
}

// detailLines describe the selected release below the table: what is wrong with
// it and the key that leads to the fix, or its chart and description. The last
// line is the filter.
func (s *releasesScreen) detailLines() []string {
	st := s.styles
	var first, second string
	if s.err != nil {
		first = st.Error.Render(line1(s.width, "✗ Refresh failed, showing the last list: "+shortError(s.err)))
	}
	if it := s.selected(); it != nil && first == "" {
		l := it.row.Latest
		switch {
		case it.err != nil:
			first = st.Error.Render(line1(s.width, "✗ "+shortError(it.err)))
		case l.Broken:
			first = st.ErrorBold.Render(line1(s.width, fmt.Sprintf("✗ %s revision %d %s", l.Name, l.Revision, problemLine(l))))
			hint := "  c: which Secret is at fault · enter: history, to roll back or delete the revision"
			if s.readOnly() {
				hint = "  c: which Secret is at fault · enter: history (read-only: repairs are off)"
			}
			second = st.Dim.Render(line1(s.width, hint))
		case l.PendingIndex != nil:
			p := l.PendingIndex
			first = st.Warning.Render(line1(s.width, fmt.Sprintf("⚠ %s revision %d was never written: a create of it was cut off %s ago, and its pending index fails every create of revision %d until removed.",
				l.Name, p.Revision, human.Span(s.now().Sub(p.Created)), p.Revision)))
			second = st.Dim.Render(line1(s.width, fmt.Sprintf("  chunkview gc -n %s removes it (chunkview verify reports it)", l.StorageNamespace)))
		case kube.InFlight(l.Status) && s.now().Sub(l.Updated) < s.client.StuckAfter():
			// An operation that has just started: not something to fix.
			first = st.Warning.Render(line1(s.width, fmt.Sprintf("◔ %s has been %s for %s: an operation is in progress.", l.Name, l.Status, human.Span(s.now().Sub(l.Updated)))))
			second = st.Dim.Render(line1(s.width, fmt.Sprintf("  it counts as stuck after %s (--stuck-after) · enter: history", human.Span(s.client.StuckAfter()))))
		case kube.InFlight(l.Status):
			first = st.Warning.Render(line1(s.width, fmt.Sprintf("◔ %s has been %s for %s; if no Helm operation is running, it is stuck.", l.Name, l.Status, human.Span(s.now().Sub(l.Updated)))))
			hint := "  enter: history, then F to fix the stuck release"
			if s.readOnly() {
				hint = "  enter: history (read-only: fixing it is off)"
			}
			second = st.Dim.Render(line1(s.width, hint))
		case l.Status == "failed":
			first = st.Error.Render(line1(s.width, fmt.Sprintf("✗ %s failed: %s", l.Name, oneLine(l.Summary.Description))))
			hint := "  enter: history, then R on a good revision to roll back"
			if s.readOnly() {
				hint = "  enter: history, to see what changed (read-only: rollback is off)"
			}
			second = st.Dim.Render(line1(s.width, hint))
		case l.Fill() >= fillWarn:
			mark, style := st.fillStyle(l.Fill())
			first = style.Render(line1(s.width, fmt.Sprintf("%s %s takes %.0f%% of the %s its store allows one revision (%s).",
				mark, l.Name, l.Fill()*100, limitSize(l.LimitBytes), kube.DriverLabel(storeOf(l.Driver)))))
			second = st.Dim.Render(line1(s.width, "  enter: history, for the revision that will not fit and what to do"))
		case l.Known:
			first = st.Dim.Render(line1(s.width, fmt.Sprintf("%s · app %s · %s · %s", chartText(l), human.OrUnknown(l.Summary.AppVersion), revisionsText(it.row), oneLine(l.Summary.Description))))
		}
	}
	filter := ""
	switch {
	case s.filtering:
		filter = s.filter.View()
	case s.filter.Value() != "":
		filter = st.Accent.Render(fmt.Sprintf("filter: %s (%d of %d; esc clears)", s.filter.Value(), len(s.shown), len(s.items)))
	default:
		filter = st.Dim.Render(human.Plural(len(s.items), "release", "releases"))
		switch {
		case s.partial != nil && s.skipped != nil:
			filter = st.Warning.Render(line1(s.width, fmt.Sprintf("⚠ %d releases, from %s only; %s",
				len(s.items), strings.Join(s.partial.Read, ", "), skipNote(s.skipped))))
		case s.partial != nil:
			filter = st.Warning.Render(line1(s.width, fmt.Sprintf("⚠ %d releases, from %s only: other namespaces may not be read (--namespaces names more)",
				len(s.items), strings.Join(s.partial.Read, ", "))))
		case s.skipped != nil:
			filter = st.Warning.Render(line1(s.width, fmt.Sprintf("⚠ %s; %s", human.Plural(len(s.items), "release", "releases"), skipNote(s.skipped))))
		}
		if n := len(s.inflight); n > 0 {
			filter += st.Dim.Render(fmt.Sprintf(" · reading %d…", n))
		}
	}
	return []string{first, second, filter}
}

// tableView draws the list: the table of the rows in view, then the selected
// release's detail and the filter line.
func (s *releasesScreen) tableView() string {
	st := s.styles
	var lines []string
	switch {
	case !s.loaded && s.err != nil:
		lines = append(lines, st.renderError(s.err, s.width), "",
			st.Dim.Render(wrap("Press r to retry, or n to look in another namespace.", s.width)))
		return strings.Join(lines, "\n")
	case !s.loaded:
		return st.Dim.Render("Listing release records in " + s.viewName + "…")
	case len(s.items) == 0:
		cfg := s.client.Config()
		where := "namespace " + s.viewName
		if s.viewName == allNamespaces {
			where = "any namespace"
		}
		if cfg.StorageNamespace != "" {
			where += " (records in " + cfg.StorageNamespace + ")"
		}
		what := fmt.Sprintf("chunked release records with owner %q", cfg.Owner)
		if readsSeveralStores(s.client) {
			var stores []string
			for _, d := range cfg.Drivers {
				stores = append(stores, kube.DriverLabel(d))
			}
			what = fmt.Sprintf("release records (stores read: %s; chunked ones with owner %q)", strings.Join(stores, ", "), cfg.Owner)
		}
		text := fmt.Sprintf("No %s in %s. Press n to look in another namespace or in all of them. Records written by another tool may need --owner, --storage-namespace or --profile olmv1.", what, where)
		if s.partial != nil {
			text = fmt.Sprintf("No %s in %s, the namespaces you may read. %s.", what, strings.Join(s.partial.Read, ", "), strings.TrimPrefix(s.partial.Error(), kube.ErrPartial.Error()+": "))
		}
		if s.skipped != nil {
			text += " Not read: " + skipNote(s.skipped) + "."
		}
		return st.Dim.Render(wrap(text, s.width))
	}

	cols := fitReleaseColumns(s.items, readsSeveralStores(s.client), s.width)
	lines = append(lines, renderHeader(cols, &st.TableHeader))
	chunkSize := chunkSizeOf(s.client)
	end := min(s.offset+s.tableHeight(), len(s.shown))
	shareWidth, fillWidth := colWidth(cols, "LARGEST"), colWidth(cols, "FILL")
	for i := s.offset; i < end; i++ {
		it := &s.items[s.shown[i]]
		l := it.row.Latest
		status := st.statusCell(l)
		if it.err != nil && !l.Broken {
			status = styled("! "+l.Status, &st.Error)
		}
		largest, ok := largestSecret(l, chunkSize, s.layouts)
		cells := map[string]cell{
			"NAMESPACE":  plain(releaseNamespace(l)),
			"STORAGE NS": plain(storageNSText(l)),
			"NAME":       plain(l.Name),
			"REV":        plain(itoa(l.Revision)),
			"STATUS":     status,
			"CHART":      plain(chartText(l)),
			"APP":        plain(knownOr(l, l.Summary.AppVersion)),
			"AGE":        plain(human.Age(s.now(), l.Updated)),
			"CHUNKS":     plain(knownOr(l, itoa(l.Summary.Chunks))),
			"SIZE":       plain(sizeText(l)),
			"LARGEST":    st.shareCell(largest, ok, shareWidth),
			"STORE":      plain(kube.DriverLabel(storeOf(l.Driver))),
			"FILL":       st.fillCell(l, fillWidth),
			"HISTORY":    plain(historyText(it.row)),
		}
		if isHelmStore(l.Driver) {
			// One object per revision: there are no chunks to count.
			cells["CHUNKS"] = plain("-")
		}
		gutter := "  "
		if i == s.cursor {
			gutter = st.Cursor.Render("▶ ")
			cells["NAME"] = styled(l.Name, &st.Selected)
		}
		lines = append(lines, renderRow(cols, cells, gutter))
	}
	for len(lines) < s.tableHeight()+1 {
		lines = append(lines, "")
	}
	lines = append(lines, s.detailLines()...)
	return strings.Join(lines, "\n")
}
