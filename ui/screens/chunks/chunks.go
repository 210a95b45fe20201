package chunks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
	"github.com/chunkview/chunkview/ui/theme"
)

// formatExplainer is the one paragraph a first-time reader needs to make sense of
// the layout.
const formatExplainer = "How a release is stored: Helm's release is gzipped and cut into slices; the index Secret holds the first slice and the names of the rest; each chunk's name ends in a hash of its bytes, so a damaged or swapped chunk is caught when read. No Secret may exceed 1 MiB."

// Screen draws how one revision is stored: the index and each chunk as a bar
// against the 1 MiB Secret limit, with hash state and owner, then the totals and
// what takes the space.
type Screen struct {
	common.Common
	row kube.RevisionRow
	// Named puts the release's name in the title, when the screen below does
	// not show it.
	Named   bool
	layout  *storage.Layout
	loading bool
	// measuring is set while the payload is decoded for the sizes (the
	// layout's Secrets and hash checks are drawn meanwhile); measureErr says
	// why that failed.
	measuring  bool
	measureErr error
	err        error
	view       viewer.Model
}

// New opens the layout of the record of row.
func New(c common.Common, row kube.RevisionRow) *Screen {
	return &Screen{Common: c, row: row, view: c.NewViewer()}
}

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd { return s.reload() }

func (s *Screen) reload() tea.Cmd {
	s.loading = true
	return loadLayout(s.Ctx, kube.NewInspector(s.Client), s.row.StorageNamespace, s.row.Name, s.row.Revision)
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string {
	what := "chunks"
	if common.IsHelmStore(s.row.Driver) {
		what = "record"
	}
	if s.Named {
		return fmt.Sprintf("%s › %s of revision %d", s.row.Name, what, s.row.Revision)
	}
	return fmt.Sprintf("%s of revision %d", what, s.row.Revision)
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.loading || s.measuring }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return false }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.view.SetSize(w, max(h, 1))
	s.rerender()
}

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k := s.Keys.Chunks
	sc := s.Keys.Scroll
	return common.HelpKeys{
		Short: []key.Binding{sc.Down, sc.PageDown, k.Refresh},
		Full:  [][]key.Binding{sc.Bindings(), {k.Refresh}},
	}
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LayoutLoadedMsg:
		if msg.Ns != s.row.StorageNamespace || msg.Name != s.row.Name || msg.Rev != s.row.Revision {
			return nil
		}
		s.loading = false
		s.layout, s.err, s.measureErr = msg.Layout, msg.err, nil
		s.measuring = msg.Layout != nil && !msg.Layout.Measured()
		if msg.Layout != nil {
			s.Layouts.Put(s.row, largestSecret(msg.Layout))
		}
		s.rerender()
		if s.measuring {
			return measureLayout(s.Ctx, kube.NewInspector(s.Client), msg.row, msg.Layout)
		}
		return nil
	case layoutMeasuredMsg:
		if msg.from != s.layout {
			return nil // a layout read again meanwhile
		}
		s.measuring = false
		if msg.err != nil {
			s.measureErr = msg.err
		} else {
			s.layout = msg.layout
		}
		s.rerender()
		return nil
	case common.ReleaseChangedMsg:
		if msg.Ns == s.row.StorageNamespace && msg.Name == s.row.Name {
			return s.reload()
		}
	case tea.KeyPressMsg:
		if key.Matches(msg, s.Keys.Chunks.Refresh) {
			return s.reload()
		}
		var cmd tea.Cmd
		s.view, cmd = s.view.Update(msg)
		return cmd
	}
	return nil
}

func (s *Screen) rerender() {
	st := s.Styles
	switch {
	case s.err != nil:
		s.view.SetContent(common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("r: retry · esc: back"))
	case s.layout == nil:
		s.view.SetContent(st.Dim.Render(fmt.Sprintf("Reading the %s of revision %d of %s…", map[bool]string{true: "record", false: "Secrets"}[common.IsHelmStore(s.row.Driver)], s.row.Revision, s.row.Name)))
	case common.IsHelmStore(s.row.Driver):
		s.view.SetContent(renderHelmLayout(st, s.layout, s.row.Driver, s.Now(), s.Width))
	default:
		text := renderLayout(st, s.layout, s.Now(), s.Width)
		switch {
		case s.measureErr != nil:
			text += "\n\n" + common.RenderError(st, s.measureErr, s.Width) + "\n" + st.Dim.Render("r: retry")
		case !s.layout.Measured():
			text += "\n\n" + st.Dim.Render(human.WrapCells("Decoding the payload for its decompressed size and what takes the space…", s.Width))
		}
		s.view.SetContent(text)
	}
}

// View draws it in exactly its size.
func (s *Screen) View() string { return s.view.View() }

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
	t := render.LayoutTable(l, kube.DriverChunked, render.Options{Now: now, Screen: true})
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

// largestSecret is the size of the largest Secret of layout l, which the
// release list draws against the Secret limit.
func largestSecret(l *storage.Layout) int {
	n := l.Index.Bytes
	for _, c := range l.Chunks {
		n = max(n, c.Bytes)
	}
	return n
}
