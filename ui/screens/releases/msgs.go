package releases

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// LoadedMsg answers loadReleases.
type LoadedMsg struct {
	// View names the namespace view the list was made for; gen counts the loads
	// of that screen, so an older load finishing late is dropped.
	View string
	Gen  int
	Rows []kube.ReleaseRow
	Err  error
}

func loadReleases(ctx context.Context, c client, view string, gen int) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.Releases(ctx)
		return LoadedMsg{View: view, Gen: gen, Rows: rows, Err: err}
	}
}
