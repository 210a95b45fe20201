package chunks

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// LayoutLoadedMsg answers loadLayout.
type LayoutLoadedMsg struct {
	Ns, Name string
	Rev      int
	Layout   *storage.Layout
	row      kube.RevisionRow // the record read, for measureLayout
	err      error
}

// loadLayout reads a revision's Secrets, with their hash checks; for a chunked
// record, measureLayout then decodes its payload for the sizes.
func loadLayout(ctx context.Context, c client, ns, name string, rev int) tea.Cmd {
	return func() tea.Msg {
		l, row, err := c.LayoutSecrets(ctx, ns, name, rev)
		return LayoutLoadedMsg{Ns: ns, Name: name, Rev: rev, Layout: l, row: row, err: err}
	}
}

// layoutMeasuredMsg answers measureLayout: from, completed.
type layoutMeasuredMsg struct {
	from   *storage.Layout
	layout *storage.Layout
	err    error
}

func measureLayout(ctx context.Context, c client, row kube.RevisionRow, l *storage.Layout) tea.Cmd {
	return func() tea.Msg {
		out, err := c.MeasureLayout(ctx, row, l)
		return layoutMeasuredMsg{from: l, layout: out, err: err}
	}
}
