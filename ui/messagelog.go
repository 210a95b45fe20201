package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// maxLogged is how many status messages the message log keeps.
const maxLogged = 50

// loggedStatus is one status message as it was shown, kept whole.
type loggedStatus struct {
	at   time.Time
	text string
	err  bool
}

// noteStatus records the status line in the message log when it changed, so
// that a line cut to the terminal's width can be read in full with :log.
func (m *model) noteStatus() {
	if m.status == "" || m.status == m.lastLogged {
		m.lastLogged = m.status
		return
	}
	m.lastLogged = m.status
	m.log = append(m.log, loggedStatus{at: m.now(), text: m.status, err: m.statusErr})
	if len(m.log) > maxLogged {
		m.log = m.log[len(m.log)-maxLogged:]
	}
}

// logOverlay is the message log: every status message of the session, newest
// last, each wrapped to the width.
func (m *model) logOverlay() string {
	st := m.styles
	lines := []string{st.Title.Render("Messages"), ""}
	if len(m.log) == 0 {
		lines = append(lines, st.Dim.Render("No messages yet."))
	}
	for _, e := range m.log {
		stamp := e.at.Format("15:04:05") + "  "
		style := st.OK
		if e.err {
			style = st.Error
		}
		body := wrap(oneLine(e.text), max(m.termWidth-len(stamp), 20))
		for i, l := range strings.Split(body, "\n") {
			prefix := strings.Repeat(" ", len(stamp))
			if i == 0 {
				prefix = st.Dim.Render(stamp)
			}
			lines = append(lines, prefix+style.Render(l))
		}
	}
	_, h := m.bodySize()
	// The newest messages, when they do not all fit.
	if head := 2; len(lines) > h-2 {
		lines = append(lines[:head], lines[len(lines)-(h-2-head):]...)
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
