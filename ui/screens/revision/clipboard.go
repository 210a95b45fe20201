package revision

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/ui/common"
)

// copyText puts text on the terminal's clipboard with OSC 52, which works over
// ssh and in tmux (with set-clipboard on), and says so on the status line. what
// names what was copied.
func copyText(text, what string, revealed bool) tea.Cmd {
	note := "Copied the " + what + " (" + human.Plural(len(text), "byte", "bytes") + ") to the clipboard, secrets masked."
	if revealed {
		note = "Copied the " + what + " (" + human.Plural(len(text), "byte", "bytes") + ") to the clipboard, secrets REVEALED."
	}
	return tea.Batch(tea.SetClipboard(text), common.Status(note, false))
}
