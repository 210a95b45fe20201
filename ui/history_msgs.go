package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/chunkview/chunkview/kube"
)

// historyLoadedMsg answers loadHistory.
type historyLoadedMsg struct {
	ns, name string
	rows     []kube.RevisionRow
	err      error
}

func loadHistory(ctx context.Context, c *kube.Client, ns, name string) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.History(ctx, ns, name)
		return historyLoadedMsg{ns: ns, name: name, rows: rows, err: err}
	}
}
