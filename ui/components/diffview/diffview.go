// Package diffview is the diff viewer that the diff screens and the rollback
// screen embed: a rendered diff in a viewport, the line of each change's
// heading, and the keys that jump between them.
package diffview

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// Model shows one rendered diff. It knows nothing of what was compared: a
// screen renders the diff (Render, RenderLive), gives the text and its change
// headings to SetContent, and renders again when its width changes.
type Model struct {
	keys   common.DiffKeyMap
	scroll common.ScrollKeyMap
	vp     viewport.Model
	// anchors are the lines of the changes' headings; cur is the change last
	// jumped to, -1 before the first jump.
	anchors []int
	cur     int
	// width is the width the content was rendered at.
	width int
}

// New returns an empty viewer driven by the diff and scroll keys of km.
func New(km *common.KeyMap) Model {
	vp := viewport.New()
	vp.KeyMap = km.Scroll.ViewportKeys()
	vp.MouseWheelEnabled = false
	return Model{keys: km.Diff, scroll: km.Scroll, vp: vp, cur: -1}
}

// SetSize sets the area the diff is drawn in.
func (m *Model) SetSize(w, h int) {
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(h, 1))
}

// Stale reports whether the content was rendered at another width than w, so
// that the screen renders it again.
func (m *Model) Stale(w int) bool { return m.width != w }

// SetContent shows a rendered diff and the line of each change's heading, for
// jumping, where the reader was; width is the width it was rendered at.
func (m *Model) SetContent(text string, anchors []int, width int) {
	y := m.vp.YOffset()
	m.anchors, m.width = anchors, width
	m.vp.SetContent(text)
	m.vp.SetYOffset(y)
}

// SetMessage shows text that is no diff (an error and the way back): it has no
// changes to jump to.
func (m *Model) SetMessage(text string) {
	m.anchors = nil
	m.vp.SetContent(text)
}

// ShowError shows why there is no diff, and the way back.
func (m *Model) ShowError(st *common.Styles, err error, width int) {
	m.SetMessage(st.RenderError(err, width) + "\n\n" + st.Dim.Render("esc: back"))
}

// Changes is the number of change headings in the diff.
func (m *Model) Changes() int { return len(m.anchors) }

// Update takes the keys that move through the diff: n and N jump between
// changes, the others scroll. It reports whether it took the key.
func (m *Model) Update(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, m.keys.NextChange):
		m.jump(1)
		return nil, true
	case key.Matches(msg, m.keys.PrevChange):
		m.jump(-1)
		return nil, true
	}
	return viewer.Scroll(msg, m.scroll, &m.vp), true
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
		m.vp.GotoTop()
		return
	}
	m.cur = next
	m.vp.SetYOffset(m.anchors[next])
}

// Current returns the number of the change in view (1-based; 0 at the top
// before any jump): the one jumped to while it is on screen, else the first on
// screen, else the last above it.
func (m *Model) Current() int {
	y, h := m.vp.YOffset(), m.vp.Height()
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
func (m *Model) Counter(st *common.Styles) string {
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
func (m *Model) View() string { return viewer.View(&m.vp) }
