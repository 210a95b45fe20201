package viewer

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/components/search"
)

// Model shows a text in a viewport.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	vp viewport.Model
	// search is used when searchable: raw is the text as set, which it marks.
	search     search.Model
	searchable bool
	raw        string
}

// New returns an empty viewer with the default keys and styles.
func New() Model {
	m := Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), vp: viewport.New()}
	m.vp.MouseWheelEnabled = false
	return m
}

// WithSearch returns the viewer searching its text with s: / and s's keys go
// to it, and its matches are marked.
func (m Model) WithSearch(s search.Model) Model {
	m.search, m.searchable = s, true
	return m
}

// Search is the viewer's search, to ask where it stands.
func (m Model) Search() search.Model { return m.search }

// SetSize sets the area the text is drawn in.
func (m *Model) SetSize(w, h int) {
	m.vp.SetWidth(w)
	m.vp.SetHeight(h)
	m.search.SetWidth(max(w-4, 10))
}

// Width is the width the text is drawn in.
func (m Model) Width() int { return m.vp.Width() }

// SetContent shows text. A searchable viewer marks the matches of its search in
// it and stays where the reader was.
func (m *Model) SetContent(text string) {
	if !m.searchable {
		m.vp.SetContent(text)
		return
	}
	m.raw = text
	y := m.vp.YOffset()
	m.vp.SetContent(m.search.Mark(text))
	m.vp.SetYOffset(y)
}

// Content is the text shown, with the search's marks.
func (m Model) Content() string { return m.vp.GetContent() }

// YOffset is the first line shown.
func (m Model) YOffset() int { return m.vp.YOffset() }

// SetYOffset shows the text from line y.
func (m *Model) SetYOffset(y int) { m.vp.SetYOffset(y) }

// GotoTop shows the text from its first line.
func (m *Model) GotoTop() { m.vp.GotoTop() }

// Height is the number of lines shown.
func (m Model) Height() int { return m.vp.Height() }

// ScrollPercent is how far down the text is shown, from 0 to 1.
func (m Model) ScrollPercent() float64 { return m.vp.ScrollPercent() }

// TotalLineCount is the number of lines of the text.
func (m Model) TotalLineCount() int { return m.vp.TotalLineCount() }

// SearchWants reports whether the search takes msg: any key while its text is
// typed, / to start one, and its own keys while one is set.
func (m Model) SearchWants(msg tea.KeyPressMsg) bool {
	return m.searchable && m.search.Wants(msg)
}

// Update takes the keys: the search's first (see SearchWants), then the scroll
// keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	if m.SearchWants(k) {
		return m.updateSearch(k)
	}
	m.vp.KeyMap = m.KeyMap.viewportKeys()
	switch {
	case key.Matches(k, m.KeyMap.Top):
		m.vp.GotoTop()
		return m, nil
	case key.Matches(k, m.KeyMap.Bottom):
		m.vp.GotoBottom()
		return m, nil
	}
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(k)
	return m, cmd
}

// updateSearch gives a key to the search, then shows what it found: the matches
// of a new search marked and the first at or below the top line in view, the
// text unmarked once cleared, or the match n and N went to.
func (m Model) updateSearch(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := m.search.KeyMap
	typing, set := m.search.Typing(), m.search.Query() != ""
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(msg)
	switch {
	case typing && key.Matches(msg, k.Go):
		m.SetContent(m.raw)
		m.search.GoNear(m.vp.YOffset())
		m.showMatch()
	case !typing && set && key.Matches(msg, k.Cancel):
		m.SetContent(m.raw)
	case !typing && set && key.Matches(msg, k.Next, k.Prev):
		m.showMatch()
	}
	return m, cmd
}

// showMatch scrolls so that the current match is on screen, a few lines from
// the top.
func (m *Model) showMatch() {
	l, ok := m.search.Current()
	if !ok {
		return
	}
	if y := m.vp.YOffset(); l < y || l >= y+m.vp.Height() {
		m.vp.SetYOffset(max(l-2, 0))
	}
}

// View draws the text with a mark in the last cell of every line that goes on
// past its right edge, so that a line cut by the terminal says so; →/l scrolls
// to the rest.
func (m Model) View() string {
	view := m.vp.View()
	w := m.vp.Width()
	if w < 2 {
		return view
	}
	content := strings.Split(m.vp.GetContent(), "\n")
	lines := strings.Split(view, "\n")
	for i := range lines {
		n := m.vp.YOffset() + i
		if n >= len(content) {
			break
		}
		if ansi.StringWidth(content[n]) > m.vp.XOffset()+w {
			lines[i] = ansi.Truncate(lines[i], w-1, "") + m.Styles.More.Render("…")
		}
	}
	return strings.Join(lines, "\n")
}
