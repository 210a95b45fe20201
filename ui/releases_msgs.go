package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/chunkview/chunkview/kube"
)

// releasesLoadedMsg answers loadReleases.
type releasesLoadedMsg struct {
	// view names the namespace view the list was made for; gen counts the loads
	// of that screen, so an older load finishing late is dropped.
	view string
	gen  int
	rows []kube.ReleaseRow
	err  error
}

func loadReleases(ctx context.Context, c *kube.Client, view string, gen int) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.Releases(ctx)
		return releasesLoadedMsg{view: view, gen: gen, rows: rows, err: err}
	}
}
