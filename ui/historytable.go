package ui

import (
	"strings"

	"github.com/chunkview/chunkview/internal/human"
)

// historyColumns are the history's columns: the growth bar goes first when room
// runs short, then the app version and the chart.
var historyColumns = []column{
	{title: "REV", width: 4, right: true},
	{title: "STATUS", width: 17},
	{title: "CHART", width: 14, flex: 1, prio: 3},
	{title: "APP", width: 7, prio: 2},
	{title: "AGE", width: 5, right: true, prio: 5},
	{title: "CHUNKS", width: 6, right: true, prio: 4},
	{title: "SIZE", width: 8, right: true, prio: 6},
	{title: "GROWTH", width: 10, prio: 1},
	{title: "DESCRIPTION", width: 12, flex: 3},
}

// helmHistoryColumns are the history's columns for a release in one of Helm's
// stores: each revision is one object, so in place of its chunk count, its share
// of the object's 1 MiB.
var helmHistoryColumns = func() []column {
	cols := append([]column(nil), historyColumns...)
	for i, c := range cols {
		if c.title == "CHUNKS" {
			cols[i] = column{title: "FILL", width: 10, prio: c.prio}
		}
	}
	return cols
}()

// columns returns the history's columns for the store the screen reads.
func (s *historyScreen) columns() []column {
	if isHelmStore(s.store()) {
		return helmHistoryColumns
	}
	return historyColumns
}

// tableView draws the trend, the revisions and the selected one's detail.
func (s *historyScreen) tableView() string {
	st := s.styles
	switch {
	case s.gone != "":
		return st.OK.Render(wrap("✓ "+s.gone, s.width)) + "\n\n" + st.Dim.Render("esc: back to the release list")
	case !s.loaded && s.err != nil:
		return st.renderError(s.err, s.width) + "\n\n" + st.Dim.Render("r: retry · esc: back")
	case !s.loaded:
		return st.Dim.Render("Reading the history of " + s.name + "…")
	}
	var lines []string
	trend := s.headLines()
	lines = append(lines, trend...)
	cols := fitColumns(s.columns(), s.width)
	lines = append(lines, renderHeader(cols, &st.TableHeader))
	var top int64
	for _, r := range s.rows {
		top = max(top, r.Summary.StoredBytes)
	}
	growthWidth, fillWidth := colWidth(cols, "GROWTH"), colWidth(cols, "FILL")
	end := min(s.offset+s.tableHeight(), len(s.rows))
	for i := s.offset; i < end; i++ {
		r := s.rows[i]
		status := st.statusCell(r)
		if _, failed := s.rowErr[rowID(r)]; failed && !r.Broken {
			status = styled("! "+r.Status, &st.Error)
		}
		growth := plain("")
		if r.Known && top > 0 {
			growth = cell{text: bar(float64(r.Summary.StoredBytes)/float64(top), growthWidth, &st.Spark, &st.GaugeEmpty)}
		}
		desc := knownOr(r, oneLine(r.Summary.Description))
		if r.Broken {
			desc = oneLine(r.Problem)
		}
		cells := map[string]cell{
			"REV":         plain(itoa(r.Revision)),
			"STATUS":      status,
			"CHART":       plain(chartText(r)),
			"APP":         plain(knownOr(r, r.Summary.AppVersion)),
			"AGE":         plain(human.Age(s.now(), r.Updated)),
			"CHUNKS":      plain(knownOr(r, itoa(r.Summary.Chunks))),
			"SIZE":        plain(knownOr(r, human.Bytes(r.Summary.StoredBytes))),
			"GROWTH":      growth,
			"FILL":        st.fillCell(r, fillWidth),
			"DESCRIPTION": plain(desc),
		}
		if r.Broken {
			cells["DESCRIPTION"] = styled(desc, &st.Error)
		}
		gutter := " "
		if i == s.cursor {
			gutter = st.Cursor.Render("▶")
			cells["REV"] = styled(itoa(r.Revision), &st.Selected)
		}
		if r.Revision == s.mark {
			gutter += st.Marked.Render("◆")
		} else {
			gutter += " "
		}
		lines = append(lines, renderRow(cols, cells, gutter))
	}
	for len(lines) < s.tableHeight()+1+len(trend) {
		lines = append(lines, "")
	}
	lines = append(lines, s.detailLines()...)
	return strings.Join(lines, "\n")
}
