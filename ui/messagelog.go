package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/ui/components/table"
)

// maxLogged is how many status messages the message log keeps.
const maxLogged = 50

// noteStatus records the status line in the message log when it changed, so
// that a line cut to the terminal's width can be read in full with :log.
func (m *model) noteStatus() {
	if m.status == "" || m.status == m.lastLogged {
		m.lastLogged = m.status
		return
	}
	m.lastLogged = m.status
	m.log = append(m.log, loggedStatus{at: m.Now(), text: m.status, err: m.statusErr})
	if len(m.log) > maxLogged {
		m.log = m.log[len(m.log)-maxLogged:]
	}
}

// logOverlay is the message log: the session's status messages, newest last,
// each whole, wrapped to the width. When they do not all fit, the newest whole
// ones are shown, and a line says how many earlier ones are left out.
func (m *model) logOverlay() string {
	st := m.Styles
	_, h := m.bodySize()
	room := h - 4 // the title and its blank line, the blank line and the note
	var blocks [][]string
	for _, e := range m.log {
		stamp := e.at.Format("15:04:05") + "  "
		style := st.OK
		if e.err {
			style = st.Error
		}
		var block []string
		for i, l := range strings.Split(table.Wrap(table.OneLine(e.text), max(m.termWidth-len(stamp), 20)), "\n") {
			prefix := strings.Repeat(" ", len(stamp))
			if i == 0 {
				prefix = st.Dim.Render(stamp)
			}
			block = append(block, prefix+style.Render(l))
		}
		blocks = append(blocks, block)
	}
	first, used := len(blocks), 0
	for first > 0 && used+len(blocks[first-1]) <= room-1 {
		first--
		used += len(blocks[first])
	}
	lines := []string{st.Title.Render("Messages"), ""}
	switch {
	case len(blocks) == 0:
		lines = append(lines, st.Dim.Render("No messages yet."))
	case first > 0:
		lines = append(lines, st.Dim.Render(human.Plural(first, "earlier message", "earlier messages")+" not shown: the terminal is too short"))
	}
	for _, b := range blocks[first:] {
		lines = append(lines, b...)
	}
	lines = append(lines, "", st.Dim.Render("Any key closes the messages (ctrl+c quits)."))
	return strings.Join(lines, "\n")
}

// flowColumns lays the help's columns out side by side, as many as fit in width,
// and the rest in further rows below, so that no key is cut off.
func (m *model) flowColumns(cols [][]key.Binding, width int) string {
	const gap = 4
	var rows []string
	var row []string
	used := 0
	for _, c := range cols {
		block := m.help.FullHelpView([][]key.Binding{c})
		if block == "" {
			continue
		}
		w := lipgloss.Width(block)
		if len(row) > 0 && used+gap+w > width {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used = nil, 0
		}
		if len(row) > 0 {
			row = append(row, strings.Repeat(" ", gap))
			used += gap
		}
		row = append(row, block)
		used += w
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n\n")
}
