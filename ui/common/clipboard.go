package common

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
)

// CopyText puts text on the terminal's clipboard with OSC 52, which works over
// ssh and in tmux (with set-clipboard on), and says so on the status line. what
// names what was copied. y copies on every screen that shows text (a
// revision's tab, a diff, a rollback plan), and means nothing else.
func CopyText(text, what string, revealed bool) tea.Cmd {
	note := "Copied the " + what + " (" + human.Plural(len(text), "byte", "bytes") + ") to the clipboard, secrets masked."
	if revealed {
		note = "Copied the " + what + " (" + human.Plural(len(text), "byte", "bytes") + ") to the clipboard, secrets REVEALED."
	}
	return tea.Batch(tea.SetClipboard(text), Status(note, false))
}
