package chunks

// The chunk layout drawn: render's table, totals, parts and problems of a
// chunked revision, styled. Pure: the Screen (chunks.go) and the layout of a
// record of Helm's own stores (helmlayout.go) draw with it.

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// layoutColumns lay out render.LayoutTable's columns on the screen, by name; a
// record of the chunked store has no TYPE to show.
var layoutColumns = map[string]table.Column{
	render.LayoutSecret: {Width: 14, Flex: 2},
	render.LayoutRole:   {Width: 8, Prio: 3},
	render.LayoutSize:   {Width: 8},
	render.LayoutShare:  {Width: 11, Flex: 1, Prio: 4},
	render.LayoutHash:   {Width: 10, Prio: 2},
	render.LayoutOwner:  {Width: 9, Prio: 2},
	render.LayoutState:  {Width: 12},
	render.LayoutAge:    {Width: 5, Prio: 1},
}

// renderLayout draws a layout at the given width. It is pure.
func renderLayout(st *theme.Styles, l *storage.Layout, now time.Time, width int) string {
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	lines := []string{
		st.Title.Render(table.Line1(width, head)),
		st.Explainer.Render(human.WrapCells(formatExplainer, width)),
		"",
	}
	lines = append(lines, layoutRows(st, l, now, width)...)
	lines = append(lines, "")
	lines = append(lines, layoutProblems(st, l, width)...)
	lines = append(lines, layoutTotals(st, l, kube.DriverChunked, width)...)
	lines = append(lines, partsLines(st, l.Parts, width)...)
	return strings.Join(lines, "\n")
}

// layoutRows draws the table of the record's Secrets (render.LayoutTable) and a
// detail line under each that is not well.
func layoutRows(st *theme.Styles, l *storage.Layout, now time.Time, width int) []string {
	t := render.LayoutTable(l, kube.DriverChunked, render.Options{Now: now})
	cols := table.FitColumns(common.TableColumns(t, layoutColumns), width)
	lines := []string{table.RenderHeader(cols, &st.TableHeader)}
	for i, r := range render.LayoutRows(l) {
		lines = append(lines, table.RenderRow(cols, layoutCells(st, cols, t, i, r.Info), "  "))
		if r.Info.State != storage.StateOK && r.Info.Detail != "" {
			_, stStyle := stateCell(st, r.Info.State)
			lines = append(lines, "    "+stStyle.Render(table.Line1(width-6, "↳ "+r.Info.Detail)))
		}
	}
	return lines
}

// layoutCells is row i of t, the Secret info, as the screen draws it: marks
// before the checks and the state, which read without colour, and the share of
// the limit as a bar.
func layoutCells(st *theme.Styles, cols []table.Column, t render.Table, i int, info storage.SecretInfo) map[string]table.Cell {
	cells := common.TableCells(st, t, i)
	for _, name := range []string{render.LayoutHash, render.LayoutOwner} {
		c := t.Cell(i, name)
		cells[t.Columns[t.Index(name)].Title()] = table.Cell{Text: c.Marked(), Style: common.MeaningStyle(st, c.Meaning)}
	}
	cells[render.LayoutState], _ = stateCell(st, info.State)
	object := t.Columns[0].Name
	cells[object] = table.Plain(table.FitLeft(info.Name, table.ColWidth(cols, object)))
	if info.State != storage.StateMissing {
		pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
		barWidth := max(table.ColWidth(cols, render.LayoutShare)-len(pct), 1)
		cells[render.LayoutShare] = table.Cell{Text: table.Bar(info.Share, barWidth, st.GaugeStyle(info.Share), &st.GaugeEmpty) + pct}
	}
	return cells
}

// layoutProblems explains why the revision cannot be read, and each state
// found wrong (render.LayoutProblems), each led by its sign, followed by a
// blank line when there is any.
func layoutProblems(st *theme.Styles, l *storage.Layout, width int) []string {
	var lines []string
	for _, p := range render.LayoutProblems(l) {
		if p.State == "" {
			lines = append(lines, st.ErrorBold.Render(human.WrapCells("✗ "+p.Text, width)))
			continue
		}
		state, stStyle := stateCell(st, p.State)
		lines = append(lines, stStyle.Render(state.Text+":")+" "+human.WrapCells(p.Text, max(width-lipglossWidth(state.Text)-2, 20)))
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return lines
}

// layoutTotals is the record's sizes (render.LayoutTotals), kept by store
// driver, and what takes the space.
func layoutTotals(st *theme.Styles, l *storage.Layout, driver string, width int) []string {
	lines := []string{st.Bold.Render("Totals")}
	totals := render.LayoutTotals(l, driver)
	label := 0
	for _, t := range totals {
		label = max(label, len(t.Label))
	}
	for _, t := range totals {
		lines = append(lines, fmt.Sprintf("  %-*s  ", label, t.Label)+common.Paint(st, t.Value.Text, t.Value.Meaning))
	}
	return lines
}

// partsLines is the table of what takes the space, under its title.
func partsLines(st *theme.Styles, parts []storage.Part, width int) []string {
	t := render.PartsTable(parts)
	if len(t.Rows) == 0 {
		return nil
	}
	lines := []string{"", st.Bold.Render(render.PartsTitle), st.Dim.Render(human.WrapCells(render.PartsNote, width))}
	return append(lines, renderParts(st, t, render.ShownParts(parts), width)...)
}

var partColumns = map[string]table.Column{
	render.PartName:    {Width: 20},
	render.PartItems:   {Width: 5, Prio: 1},
	render.PartJSON:    {Width: 8, Prio: 2},
	render.PartGzip:    {Width: 8},
	render.PartShare:   {Width: 10, Flex: 1, Prio: 3},
	render.PartLargest: {Width: 12, Flex: 2, Prio: 1},
}

// renderParts draws t, the table of parts (render.PartsTable), each part's share
// as a bar.
func renderParts(st *theme.Styles, t render.Table, parts []storage.Part, width int) []string {
	cols := table.FitColumns(common.TableColumns(t, partColumns), width)
	total := 0
	for _, p := range parts {
		total += p.GzipBytes
	}
	lines := []string{table.RenderHeader(cols, &st.TableHeader)}
	for i, p := range parts {
		cells := common.TableCells(st, t, i)
		share := float64(p.GzipBytes) / float64(max(total, 1))
		cells[render.PartShare] = table.Cell{Text: table.Bar(share, table.ColWidth(cols, render.PartShare), &st.Spark, &st.GaugeEmpty)}
		lines = append(lines, table.RenderRow(cols, cells, "  "))
	}
	return lines
}

func lipglossWidth(s string) int { return lipgloss.Width(s) }

// formatExplainer is the one paragraph a first-time reader needs to make sense of
// the layout.
const formatExplainer = "How a release is stored: Helm's release is gzipped and cut into slices; the index Secret holds the first slice and the names of the rest; each chunk's name ends in a hash of its bytes, so a damaged or swapped chunk is caught when read. No Secret may exceed 1 MiB."
