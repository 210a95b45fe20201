package revision

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/diff"
	"github.com/chunkview/chunkview/ui/theme"
)

// Screen shows one revision in tabs: summary, values, manifest, notes and
// hooks. Secrets are masked until revealed. Each tab's text is rendered once per
// switch setting and kept.
type Screen struct {
	common.Common
	row     kube.RevisionRow
	details *kube.Details
	loading bool
	err     error

	tab       revisionTab
	reveal    bool
	allValues bool
	rendered  map[renderKey]string
	rendering map[renderKey]bool
	// view shows the tab's text, with a / search.
	view viewer.Model
}

// New opens revision row of a release, on its summary.
func New(c common.Common, row kube.RevisionRow) *Screen {
	return &Screen{Common: c, row: row, rendered: map[renderKey]string{}, rendering: map[renderKey]bool{},
		view: c.NewViewer().WithSearch(c.NewSearch())}
}

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd {
	s.loading = true
	return loadDetails(s.Ctx, s.Client, s.row)
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string { return "revision " + table.Itoa(s.row.Revision) }

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.loading || s.rendering[s.shown()] }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return s.view.Search().Typing() }

// HandlesBack: esc clears a search before it leaves the screen.
func (s *Screen) HandlesBack() bool { return s.view.Search().Active() }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	// The tab bar and a blank line above, a status line below.
	s.view.SetSize(w, max(h-3, 1))
}

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k := s.Keys.Revision
	if sr := s.view.Search(); sr.Active() {
		b := sr.Bindings()
		return common.HelpKeys{Short: b, Full: [][]key.Binding{b, s.Keys.Scroll.Bindings()}}
	}
	short := []key.Binding{k.NextTab, k.Reveal}
	if s.tab == tabValues {
		short = append(short, k.AllValues)
	}
	diff := k.Diff
	if s.row.Revision <= 1 {
		diff.SetEnabled(false) // nothing before revision 1
	}
	chunks := common.LayoutKey(k.Chunks, s.row.Driver)
	short = append(short, s.Keys.Search.Start, k.Copy, chunks, diff)
	return common.HelpKeys{
		Short: short,
		Full: [][]key.Binding{
			{k.NextTab, k.PrevTab, k.Summary, k.Values, k.Manifest, k.Notes, k.Hooks},
			{k.Reveal, k.AllValues, s.Keys.Search.Start, k.Copy, chunks, diff},
			s.Keys.Scroll.Bindings(),
		},
	}
}

// shown names the rendering the screen shows: tab, reveal and width.
func (s *Screen) shown() renderKey {
	rk := renderKey{tab: s.tab, readOnly: s.ReadOnly()}
	switch s.tab {
	case tabSummary:
		rk.width = s.Width
	case tabValues:
		rk.reveal, rk.all = s.reveal, s.allValues
	case tabManifest, tabNotes, tabHooks:
		rk.reveal = s.reveal
	}
	return rk
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case DetailsLoadedMsg:
		if msg.Ns != s.row.StorageNamespace || msg.Key != s.row.Key || msg.Rv != s.row.ResourceVersion {
			return nil
		}
		s.loading = false
		s.details, s.err = msg.Details, msg.err
		return s.show()
	case renderedMsg:
		if msg.Ns != s.row.StorageNamespace || msg.Key != s.row.Key || msg.Rv != s.row.ResourceVersion {
			return nil
		}
		delete(s.rendering, msg.Rk)
		s.rendered[msg.Rk] = msg.Text
		if msg.Rk == s.shown() {
			s.view.SetContent(msg.Text)
		}
		return nil
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return nil
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.Keys.Revision
	// A search may start before the revision is decoded: typed letters must not
	// fall through to the screen's keys.
	if s.view.SearchWants(msg) {
		var cmd tea.Cmd
		s.view, cmd = s.view.Update(msg)
		return cmd
	}
	tab := s.tab
	switch {
	case key.Matches(msg, k.Copy):
		text, ok := s.rendered[s.shown()]
		if !ok {
			return nil
		}
		return common.CopyText(ansi.Strip(text), tabNames[s.tab]+" of revision "+table.Itoa(s.row.Revision), s.reveal)
	case key.Matches(msg, k.NextTab):
		tab = (s.tab + 1) % tabCount
	case key.Matches(msg, k.PrevTab):
		tab = (s.tab + tabCount - 1) % tabCount
	case key.Matches(msg, k.Summary):
		tab = tabSummary
	case key.Matches(msg, k.Values):
		tab = tabValues
	case key.Matches(msg, k.Manifest):
		tab = tabManifest
	case key.Matches(msg, k.Notes):
		tab = tabNotes
	case key.Matches(msg, k.Hooks):
		tab = tabHooks
	case key.Matches(msg, k.Reveal):
		s.reveal = !s.reveal
		return s.show()
	case key.Matches(msg, k.AllValues):
		s.allValues = !s.allValues
		if s.tab != tabValues {
			tab = tabValues
		}
	case key.Matches(msg, k.Chunks):
		return common.Push(chunks.New(s.Common, s.row))
	case key.Matches(msg, k.Diff):
		if s.row.Revision <= 1 {
			return common.Status("Revision 1 has nothing before it to compare with.", true)
		}
		return common.Push(diff.New(s.Common, s.row.StorageNamespace, s.row.Name, s.row.Revision-1, s.row.Revision))
	default:
		var cmd tea.Cmd
		s.view, cmd = s.view.Update(msg)
		return cmd
	}
	if tab != s.tab {
		s.tab = tab
		s.view.GotoTop()
	}
	return s.show()
}

// show puts the current tab's text in the viewport, rendering it first if it
// was not yet.
func (s *Screen) show() tea.Cmd {
	rk := s.shown()
	if text, ok := s.rendered[rk]; ok {
		s.view.SetContent(text)
		return nil
	}
	if s.details == nil || s.rendering[rk] {
		return nil
	}
	s.rendering[rk] = true
	d, st, now := s.details, s.Styles, s.Now
	ns, k, rv := s.row.StorageNamespace, s.row.Key, s.row.ResourceVersion
	return func() tea.Msg {
		return renderedMsg{Ns: ns, Key: k, Rv: rv, Rk: rk, Text: renderTab(st, d, rk, now())}
	}
}

// renderTab renders one tab of a decoded revision. It is pure: the same details
// and switches give the same text.
func renderTab(st *theme.Styles, d *kube.Details, rk renderKey, now time.Time) string {
	rls := d.Release
	if rk.tab == tabSummary {
		return renderSummary(st, d, now, rk.readOnly, rk.width)
	}
	if rls == nil {
		return st.Error.Render("✗ This revision cannot be decoded: "+table.OneLine(d.Row.Problem)) + "\n\n" +
			st.Dim.Render("Press c for the chunk layout: it shows which Secret is missing or damaged.")
	}
	masked := "secrets masked (v reveals)"
	if rk.reveal {
		masked = "secrets REVEALED (v masks)"
	}
	switch rk.tab {
	case tabValues:
		vals, what := rls.Config, "user-supplied values (a: all computed values)"
		if rk.all {
			what = "all computed values: chart defaults merged with user-supplied (a: user-supplied only)"
			if rls.Chart != nil {
				if all, err := chartutil.CoalesceValues(rls.Chart, rls.Config); err == nil {
					vals = all
				}
			}
		}
		text, err := revdiff.ValuesYAML(vals, rk.reveal)
		if err != nil {
			return common.RenderError(st, err, 80)
		}
		return st.Dim.Render("# "+what+"; "+masked) + "\n" + st.HighlightYAML(text)
	case tabManifest:
		m := rls.Manifest
		if !rk.reveal {
			m = revdiff.MaskManifest(m)
		}
		if strings.TrimSpace(m) == "" || strings.TrimSpace(m) == "---" {
			return st.Dim.Render("(this revision has no rendered manifest)")
		}
		return st.Dim.Render("# rendered manifest; "+masked) + "\n" + st.HighlightYAML(m)
	case tabNotes:
		if rls.Info == nil || strings.TrimSpace(rls.Info.Notes) == "" {
			return st.Dim.Render("(the chart printed no notes)")
		}
		// Charts print generated passwords in their notes: mask what the release
		// holds as secrets, as everywhere else.
		return table.ClipLines(revdiff.MaskNotes(rls, rk.reveal))
	case tabHooks:
		return renderHooks(st, rls.Hooks, rk.reveal, masked)
	}
	return ""
}

func renderHooks(st *theme.Styles, hooks []*release.Hook, reveal bool, masked string) string {
	if len(hooks) == 0 {
		return st.Dim.Render("(this revision has no hooks)")
	}
	var b strings.Builder
	b.WriteString(st.Dim.Render(fmt.Sprintf("# %d hook(s); %s", len(hooks), masked)) + "\n")
	for _, h := range hooks {
		if h == nil {
			continue
		}
		events := make([]string, len(h.Events))
		for i, e := range h.Events {
			events[i] = string(e)
		}
		b.WriteString("\n" + st.Title.Render(fmt.Sprintf("%s/%s", h.Kind, h.Name)) +
			st.Dim.Render(fmt.Sprintf("  %s · on %s · weight %d", h.Path, strings.Join(events, ", "), h.Weight)))
		if h.LastRun.Phase != "" {
			b.WriteString(st.Dim.Render(" · last run " + string(h.LastRun.Phase)))
		}
		b.WriteString("\n")
		m := h.Manifest
		if !reveal {
			m = revdiff.MaskManifest(m)
		}
		b.WriteString(st.HighlightYAML(strings.TrimRight(m, "\n")) + "\n")
	}
	return b.String()
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	st := s.Styles
	var tabs []string
	for i, name := range tabNames {
		// Brackets mark the active tab where colour does not.
		if revisionTab(i) == s.tab {
			tabs = append(tabs, st.TabActive.Render(fmt.Sprintf("[%d %s]", i+1, name)))
		} else {
			tabs = append(tabs, st.TabInactive.Render(fmt.Sprintf(" %d %s ", i+1, name)))
		}
	}
	bar := strings.Join(tabs, " ")
	if s.reveal {
		bar += "  " + st.Masked.Render(" secrets revealed ")
	}
	var body string
	switch {
	case s.err != nil:
		body = common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("esc: back")
	case s.details == nil:
		body = st.Dim.Render(fmt.Sprintf("Decoding revision %d of %s…", s.row.Revision, s.row.Name))
	case s.rendering[s.shown()]:
		body = st.Dim.Render("Rendering…")
	default:
		body = s.view.View()
	}
	foot := ""
	if s.details != nil && s.err == nil {
		foot = st.Dim.Render(fmt.Sprintf("%3.0f%% · line %d of %d", s.view.ScrollPercent()*100, s.view.YOffset()+1, s.view.TotalLineCount()))
	}
	if sr := s.view.Search(); sr.Footer() != "" {
		foot = table.Line1(s.Width, sr.Footer())
		if sr.Typing() {
			foot = sr.Footer()
		}
	}
	return table.CutLines(bar, s.Width) + "\n\n" + table.PadLines(body, max(s.Height-3, 1)) + "\n" + foot
}
