package chunks

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
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
		s.view.SetContent(renderHelmLayout(st, s.layout, s.row.Driver, s.Width))
	default:
		text := renderLayout(st, s.layout, s.Width)
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

var layoutColumns = []table.Column{
	{Title: "SECRET", Width: 14, Flex: 2},
	{Title: "ROLE", Width: 8, Prio: 2},
	{Title: "BYTES", Width: 8, Right: true},
	{Title: "OF 1 MiB", Width: 12, Flex: 1, Prio: 3},
	{Title: "HASH", Width: 6, Prio: 1},
	{Title: "OWNER", Width: 6, Prio: 1},
	{Title: "STATE", Width: 12},
}

// stateProblem maps a Secret's state to the verification problem that explains it.
func stateProblem(st storage.SecretState) storage.ProblemKind {
	switch st {
	case storage.StateMissing:
		return storage.ProblemMissingChunk
	case storage.StateCorrupt:
		return storage.ProblemHashMismatch
	case storage.StateOrphan:
		return storage.ProblemOrphanChunk
	case storage.StateWrongTyp:
		return storage.ProblemWrongType
	}
	return ""
}

// renderLayout draws a layout at the given width. It is pure.
func renderLayout(st *theme.Styles, l *storage.Layout, width int) string {
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	lines := []string{
		st.Title.Render(table.Line1(width, head)),
		st.Explainer.Render(human.WrapCells(formatExplainer, width)),
		"",
	}
	rows, problems := layoutRows(st, l, width)
	lines = append(lines, rows...)
	lines = append(lines, "")
	lines = append(lines, layoutProblems(st, l, problems, width)...)
	lines = append(lines, layoutTotals(st, l, width)...)
	return strings.Join(lines, "\n")
}

// layoutRows draws the table of the record's Secrets, a detail line under each
// that is not well, and returns the states found wrong, each once, in order.
func layoutRows(st *theme.Styles, l *storage.Layout, width int) ([]string, []storage.SecretState) {
	cols := table.FitColumns(layoutColumns, width)
	barWidth := 12
	for _, c := range cols {
		if c.Title == "OF 1 MiB" {
			barWidth = c.Width
		}
	}
	lines := []string{table.RenderHeader(cols, &st.TableHeader)}
	var problems []storage.SecretState
	seen := map[storage.SecretState]bool{}
	row := func(role string, info storage.SecretInfo) {
		lines = append(lines, table.RenderRow(cols, layoutCells(st, cols, barWidth, role, info), "  "))
		if info.State == storage.StateOK {
			return
		}
		if !seen[info.State] {
			seen[info.State] = true
			problems = append(problems, info.State)
		}
		if info.Detail != "" {
			_, stStyle := stateCell(st, info.State)
			lines = append(lines, "    "+stStyle.Render(table.Line1(width-6, "↳ "+info.Detail)))
		}
	}
	row("index", l.Index)
	for i, c := range l.Chunks {
		row(fmt.Sprintf("chunk %d", i+2), c)
	}
	for _, o := range l.Orphans {
		row("orphan", o)
	}
	return lines, problems
}

// layoutCells is one Secret's row of the layout table.
func layoutCells(st *theme.Styles, cols []table.Column, barWidth int, role string, info storage.SecretInfo) map[string]table.Cell {
	state, stStyle := stateCell(st, info.State)
	cells := map[string]table.Cell{
		"SECRET": table.Plain(table.FitLeft(info.Name, table.ColWidth(cols, "SECRET"))),
		"ROLE":   table.Plain(role),
		"STATE":  state,
	}
	switch info.State {
	case storage.StateMissing:
		cells["BYTES"] = table.Plain("-")
		cells["OF 1 MiB"] = table.Styled("(does not exist)", stStyle)
		cells["HASH"] = table.Plain("-")
		cells["OWNER"] = table.Plain("-")
	default:
		cells["BYTES"] = table.Plain(human.Bytes(int64(info.Bytes)))
		pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
		cells["OF 1 MiB"] = table.Cell{Text: table.Bar(info.Share, max(barWidth-len(pct), 1), st.GaugeStyle(info.Share), &st.GaugeEmpty) + pct}
		cells["HASH"] = yesNo(st, info.HashOK, "✓ ok", "✗ bad")
		cells["OWNER"] = yesNo(st, info.Owned, "✓", "✗ none")
	}
	if info.Role == storage.TypeIndex {
		cells["HASH"] = table.Plain("n/a")
		cells["OWNER"] = table.Plain("n/a")
	}
	return cells
}

// layoutProblems explains why the revision cannot be read, and each state
// found wrong, followed by a blank line when there is any.
func layoutProblems(st *theme.Styles, l *storage.Layout, problems []storage.SecretState, width int) []string {
	var lines []string
	if l.Broken() {
		lines = append(lines, st.ErrorBold.Render(human.WrapCells("✗ This revision cannot be read: "+table.OneLine(l.DecodeError), width)))
	}
	for _, p := range problems {
		if k := stateProblem(p); k != "" {
			state, stStyle := stateCell(st, p)
			lines = append(lines, stStyle.Render(state.Text)+" "+human.WrapCells(k.Explain(), max(width-lipglossWidth(state.Text)-1, 20)))
		}
	}
	if l.Broken() || len(problems) > 0 {
		lines = append(lines, "")
	}
	return lines
}

// layoutTotals is the record's sizes: stored, decompressed, as one Helm
// Secret, and what takes the space.
func layoutTotals(st *theme.Styles, l *storage.Layout, width int) []string {
	lines := []string{st.Bold.Render("Totals")}
	secrets := 1 + len(l.Chunks)
	lines = append(lines, fmt.Sprintf("  Stored (gzip)        %s in %d Secret(s)", human.Bytes(int64(l.StoredBytes)), secrets))
	if l.DecodedBytes > 0 {
		ratio := float64(l.DecodedBytes) / float64(max(l.StoredBytes, 1))
		lines = append(lines, fmt.Sprintf("  Decompressed (JSON)  %s (%.1f× the stored size)", human.Bytes(int64(l.DecodedBytes)), ratio))
	}
	if l.HelmSecretBytes > 0 {
		verdict := st.OK.Render("fits in one Secret")
		if !l.HelmSecretFits {
			verdict = st.ErrorBold.Render("would NOT fit in one Secret (over 1 MiB)")
		}
		lines = append(lines, fmt.Sprintf("  Helm Secrets driver  %s (base64 of gzip): ", human.Bytes(int64(l.HelmSecretBytes)))+verdict)
	}
	if len(l.Parts) > 0 {
		lines = append(lines, "", st.Bold.Render("What takes the space"))
		lines = append(lines, st.Dim.Render(human.WrapCells("Each part compressed on its own, so they add up to more than the whole.", width)))
		lines = append(lines, renderParts(st, l.Parts, width)...)
	}
	return lines
}

var partColumns = []table.Column{
	{Title: "PART", Width: 20},
	{Title: "ITEMS", Width: 5, Right: true, Prio: 1},
	{Title: "JSON", Width: 8, Right: true, Prio: 2},
	{Title: "GZIP", Width: 8, Right: true},
	{Title: "SHARE", Width: 10, Flex: 1, Prio: 3},
	{Title: "LARGEST", Width: 12, Flex: 2, Prio: 1},
}

func renderParts(st *theme.Styles, parts []storage.Part, width int) []string {
	cols := table.FitColumns(partColumns, width)
	total := 0
	for _, p := range parts {
		total += p.GzipBytes
	}
	lines := []string{table.RenderHeader(cols, &st.TableHeader)}
	for _, p := range parts {
		if p.Items == 0 {
			continue // an empty part costs a few bytes of JSON and says nothing
		}
		share := float64(p.GzipBytes) / float64(max(total, 1))
		cells := map[string]table.Cell{
			"PART":    table.Plain(p.Name),
			"ITEMS":   table.Plain(table.Itoa(p.Items)),
			"JSON":    table.Plain(human.Bytes(int64(p.JSONBytes))),
			"GZIP":    table.Plain(human.Bytes(int64(p.GzipBytes))),
			"SHARE":   {Text: table.Bar(share, table.ColWidth(cols, "SHARE"), &st.Spark, &st.GaugeEmpty)},
			"LARGEST": table.Plain(p.LargestOne),
		}
		lines = append(lines, table.RenderRow(cols, cells, "  "))
	}
	return lines
}

func yesNo(st *theme.Styles, ok bool, yes, no string) table.Cell {
	if ok {
		return table.Styled(yes, &st.StateOK)
	}
	return table.Styled(no, &st.Error)
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
