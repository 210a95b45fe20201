package history

import (
	"strings"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// chunkedColumns are the history's columns for a chunked release: the growth
// bar goes first when room runs short, then the app version and the chart.
var chunkedColumns = []table.Column{
	{Title: "REV", Width: 4, Right: true},
	{Title: "STATUS", Width: 17},
	{Title: "CHART", Width: 14, Flex: 1, Prio: 3},
	{Title: "APP", Width: 7, Prio: 2},
	{Title: "AGE", Width: 5, Right: true, Prio: 5},
	{Title: "CHUNKS", Width: 6, Right: true, Prio: 4},
	{Title: "SIZE", Width: 8, Right: true, Prio: 6},
	{Title: "GROWTH", Width: 10, Prio: 1},
	{Title: "DESCRIPTION", Width: 12, Flex: 3},
}

// helmHistoryColumns are the history's columns for a release in one of Helm's
// stores: each revision is one object, so in place of its chunk count, its share
// of the object's 1 MiB.
var helmHistoryColumns = func() []table.Column {
	cols := append([]table.Column(nil), chunkedColumns...)
	for i, c := range cols {
		if c.Title == "CHUNKS" {
			cols[i] = table.Column{Title: "FILL", Width: 10, Prio: c.Prio}
		}
	}
	return cols
}()

// columns returns the history's columns for the store the screen reads.
func (s *Screen) columns() []table.Column {
	if common.IsHelmStore(s.store()) {
		return helmHistoryColumns
	}
	return chunkedColumns
}

// tableView draws the trend, the revisions and the selected one's detail.
func (s *Screen) tableView() string {
	st := s.Styles
	switch {
	case s.gone != "":
		return st.OK.Render(human.WrapCells("✓ "+s.gone, s.Width)) + "\n\n" + st.Dim.Render("esc: back to the release list")
	case !s.loaded && s.err != nil:
		return common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("r: retry · esc: back")
	case !s.loaded:
		return st.Dim.Render("Reading the history of " + s.name + "…")
	}
	// The detail's height follows the selection: the rows fit what is left.
	s.clamp()
	var lines []string
	trend := s.headLines()
	lines = append(lines, trend...)
	cols := table.FitColumns(s.columns(), s.Width)
	lines = append(lines, table.RenderHeader(cols, &st.TableHeader))
	var top int64
	for _, r := range s.rows {
		top = max(top, r.Summary.StoredBytes)
	}
	growthWidth, fillWidth, chartWidth := table.ColWidth(cols, "GROWTH"), table.ColWidth(cols, "FILL"), table.ColWidth(cols, "CHART")
	end := min(s.list.Offset()+s.tableHeight(), len(s.rows))
	opts := render.Options{Now: s.Now(), Screen: true}
	for i := s.list.Offset(); i < end; i++ {
		r := s.rows[i]
		cells := s.revisionCells(r, opts, chartWidth, fillWidth)
		growth := table.Plain("")
		if r.Known && top > 0 {
			growth = table.Cell{Text: table.Bar(float64(r.Summary.StoredBytes)/float64(top), growthWidth, &st.Spark, &st.GaugeEmpty)}
		}
		cells["GROWTH"] = growth
		gutter := " "
		if i == s.list.Cursor() {
			gutter = st.Cursor.Render("▶")
			cells["REV"] = table.Styled(table.Itoa(r.Revision), &st.Selected)
		}
		if r.Revision == s.mark {
			gutter += st.Marked.Render("◆")
		} else {
			gutter += " "
		}
		lines = append(lines, table.RenderRow(cols, cells, gutter))
	}
	for len(lines) < s.tableHeight()+1+len(trend) {
		lines = append(lines, "")
	}
	lines = append(lines, s.detailLines()...)
	return strings.Join(lines, "\n")
}

// revisionCells are revision r's cells under the history's titles: the text
// and meaning render gives (render.HistoryRow), the state marked, the chart
// fitted to chartWidth and the fill drawn in fillWidth. STATUS also says
// when reading the revision failed, which only the screen knows.
func (s *Screen) revisionCells(r kube.RevisionRow, opts render.Options, chartWidth, fillWidth int) map[string]table.Cell {
	st := s.Styles
	row := render.HistoryRow(r, opts)
	cells := make(map[string]table.Cell, len(row)+1)
	for j, c := range render.HistoryColumns {
		cells[c.Title()] = common.TextCell(st, row[j])
	}
	cells["STATUS"] = common.StateCell(st, row[historyStatus], r.Broken)
	if _, failed := s.rowErr[common.RowID(r)]; failed && !r.Broken {
		cells["STATUS"] = table.Styled("! "+r.Status, &st.Error)
	}
	cells["CHART"] = table.Plain(common.ChartFit(r, chartWidth))
	cells["FILL"] = common.FillCell(st, r, fillWidth)
	return cells
}

// historyStatus is where STATUS is in a row of render.HistoryColumns.
var historyStatus = render.Table{Columns: render.HistoryColumns}.Index("STATUS")
