package diff

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// LoadedMsg answers loadDiff. It carries the release, revisions and reveal it
// answers, so that a late answer to an earlier request is dropped.
type LoadedMsg struct {
	Ns, Name string
	From, To int
	Reveal   bool
	result   *revdiff.Result
	Err      error
}

func loadDiff(ctx context.Context, c differ, ns, name string, from, to int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		res, err := c.Diff(ctx, ns, name, from, to, kube.DiffOptions{Reveal: reveal})
		return LoadedMsg{Ns: ns, Name: name, From: from, To: to, Reveal: reveal, result: res, Err: err}
	}
}
