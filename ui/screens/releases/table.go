package releases

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// tableView draws the list: the table of the rows in view, then the selected
// release's detail and the filter line.
func (s *Screen) tableView() string {
	st := s.Styles
	switch {
	case !s.loaded && s.err != nil:
		return strings.Join([]string{common.RenderError(st, s.err, s.Width), "",
			st.Dim.Render(human.WrapCells("Press r to retry, or n to look in another namespace.", s.Width))}, "\n")
	case !s.loaded:
		return st.Dim.Render("Listing release records in " + s.ViewName + "…")
	case len(s.Items) == 0:
		return st.Dim.Render(human.WrapCells(s.emptyText(), s.Width))
	}
	lines := s.rowLines()
	for len(lines) < s.tableHeight()+1 {
		lines = append(lines, "")
	}
	lines = append(lines, s.detailLines()...)
	return strings.Join(lines, "\n")
}

// emptyText says where the list looked for releases and found none, and what
// to try.
func (s *Screen) emptyText() string {
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
	return text
}

// rowLines are the table's header and its rows in view, the selected one
// marked.
func (s *Screen) rowLines() []string {
	st := s.Styles
	cols := fitReleaseColumns(s.Items, common.ReadsSeveralStores(s.Client), s.Width)
	lines := []string{table.RenderHeader(cols, &st.TableHeader)}
	opts := render.Options{Now: s.Now(), Screen: true}
	for i := s.list.Offset(); i < s.list.End(); i++ {
		it := &s.Items[s.Shown[i]]
		cells := s.releaseCells(it, cols, opts)
		gutter := "  "
		if i == s.list.Cursor() {
			gutter = st.Cursor.Render("▶ ")
			cells["NAME"] = table.Styled(it.Row.Latest.Name, &st.Selected)
		}
		lines = append(lines, table.RenderRow(cols, cells, gutter))
	}
	return lines
}

// releaseCells are release it's cells under the list's titles: the text and
// meaning render gives (render.ReleaseRow), the state marked, and the gauges
// of FILL and LARGEST drawn in cols' widths. STATUS also says what only the
// screen knows: that reading the row failed, or that Helm can no longer
// upgrade the release.
func (s *Screen) releaseCells(it *ReleaseItem, cols []table.Column, opts render.Options) map[string]table.Cell {
	st := s.Styles
	l := it.Row.Latest
	row := render.ReleaseRow(it.Row, opts)
	cells := make(map[string]table.Cell, len(row)+1)
	for j, c := range render.ReleaseColumns {
		cells[c.Title()] = common.TextCell(st, row[j])
	}
	cells["STATUS"] = common.StateCell(st, row[statusColumn], l.Broken)
	if it.Err != nil && !l.Broken {
		cells["STATUS"] = table.Styled("! "+l.Status, &st.Error)
	}
	if _, bad := s.cannotUpgrade(l); bad && it.Err == nil {
		// Helm can no longer upgrade it: the detail line names the objects.
		cells["STATUS"] = table.Styled("✗ "+l.Status+" (apis)", &st.StatusFailed)
	}
	largest, ok := common.LargestSecret(l, common.ChunkSizeOf(s.Client), s.Layouts)
	cells["LARGEST"] = common.ShareCell(st, largest, ok, table.ColWidth(cols, "LARGEST"))
	cells["FILL"] = common.FillCell(st, l, table.ColWidth(cols, "FILL"))
	return cells
}

// statusColumn is where STATUS is in a row of render.ReleaseColumns.
var statusColumn = render.Table{Columns: render.ReleaseColumns}.Index("STATUS")
