package releases

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
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

// storageNSText is a row's STORAGE NS cell: "·" when its records live in its
// own namespace, as most do.
func storageNSText(l kube.RevisionRow) string {
	if l.StorageNamespace == common.ReleaseNamespace(l) {
		return "·"
	}
	return l.StorageNamespace
}

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

// refilter applies the filter, keeping the list's order: by default the rows
// whose name holds the text (any case), as k9s does; with a leading "~", a fuzzy
// match on name, namespace, chart, status and store.
func (s *Screen) refilter() {
	s.Shown = matchReleases(s.Items, s.filter.Value())
}

// matchReleases returns the indexes of the items that filter q keeps, in order.
func matchReleases(items []ReleaseItem, q string) []int {
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
			l := it.Row.Latest
			hay[i] = fmt.Sprintf("%s/%s %s %s %s", common.ReleaseNamespace(l), l.Name, common.ChartText(l), l.Status, kube.DriverLabel(common.StoreOf(l.Driver)))
		}
		for _, m := range fuzzy.Find(fuzzyQ, hay) {
			out = append(out, m.Index)
		}
		slices.Sort(out)
	default:
		lq := strings.ToLower(q)
		for i, it := range items {
			if strings.Contains(strings.ToLower(it.Row.Latest.Name), lq) {
				out = append(out, i)
			}
		}
	}
	return out
}

// detailLines describe the selected release below the table: what is wrong with
// it and the key that leads to the fix, or its chart and description. The last
// line is the filter.
func (s *Screen) detailLines() []string {
	st := s.Styles
	var first, second string
	if s.err != nil {
		first = st.Error.Render(table.Line1(s.Width, "✗ Refresh failed, showing the last list: "+common.ShortError(s.err)))
	}
	if it := s.Selected(); it != nil && first == "" {
		l := it.Row.Latest
		switch {
		case it.Err != nil:
			first = st.Error.Render(table.Line1(s.Width, "✗ "+common.ShortError(it.Err)))
		case l.Broken:
			first = st.ErrorBold.Render(table.Line1(s.Width, fmt.Sprintf("✗ %s revision %d %s", l.Name, l.Revision, common.ProblemLine(l))))
			hint := "  c: which Secret is at fault · enter: history, to roll back or delete the revision"
			if s.ReadOnly() {
				hint = "  c: which Secret is at fault · enter: history (read-only: repairs are off)"
			}
			second = st.Dim.Render(table.Line1(s.Width, hint))
		case s.apisLine(l) != nil:
			rep := s.apisLine(l)
			fix := "enter, then A: fix-apis"
			if s.ReadOnly() {
				fix = "read-only: fix-apis is off"
			}
			first, second = common.CannotUpgradeLines(st, l.Name, *rep, fix, s.Width)
		case l.PendingIndex != nil:
			p := l.PendingIndex
			first = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %s revision %d was never written: a create of it was cut off %s ago, and its pending index fails every create of revision %d until removed.",
				l.Name, p.Revision, human.Span(s.Now().Sub(p.Created)), p.Revision)))
			second = st.Dim.Render(table.Line1(s.Width, fmt.Sprintf("  chunkview gc -n %s removes it (chunkview verify reports it)", l.StorageNamespace)))
		case kube.InFlight(l.Status) && s.Now().Sub(l.Updated) < s.Client.StuckAfter():
			// An operation that has just started: not something to fix.
			first = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("◔ %s has been %s for %s: an operation is in progress.", l.Name, l.Status, human.Span(s.Now().Sub(l.Updated)))))
			second = st.Dim.Render(table.Line1(s.Width, fmt.Sprintf("  it counts as stuck after %s (--stuck-after) · enter: history", human.Span(s.Client.StuckAfter()))))
		case kube.InFlight(l.Status):
			first = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("◔ %s has been %s for %s; if no Helm operation is running, it is stuck.", l.Name, l.Status, human.Span(s.Now().Sub(l.Updated)))))
			hint := "  enter: history, then F to fix the stuck release"
			if s.ReadOnly() {
				hint = "  enter: history (read-only: fixing it is off)"
			}
			second = st.Dim.Render(table.Line1(s.Width, hint))
		case l.Status == "failed":
			first = st.Error.Render(table.Line1(s.Width, fmt.Sprintf("✗ %s failed: %s", l.Name, table.OneLine(l.Summary.Description))))
			hint := "  enter: history, then R on a good revision to roll back"
			if s.ReadOnly() {
				hint = "  enter: history, to see what changed (read-only: rollback is off)"
			}
			second = st.Dim.Render(table.Line1(s.Width, hint))
		case l.Fill() >= common.FillWarn:
			mark, style := common.FillStyle(st, l.Fill())
			first = style.Render(table.Line1(s.Width, fmt.Sprintf("%s %s takes %.0f%% of the %s its store allows one revision (%s).",
				mark, l.Name, l.Fill()*100, common.LimitSize(l.LimitBytes), kube.DriverLabel(common.StoreOf(l.Driver)))))
			second = st.Dim.Render(table.Line1(s.Width, "  enter: history, for the revision that will not fit and what to do"))
		case l.Known:
			first = st.Dim.Render(table.Line1(s.Width, fmt.Sprintf("%s · app %s · %s · %s", common.ChartText(l), human.OrUnknown(l.Summary.AppVersion), common.RevisionsText(it.Row), table.OneLine(l.Summary.Description))))
		}
	}
	filter := ""
	switch {
	case s.filtering:
		filter = s.filter.View()
	case s.filter.Value() != "":
		filter = st.Accent.Render(fmt.Sprintf("filter: %s (%d of %d; esc clears)", s.filter.Value(), len(s.Shown), len(s.Items)))
	default:
		filter = st.Dim.Render(human.Plural(len(s.Items), "release", "releases"))
		switch {
		case s.partial != nil && s.skipped != nil:
			filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %d releases, from %s only; %s",
				len(s.Items), strings.Join(s.partial.Read, ", "), common.SkipNote(s.skipped))))
		case s.partial != nil:
			filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %d releases, from %s only: other namespaces may not be read (--namespaces names more)",
				len(s.Items), strings.Join(s.partial.Read, ", "))))
		case s.skipped != nil:
			filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %s; %s", human.Plural(len(s.Items), "release", "releases"), common.SkipNote(s.skipped))))
		}
		if n := len(s.Inflight); n > 0 {
			filter += st.Dim.Render(fmt.Sprintf(" · reading %d…", n))
		}
	}
	return []string{first, second, filter}
}

// tableView draws the list: the table of the rows in view, then the selected
// release's detail and the filter line.
func (s *Screen) tableView() string {
	st := s.Styles
	var lines []string
	switch {
	case !s.loaded && s.err != nil:
		lines = append(lines, common.RenderError(st, s.err, s.Width), "",
			st.Dim.Render(human.WrapCells("Press r to retry, or n to look in another namespace.", s.Width)))
		return strings.Join(lines, "\n")
	case !s.loaded:
		return st.Dim.Render("Listing release records in " + s.ViewName + "…")
	case len(s.Items) == 0:
		cfg := s.Client.Config()
		where := "namespace " + s.ViewName
		if s.ViewName == common.AllNamespaces {
			where = "any namespace"
		}
		if cfg.StorageNamespace != "" {
			where += " (records in " + cfg.StorageNamespace + ")"
		}
		what := fmt.Sprintf("chunked release records with owner %q", cfg.Owner)
		if common.ReadsSeveralStores(s.Client) {
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
			text += " Not read: " + common.SkipNote(s.skipped) + "."
		}
		return st.Dim.Render(human.WrapCells(text, s.Width))
	}

	cols := fitReleaseColumns(s.Items, common.ReadsSeveralStores(s.Client), s.Width)
	lines = append(lines, table.RenderHeader(cols, &st.TableHeader))
	chunkSize := common.ChunkSizeOf(s.Client)
	shareWidth, fillWidth := table.ColWidth(cols, "LARGEST"), table.ColWidth(cols, "FILL")
	for i := s.list.Offset(); i < s.list.End(); i++ {
		it := &s.Items[s.Shown[i]]
		l := it.Row.Latest
		status := common.StatusCell(st, l)
		if it.Err != nil && !l.Broken {
			status = table.Styled("! "+l.Status, &st.Error)
		}
		if _, bad := s.cannotUpgrade(l); bad && it.Err == nil {
			// Helm can no longer upgrade it: the detail line names the objects.
			status = table.Styled("✗ "+l.Status+" (apis)", &st.StatusFailed)
		}
		largest, ok := common.LargestSecret(l, chunkSize, s.Layouts)
		cells := map[string]table.Cell{
			"NAMESPACE":  table.Plain(common.ReleaseNamespace(l)),
			"STORAGE NS": table.Plain(storageNSText(l)),
			"NAME":       table.Plain(l.Name),
			"REV":        table.Plain(table.Itoa(l.Revision)),
			"STATUS":     status,
			"CHART":      table.Plain(common.ChartText(l)),
			"APP":        table.Plain(common.KnownOr(l, l.Summary.AppVersion)),
			"AGE":        table.Plain(human.Age(s.Now(), l.Updated)),
			"CHUNKS":     table.Plain(common.KnownOr(l, table.Itoa(l.Summary.Chunks))),
			"SIZE":       table.Plain(common.SizeText(l)),
			"LARGEST":    common.ShareCell(st, largest, ok, shareWidth),
			"STORE":      table.Plain(kube.DriverLabel(common.StoreOf(l.Driver))),
			"FILL":       common.FillCell(st, l, fillWidth),
			"HISTORY":    table.Plain(common.HistoryText(it.Row)),
		}
		if common.IsHelmStore(l.Driver) {
			// One object per revision: there are no chunks to count.
			cells["CHUNKS"] = table.Plain("-")
		}
		gutter := "  "
		if i == s.list.Cursor() {
			gutter = st.Cursor.Render("▶ ")
			cells["NAME"] = table.Styled(l.Name, &st.Selected)
		}
		lines = append(lines, table.RenderRow(cols, cells, gutter))
	}
	for len(lines) < s.tableHeight()+1 {
		lines = append(lines, "")
	}
	lines = append(lines, s.detailLines()...)
	return strings.Join(lines, "\n")
}

// apisLine is the report of row l when Helm can no longer upgrade it, for the
// detail lines; nil otherwise.
func (s *Screen) apisLine(l kube.RevisionRow) *apis.Report {
	if rep, bad := s.cannotUpgrade(l); bad && !l.Broken {
		return &rep
	}
	return nil
}
