// Package diffview is the diff viewer that the diff screens and the rollback
// screen embed: a rendered diff in a viewport, the line of each change's
// heading, and the keys that jump between them.
package diffview

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// Model shows one rendered diff. It knows nothing of what was compared: a
// screen hands it a diff (ShowDiff, ShowDrift) and hands it again when its
// width changes (Stale).
type Model struct {
	KeyMap KeyMap
	Styles Styles

	view viewer.Model
	// anchors are the lines of the changes' headings; cur is the change last
	// jumped to, -1 before the first jump.
	anchors []int
	cur     int
	// width is the width the content was rendered at.
	width int
}

// New returns an empty diff with the default keys and styles, scrolled by the
// viewer's keys.
func New() Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), view: viewer.New(), cur: -1}
}

// WithScrollKeys returns the diff scrolled by keys k.
func (m Model) WithScrollKeys(k viewer.KeyMap) Model {
	m.view.KeyMap = k
	return m
}

// SetSize sets the area the diff is drawn in.
func (m *Model) SetSize(w, h int) { m.view.SetSize(w, max(h, 1)) }

// Stale reports whether the content was rendered at another width than w, so
// that the screen hands the diff again.
func (m *Model) Stale(w int) bool { return m.width != w }

// ShowDiff shows a diff between revisions rendered at width, where the reader
// was.
func (m *Model) ShowDiff(r *revdiff.Result, width int) {
	text, anchors := Render(&m.Styles, r, width)
	m.SetContent(text, anchors, width)
}

// ShowDrift shows a live diff rendered at width, where the reader was.
func (m *Model) ShowDrift(d *revdiff.Drift, width int) {
	text, anchors := RenderLive(&m.Styles, d, width)
	m.SetContent(text, anchors, width)
}

// SetContent shows a rendered diff and the line of each change's heading, for
// jumping, where the reader was; width is the width it was rendered at.
func (m *Model) SetContent(text string, anchors []int, width int) {
	y := m.view.YOffset()
	m.anchors, m.width = anchors, width
	m.view.SetContent(text)
	m.view.SetYOffset(y)
}

// SetMessage shows text that is no diff (an error and the way back): it has no
// changes to jump to.
func (m *Model) SetMessage(text string) {
	m.anchors = nil
	m.view.SetContent(text)
}

// ShowError shows why there is no diff (what, in a line: the screen words the
// error), and the way back.
func (m *Model) ShowError(what string, width int) {
	m.SetMessage(m.Styles.Error.Render(table.Wrap("✗ "+what, max(width, 20))) + "\n\n" + m.Styles.Dim.Render("esc: back"))
}

// Changes is the number of change headings in the diff.
func (m *Model) Changes() int { return len(m.anchors) }

// Update takes the keys that move through the diff: n and N jump between
// changes, the others scroll.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, m.KeyMap.NextChange):
			m.jump(1)
			return m, nil
		case key.Matches(k, m.KeyMap.PrevChange):
			m.jump(-1)
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.view, cmd = m.view.Update(msg)
	return m, cmd
}

// jump scrolls to the next (dir 1) or previous (dir -1) change. The change
// jumped to is remembered: the last ones cannot scroll to the top of the view,
// and the counter must still reach them.
func (m *Model) jump(dir int) {
	next := m.Current() // 1-based current: the next one's index
	if dir < 0 {
		next -= 2
	}
	switch {
	case next >= len(m.anchors):
		return
	case next < 0:
		m.cur = 0
		m.view.GotoTop()
		return
	}
	m.cur = next
	m.view.SetYOffset(m.anchors[next])
}

// Current returns the number of the change in view (1-based; 0 at the top
// before any jump): the one jumped to while it is on screen, else the first on
// screen, else the last above it.
func (m *Model) Current() int {
	y, h := m.view.YOffset(), m.view.Height()
	if m.cur < 0 && y == 0 {
		return 0 // not started: n goes to the first
	}
	visible := func(i int) bool { return m.anchors[i] >= y && m.anchors[i] < y+h }
	if m.cur >= 0 && m.cur < len(m.anchors) && visible(m.cur) {
		return m.cur + 1
	}
	for i := range m.anchors {
		if visible(i) {
			return i + 1
		}
	}
	n := 0
	for i, a := range m.anchors {
		if a <= y {
			n = i + 1
		}
	}
	return n
}

// Counter is the line under a diff: which change is in view, of how many.
func (m *Model) Counter() string {
	st := &m.Styles
	switch n := m.Current(); {
	case len(m.anchors) == 0:
		return ""
	case n > 0:
		return st.Dim.Render(fmt.Sprintf("change %d of %d · n/N jump", n, len(m.anchors)))
	default:
		return st.Dim.Render(human.Plural(len(m.anchors), "change", "changes") + " · n: the first")
	}
}

// View draws the diff in the viewer's size.
func (m *Model) View() string { return m.view.View() }
