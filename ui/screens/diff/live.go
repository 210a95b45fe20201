package diff

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
)

// The live diff: the diff screen with the live cluster as its second side.
// It compares one revision's manifest with the objects the cluster runs, per
// resource, masked until v, like a diff between revisions.

// LiveLoadedMsg answers loadLiveDiff. It carries the release, revision and
// reveal it answers, so that a late answer to an earlier request is dropped.
type LiveLoadedMsg struct {
	Ns, Name string
	Rev      int
	Reveal   bool
	Drift    *revdiff.Drift
	err      error
}

// loadLiveDiff compares revision rev of a release with the live cluster.
func loadLiveDiff(ctx context.Context, c live.Source, ns, name string, rev int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		d, err := live.Drift(ctx, c, ns, name, rev, live.DriftOptions{Reveal: reveal})
		return LiveLoadedMsg{Ns: ns, Name: name, Rev: rev, Reveal: reveal, Drift: d, err: err}
	}
}
