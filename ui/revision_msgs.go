package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/chunkview/chunkview/kube"
)

// detailsLoadedMsg answers loadDetails: one revision decoded.
type detailsLoadedMsg struct {
	ns, key, rv string
	details     *kube.Details
	err         error
}

func loadDetails(ctx context.Context, c *kube.Client, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		d, err := c.Details(ctx, row)
		return detailsLoadedMsg{ns: row.StorageNamespace, key: row.Key, rv: row.ResourceVersion, details: d, err: err}
	}
}
