package diff

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
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

// NewLive compares revision rev with the live cluster.
func NewLive(c common.Common, ns, name string, rev int) *Screen {
	s := New(c, ns, name, rev, 0)
	s.live = true
	s.drifts = map[bool]*revdiff.Drift{}
	return s
}

// takeLive shows a live diff that answers the screen's request.
func (s *Screen) takeLive(msg LiveLoadedMsg) {
	if !s.live || msg.Ns != s.ns || msg.Name != s.name || msg.Rev != s.from || msg.Reveal != s.reveal {
		return
	}
	s.loading = false
	if msg.err != nil {
		s.err = msg.err
		s.view.ShowError(common.ShortError(msg.err), s.Width)
		return
	}
	s.err = nil
	s.drifts[msg.Reveal] = msg.Drift
	s.showLive(msg.Drift)
}

func (s *Screen) showLive(d *revdiff.Drift) {
	s.view.ShowDrift(d, s.Width)
}
