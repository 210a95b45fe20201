package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// revisionTab is one tab of the revision screen.
type revisionTab int

const (
	tabSummary revisionTab = iota
	tabValues
	tabManifest
	tabNotes
	tabHooks
	tabCount
)

var tabNames = [tabCount]string{"Summary", "Values", "Manifest", "Notes", "Hooks"}

// renderKey names one rendering of a tab: the text differs with the reveal and
// all-values switches.
type renderKey struct {
	tab    revisionTab
	reveal bool
	all    bool
	// readOnly leaves the keys that change the cluster out of the hints.
	readOnly bool
}

// renderedMsg carries a tab's text, rendered off the update loop: colouring a
// large manifest takes a moment.
type renderedMsg struct {
	ns, key, rv string
	rk          renderKey
	text        string
}

// revisionScreen shows one revision in tabs: summary, values, manifest, notes and
// hooks. Secrets are masked until revealed. Each tab's text is rendered once per
// switch setting and kept.
type revisionScreen struct {
	common
	row     kube.RevisionRow
	details *kube.Details
	loading bool
	err     error

	tab       revisionTab
	reveal    bool
	allValues bool
	rendered  map[renderKey]string
	rendering map[renderKey]bool
	vp        viewport.Model
	search    textSearch
}

func newRevisionScreen(c common, row kube.RevisionRow) *revisionScreen {
	vp := viewport.New()
	vp.KeyMap = c.keys.Scroll.viewportKeys()
	vp.MouseWheelEnabled = false
	return &revisionScreen{common: c, row: row, rendered: map[renderKey]string{}, rendering: map[renderKey]bool{}, vp: vp,
		search: newTextSearch(c.styles, c.keys.Search)}
}

func (s *revisionScreen) init() tea.Cmd {
	s.loading = true
	return loadDetails(s.ctx, s.client, s.row)
}

func (s *revisionScreen) title() string { return "revision " + itoa(s.row.Revision) }

func (s *revisionScreen) busy() bool { return s.loading || s.rendering[s.key()] }

func (s *revisionScreen) capturing() bool { return s.search.typing }

// handlesBack: esc clears a search before it leaves the screen.
func (s *revisionScreen) handlesBack() bool { return s.search.active() }

func (s *revisionScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	// The tab bar and a blank line above, a status line below.
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h-3, 1))
	s.search.input.SetWidth(max(w-4, 10))
}

func (s *revisionScreen) help() helpKeys {
	k := s.keys.Revision
	if s.search.active() {
		b := s.search.bindings()
		return helpKeys{short: b, full: [][]key.Binding{b, s.keys.Scroll.bindings()}}
	}
	short := []key.Binding{k.NextTab, k.Reveal}
	if s.tab == tabValues {
		short = append(short, k.AllValues)
	}
	diff := k.Diff
	if s.row.Revision <= 1 {
		diff.SetEnabled(false) // nothing before revision 1
	}
	chunks := layoutKey(k.Chunks, s.row.Driver)
	short = append(short, s.keys.Search.Start, k.Copy, chunks, diff)
	return helpKeys{
		short: short,
		full: [][]key.Binding{
			{k.NextTab, k.PrevTab, k.Summary, k.Values, k.Manifest, k.Notes, k.Hooks},
			{k.Reveal, k.AllValues, s.keys.Search.Start, k.Copy, chunks, diff},
			s.keys.Scroll.bindings(),
		},
	}
}

func (s *revisionScreen) key() renderKey {
	rk := renderKey{tab: s.tab, readOnly: s.readOnly()}
	switch s.tab {
	case tabValues:
		rk.reveal, rk.all = s.reveal, s.allValues
	case tabManifest, tabNotes, tabHooks:
		rk.reveal = s.reveal
	}
	return rk
}

func (s *revisionScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailsLoadedMsg:
		if msg.ns != s.row.StorageNamespace || msg.key != s.row.Key || msg.rv != s.row.ResourceVersion {
			return nil
		}
		s.loading = false
		s.details, s.err = msg.details, msg.err
		return s.show()
	case renderedMsg:
		if msg.ns != s.row.StorageNamespace || msg.key != s.row.Key || msg.rv != s.row.ResourceVersion {
			return nil
		}
		delete(s.rendering, msg.rk)
		s.rendered[msg.rk] = msg.text
		if msg.rk == s.key() {
			s.search.apply(&s.vp, msg.text)
		}
		return nil
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return nil
}

func (s *revisionScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys.Revision
	// A search may start before the revision is decoded: typed letters must not
	// fall through to the screen's keys.
	if cmd, ok := s.search.handleKey(msg, &s.vp, s.rendered[s.key()]); ok {
		return cmd
	}
	tab := s.tab
	switch {
	case key.Matches(msg, k.Copy):
		text, ok := s.rendered[s.key()]
		if !ok {
			return nil
		}
		return copyText(ansi.Strip(text), tabNames[s.tab]+" of revision "+itoa(s.row.Revision), s.reveal)
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
		return push(newChunksScreen(s.common, s.row))
	case key.Matches(msg, k.Diff):
		if s.row.Revision <= 1 {
			return status("Revision 1 has nothing before it to compare with.", true)
		}
		return push(newDiffScreen(s.common, s.row.StorageNamespace, s.row.Name, s.row.Revision-1, s.row.Revision))
	default:
		return scrollViewport(msg, s.keys.Scroll, &s.vp)
	}
	if tab != s.tab {
		s.tab = tab
		s.vp.GotoTop()
	}
	return s.show()
}

// show puts the current tab's text in the viewport, rendering it first if it
// was not yet.
func (s *revisionScreen) show() tea.Cmd {
	rk := s.key()
	if text, ok := s.rendered[rk]; ok {
		s.search.apply(&s.vp, text)
		return nil
	}
	if s.details == nil || s.rendering[rk] {
		return nil
	}
	s.rendering[rk] = true
	d, st, now := s.details, s.styles, s.now
	ns, k, rv := s.row.StorageNamespace, s.row.Key, s.row.ResourceVersion
	return func() tea.Msg {
		return renderedMsg{ns: ns, key: k, rv: rv, rk: rk, text: renderTab(st, d, rk, now())}
	}
}

// renderTab renders one tab of a decoded revision. It is pure: the same details
// and switches give the same text.
func renderTab(st *Styles, d *kube.Details, rk renderKey, now time.Time) string {
	rls := d.Release
	if rk.tab == tabSummary {
		return renderSummary(st, d, now, rk.readOnly)
	}
	if rls == nil {
		return st.Error.Render("✗ This revision cannot be decoded: "+oneLine(d.Row.Problem)) + "\n\n" +
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
			return st.renderError(err, 80)
		}
		return st.Dim.Render("# "+what+"; "+masked) + "\n" + st.highlightYAML(text)
	case tabManifest:
		m := rls.Manifest
		if !rk.reveal {
			m = revdiff.MaskManifest(m)
		}
		if strings.TrimSpace(m) == "" || strings.TrimSpace(m) == "---" {
			return st.Dim.Render("(this revision has no rendered manifest)")
		}
		return st.Dim.Render("# rendered manifest; "+masked) + "\n" + st.highlightYAML(m)
	case tabNotes:
		if rls.Info == nil || strings.TrimSpace(rls.Info.Notes) == "" {
			return st.Dim.Render("(the chart printed no notes)")
		}
		// Charts print generated passwords in their notes: mask what the release
		// holds as secrets, as everywhere else.
		return clipLines(revdiff.MaskNotes(rls, rk.reveal))
	case tabHooks:
		return renderHooks(st, rls.Hooks, rk.reveal, masked)
	}
	return ""
}

func renderHooks(st *Styles, hooks []*release.Hook, reveal bool, masked string) string {
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
		b.WriteString(st.highlightYAML(strings.TrimRight(m, "\n")) + "\n")
	}
	return b.String()
}

func (s *revisionScreen) view() string {
	st := s.styles
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
		body = st.renderError(s.err, s.width) + "\n\n" + st.Dim.Render("esc: back")
	case s.details == nil:
		body = st.Dim.Render(fmt.Sprintf("Decoding revision %d of %s…", s.row.Revision, s.row.Name))
	case s.rendering[s.key()]:
		body = st.Dim.Render("Rendering…")
	default:
		body = viewMarked(&s.vp)
	}
	foot := ""
	if s.details != nil && s.err == nil {
		foot = st.Dim.Render(fmt.Sprintf("%3.0f%% · line %d of %d", s.vp.ScrollPercent()*100, s.vp.YOffset()+1, s.vp.TotalLineCount()))
	}
	if f := s.search.footer(); f != "" {
		foot = line1(s.width, f)
		if s.search.typing {
			foot = f
		}
	}
	return cutLines(bar, s.width) + "\n\n" + padLines(body, max(s.height-3, 1)) + "\n" + foot
}
