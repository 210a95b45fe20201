package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/kube"
)

// releaseColumns are the list's columns. The bar goes first when room runs
// short, then the app version and the chunk count; NAME never does.
var releaseColumns = []column{
	{title: "NAMESPACE", width: 10, flex: 1, prio: 4},
	{title: "NAME", width: 12, flex: 2},
	{title: "REV", width: 3, right: true, prio: 5},
	{title: "STATUS", width: 17},
	{title: "CHART", width: 12, flex: 1, prio: 4},
	{title: "APP", width: 7, prio: 2},
	{title: "AGE", width: 4, right: true, prio: 6},
	{title: "CHUNKS", width: 6, right: true, prio: 3},
	{title: "SIZE", width: 8, right: true, prio: 7},
	{title: "LARGEST", width: 10, prio: 1},
}

// storageNSColumn shows where a release's records live, only when some listed
// release keeps them outside its own namespace.
var storageNSColumn = column{title: "STORAGE NS", width: 10, flex: 1, prio: 2}

// columnsFor returns the list's columns for items: STORAGE NS after NAMESPACE
// when some release's records live apart from it.
func columnsFor(items []releaseItem) []column {
	for _, it := range items {
		if l := it.row.Latest; l.StorageNamespace != releaseNamespace(l) {
			cols := append([]column{releaseColumns[0], storageNSColumn}, releaseColumns[1:]...)
			return cols
		}
	}
	return releaseColumns
}

// refilter applies the filter, keeping the list's order: by default the rows
// whose name holds the text (any case), as k9s does; with a leading "~", a fuzzy
// match on name, namespace, chart and status.
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
			hay[i] = fmt.Sprintf("%s/%s %s %s", releaseNamespace(l), l.Name, chartText(l), l.Status)
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
		case kube.Pending(l.Status):
			first = st.Warning.Render(line1(s.width, fmt.Sprintf("◔ %s has been %s for %s; if no Helm operation is running, it is stuck.", l.Name, l.Status, duration(s.now().Sub(l.Updated)))))
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
		case l.Known:
			first = st.Dim.Render(line1(s.width, fmt.Sprintf("%s · app %s · %s · %s", chartText(l), orDash(l.Summary.AppVersion), plural(it.row.Revisions, "revision", "revisions"), oneLine(l.Summary.Description))))
		}
	}
	filter := ""
	switch {
	case s.filtering:
		filter = s.filter.View()
	case s.filter.Value() != "":
		filter = st.Accent.Render(fmt.Sprintf("filter: %s (%d of %d; esc clears)", s.filter.Value(), len(s.shown), len(s.items)))
	default:
		filter = st.Dim.Render(plural(len(s.items), "release", "releases"))
		if s.partial != nil {
			filter = st.Warning.Render(line1(s.width, fmt.Sprintf("⚠ %d releases, from %s only: other namespaces may not be read (--namespaces names more)",
				len(s.items), strings.Join(s.partial.Read, ", "))))
		}
		if n := len(s.inflight); n > 0 {
			filter += st.Dim.Render(fmt.Sprintf(" · reading %d…", n))
		}
	}
	return []string{first, second, filter}
}
