package viewer

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/common"
)

// View draws vp with "…" in the last cell of every line that goes on past
// its right edge, so that a line cut by the terminal says so; →/l scrolls to the
// rest.
func View(vp *viewport.Model) string {
	view := vp.View()
	w := vp.Width()
	if w < 2 {
		return view
	}
	content := strings.Split(vp.GetContent(), "\n")
	lines := strings.Split(view, "\n")
	for i := range lines {
		n := vp.YOffset() + i
		if n >= len(content) {
			break
		}
		if ansi.StringWidth(content[n]) > vp.XOffset()+w {
			lines[i] = ansi.Truncate(lines[i], w-1, "") + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// Scroll applies the scroll keys to a viewport.
func Scroll(msg tea.KeyPressMsg, k common.ScrollKeyMap, vp *viewport.Model) tea.Cmd {
	switch {
	case key.Matches(msg, k.Top):
		vp.GotoTop()
		return nil
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
		return nil
	}
	var cmd tea.Cmd
	*vp, cmd = vp.Update(msg)
	return cmd
}
