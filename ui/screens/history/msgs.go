package history

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// LoadedMsg answers loadHistory.
type LoadedMsg struct {
	Ns, Name string
	Rows     []kube.RevisionRow
	Err      error
}

func loadHistory(ctx context.Context, c *kube.Client, ns, name string) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.History(ctx, ns, name)
		return LoadedMsg{Ns: ns, Name: name, Rows: rows, Err: err}
	}
}
