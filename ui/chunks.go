package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// formatExplainer is the one paragraph a first-time reader needs to make sense of
// the layout.
const formatExplainer = "How a release is stored: Helm's release is gzipped and cut into slices; the index Secret holds the first slice and the names of the rest; each chunk's name ends in a hash of its bytes, so a damaged or swapped chunk is caught when read. No Secret may exceed 1 MiB."

// chunksScreen draws how one revision is stored: the index and each chunk as a bar
// against the 1 MiB Secret limit, with hash state and owner, then the totals and
// what takes the space.
type chunksScreen struct {
	common
	row kube.RevisionRow
	// named puts the release's name in the title, when the screen below does
	// not show it.
	named   bool
	layout  *storage.Layout
	loading bool
	// measuring is set while the payload is decoded for the sizes (the
	// layout's Secrets and hash checks are drawn meanwhile); measureErr says
	// why that failed.
	measuring  bool
	measureErr error
	err        error
	vp         viewport.Model
}

func newChunksScreen(c common, row kube.RevisionRow) *chunksScreen {
	vp := viewport.New()
	vp.KeyMap = c.keys.Scroll.viewportKeys()
	vp.MouseWheelEnabled = false
	return &chunksScreen{common: c, row: row, vp: vp}
}

func (s *chunksScreen) init() tea.Cmd { return s.reload() }

func (s *chunksScreen) reload() tea.Cmd {
	s.loading = true
	return loadLayout(s.ctx, s.client, s.row.StorageNamespace, s.row.Name, s.row.Revision)
}

func (s *chunksScreen) title() string {
	what := "chunks"
	if isHelmStore(s.row.Driver) {
		what = "record"
	}
	if s.named {
		return fmt.Sprintf("%s › %s of revision %d", s.row.Name, what, s.row.Revision)
	}
	return fmt.Sprintf("%s of revision %d", what, s.row.Revision)
}

func (s *chunksScreen) busy() bool { return s.loading || s.measuring }

func (s *chunksScreen) capturing() bool { return false }

func (s *chunksScreen) handlesBack() bool { return false }

func (s *chunksScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h, 1))
	s.rerender()
}

func (s *chunksScreen) help() helpKeys {
	k := s.keys.Chunks
	sc := s.keys.Scroll
	return helpKeys{
		short: []key.Binding{sc.Down, sc.PageDown, k.Refresh},
		full:  [][]key.Binding{sc.bindings(), {k.Refresh}},
	}
}

func (s *chunksScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case layoutLoadedMsg:
		if msg.ns != s.row.StorageNamespace || msg.name != s.row.Name || msg.rev != s.row.Revision {
			return nil
		}
		s.loading = false
		s.layout, s.err, s.measureErr = msg.layout, msg.err, nil
		s.measuring = msg.layout != nil && !msg.layout.Measured()
		if msg.layout != nil {
			s.layouts.put(s.row, msg.layout)
		}
		s.rerender()
		if s.measuring {
			return measureLayout(s.ctx, s.client, msg.row, msg.layout)
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
	case releaseChangedMsg:
		if msg.ns == s.row.StorageNamespace && msg.name == s.row.Name {
			return s.reload()
		}
	case tea.KeyPressMsg:
		if key.Matches(msg, s.keys.Chunks.Refresh) {
			return s.reload()
		}
		return scrollViewport(msg, s.keys.Scroll, &s.vp)
	}
	return nil
}

func (s *chunksScreen) rerender() {
	st := s.styles
	switch {
	case s.err != nil:
		s.vp.SetContent(st.renderError(s.err, s.width) + "\n\n" + st.Dim.Render("r: retry · esc: back"))
	case s.layout == nil:
		s.vp.SetContent(st.Dim.Render(fmt.Sprintf("Reading the %s of revision %d of %s…", map[bool]string{true: "record", false: "Secrets"}[isHelmStore(s.row.Driver)], s.row.Revision, s.row.Name)))
	case isHelmStore(s.row.Driver):
		s.vp.SetContent(renderHelmLayout(st, s.layout, s.row.Driver, s.width))
	default:
		text := renderLayout(st, s.layout, s.width)
		switch {
		case s.measureErr != nil:
			text += "\n\n" + st.renderError(s.measureErr, s.width) + "\n" + st.Dim.Render("r: retry")
		case !s.layout.Measured():
			text += "\n\n" + st.Dim.Render(wrap("Decoding the payload for its decompressed size and what takes the space…", s.width))
		}
		s.vp.SetContent(text)
	}
}

func (s *chunksScreen) view() string { return viewMarked(&s.vp) }

var layoutColumns = []column{
	{title: "SECRET", width: 14, flex: 2},
	{title: "ROLE", width: 8, prio: 2},
	{title: "BYTES", width: 8, right: true},
	{title: "OF 1 MiB", width: 12, flex: 1, prio: 3},
	{title: "HASH", width: 6, prio: 1},
	{title: "OWNER", width: 6, prio: 1},
	{title: "STATE", width: 12},
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
func renderLayout(st *Styles, l *storage.Layout, width int) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	add(st.Title.Render(line1(width, head)))
	add(st.Explainer.Render(wrap(formatExplainer, width)))
	add("")

	cols := fitColumns(layoutColumns, width)
	barWidth := 12
	for _, c := range cols {
		if c.title == "OF 1 MiB" {
			barWidth = c.width
		}
	}
	add(renderHeader(cols, &st.TableHeader))
	var problems []storage.SecretState
	seen := map[storage.SecretState]bool{}
	row := func(role string, info storage.SecretInfo) {
		state, stStyle := st.stateCell(info.State)
		cells := map[string]cell{
			"SECRET": plain(fitLeft(info.Name, colWidth(cols, "SECRET"))),
			"ROLE":   plain(role),
			"STATE":  state,
		}
		switch info.State {
		case storage.StateMissing:
			cells["BYTES"] = plain("-")
			cells["OF 1 MiB"] = styled("(does not exist)", stStyle)
			cells["HASH"] = plain("-")
			cells["OWNER"] = plain("-")
		default:
			cells["BYTES"] = plain(human.Bytes(int64(info.Bytes)))
			pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
			cells["OF 1 MiB"] = cell{text: bar(info.Share, max(barWidth-len(pct), 1), st.gaugeStyle(info.Share), &st.GaugeEmpty) + pct}
			cells["HASH"] = yesNo(st, info.HashOK, "✓ ok", "✗ bad")
			cells["OWNER"] = yesNo(st, info.Owned, "✓", "✗ none")
		}
		if info.Role == storage.TypeIndex {
			cells["HASH"] = plain("n/a")
			cells["OWNER"] = plain("n/a")
		}
		add(renderRow(cols, cells, "  "))
		if info.State != storage.StateOK {
			if !seen[info.State] {
				seen[info.State] = true
				problems = append(problems, info.State)
			}
			if info.Detail != "" {
				add("    " + stStyle.Render(line1(width-6, "↳ "+info.Detail)))
			}
		}
	}
	row("index", l.Index)
	for i, c := range l.Chunks {
		row(fmt.Sprintf("chunk %d", i+2), c)
	}
	for _, o := range l.Orphans {
		row("orphan", o)
	}
	add("")

	if l.Broken() {
		add(st.ErrorBold.Render(wrap("✗ This revision cannot be read: "+oneLine(l.DecodeError), width)))
	}
	for _, p := range problems {
		if k := stateProblem(p); k != "" {
			state, stStyle := st.stateCell(p)
			add(stStyle.Render(state.text) + " " + wrap(k.Explain(), max(width-lipglossWidth(state.text)-1, 20)))
		}
	}
	if l.Broken() || len(problems) > 0 {
		add("")
	}

	add(st.Bold.Render("Totals"))
	secrets := 1 + len(l.Chunks)
	add(fmt.Sprintf("  Stored (gzip)        %s in %d Secret(s)", human.Bytes(int64(l.StoredBytes)), secrets))
	if l.DecodedBytes > 0 {
		ratio := float64(l.DecodedBytes) / float64(max(l.StoredBytes, 1))
		add(fmt.Sprintf("  Decompressed (JSON)  %s (%.1f× the stored size)", human.Bytes(int64(l.DecodedBytes)), ratio))
	}
	if l.HelmSecretBytes > 0 {
		verdict := st.OK.Render("fits in one Secret")
		if !l.HelmSecretFits {
			verdict = st.ErrorBold.Render("would NOT fit in one Secret (over 1 MiB)")
		}
		add(fmt.Sprintf("  Helm Secrets driver  %s (base64 of gzip): ", human.Bytes(int64(l.HelmSecretBytes))) + verdict)
	}
	if len(l.Parts) > 0 {
		add("", st.Bold.Render("What takes the space"))
		add(st.Dim.Render(wrap("Each part compressed on its own, so they add up to more than the whole.", width)))
		add(renderParts(st, l.Parts, width)...)
	}
	return strings.Join(lines, "\n")
}

var partColumns = []column{
	{title: "PART", width: 20},
	{title: "ITEMS", width: 5, right: true, prio: 1},
	{title: "JSON", width: 8, right: true, prio: 2},
	{title: "GZIP", width: 8, right: true},
	{title: "SHARE", width: 10, flex: 1, prio: 3},
	{title: "LARGEST", width: 12, flex: 2, prio: 1},
}

func renderParts(st *Styles, parts []storage.Part, width int) []string {
	cols := fitColumns(partColumns, width)
	total := 0
	for _, p := range parts {
		total += p.GzipBytes
	}
	lines := []string{renderHeader(cols, &st.TableHeader)}
	for _, p := range parts {
		if p.Items == 0 {
			continue // an empty part costs a few bytes of JSON and says nothing
		}
		share := float64(p.GzipBytes) / float64(max(total, 1))
		cells := map[string]cell{
			"PART":    plain(p.Name),
			"ITEMS":   plain(itoa(p.Items)),
			"JSON":    plain(human.Bytes(int64(p.JSONBytes))),
			"GZIP":    plain(human.Bytes(int64(p.GzipBytes))),
			"SHARE":   {text: bar(share, colWidth(cols, "SHARE"), &st.Spark, &st.GaugeEmpty)},
			"LARGEST": plain(p.LargestOne),
		}
		lines = append(lines, renderRow(cols, cells, "  "))
	}
	return lines
}

func yesNo(st *Styles, ok bool, yes, no string) cell {
	if ok {
		return styled(yes, &st.StateOK)
	}
	return styled(no, &st.Error)
}

func lipglossWidth(s string) int { return lipgloss.Width(s) }
