package revision

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// DetailsLoadedMsg answers loadDetails: one revision decoded.
type DetailsLoadedMsg struct {
	Ns, Key, Rv string
	Details     *kube.Details
	err         error
}

func loadDetails(ctx context.Context, c client, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		d, err := c.Details(ctx, row)
		return DetailsLoadedMsg{Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion, Details: d, err: err}
	}
}

// RenderedMsg carries a tab's text, rendered off the update loop: colouring a
// large manifest takes a moment.
type RenderedMsg struct {
	Ns, Key, Rv string
	Rk          RenderKey
	Text        string
}
