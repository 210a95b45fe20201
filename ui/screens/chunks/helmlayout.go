package chunks

import (
	"fmt"
	"strings"
	"time"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// helmExplainer is the paragraph that makes sense of a record of Helm's own
// drivers: one object, and the limit that comes with it.
func helmExplainer(d string) string {
	obj := common.ObjectNoun(d)
	what := "one Secret of type helm.sh/release.v1"
	if common.StoreOf(d) == kube.DriverConfigMap {
		what = "one ConfigMap"
	}
	return fmt.Sprintf("How Helm's %ss driver stores a release: the release is gzipped, base64-encoded and kept whole in %s per revision. The API server refuses a %s holding over 1 MiB, so a revision that grows past it cannot be written.", obj, what, obj)
}

// helmLayoutColumns lay out render.LayoutTable's columns for a record of Helm's
// own drivers: no hash or owner, which only chunks carry; the object's type
// instead.
var helmLayoutColumns = map[string]table.Column{
	render.LayoutSecret:    {Width: 14, Flex: 2},
	render.LayoutConfigMap: {Width: 14, Flex: 2},
	render.LayoutRole:      {Width: 6, Prio: 3},
	render.LayoutType:      {Width: 18, Prio: 2},
	render.LayoutSize:      {Width: 8},
	render.LayoutShare:     {Width: 12, Flex: 1, Prio: 4},
	render.LayoutState:     {Width: 12},
	render.LayoutAge:       {Width: 5, Prio: 1},
}

// renderHelmLayout draws how a revision of Helm's Secrets or ConfigMaps store
// (d) is kept: its one object against the 1 MiB limit, the totals, and what takes
// the space. It is pure.
func renderHelmLayout(st *theme.Styles, l *storage.Layout, d string, now time.Time, width int) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }
	obj := common.ObjectNoun(d)
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	add(st.Title.Render(table.Line1(width, head)))
	add(st.Explainer.Render(human.WrapCells(helmExplainer(d), width)))
	add("")

	t := render.LayoutTable(l, common.StoreOf(d), render.Options{Now: now})
	cols := table.FitColumns(common.TableColumns(t, helmLayoutColumns), width)
	add(table.RenderHeader(cols, &st.TableHeader))
	info := l.Index
	cells := common.TableCells(st, t, 0)
	cells[t.Columns[0].Name] = table.Plain(table.FitLeft(info.Name, cols[0].Width))
	state, stStyle := stateCell(st, info.State)
	cells[render.LayoutState] = state
	pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
	mark, fillSt := common.FillStyle(st, info.Share)
	barWidth := max(table.ColWidth(cols, render.LayoutShare)-len(pct)-1, 1)
	cells[render.LayoutShare] = table.Cell{Text: table.Bar(info.Share, barWidth, fillSt, &st.GaugeEmpty) + fillSt.Render(pct+mark)}
	add(table.RenderRow(cols, cells, "  "))
	if info.State != storage.StateOK && info.Detail != "" {
		add("    " + stStyle.Render(table.Line1(width-6, "↳ "+info.Detail)))
	}
	add("")

	add(layoutProblems(st, l, width)...)

	add(layoutTotals(st, l, common.StoreOf(d), width)...)
	if info.Share >= common.FillWarn {
		add("", fillSt.Render(human.WrapCells(fmt.Sprintf("%s This record takes %.0f%% of what one %s may hold. %s", mark, info.Share*100, obj, fit.Growth{}.Advice(common.StoreOf(d))), width)))
	}
	add(partsLines(st, l.Parts, width)...)
	return strings.Join(lines, "\n")
}
