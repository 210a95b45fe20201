package history

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// prefetch reads the latest two revisions in the background, decoded into the
// client's details cache, as soon as the history is listed: d on the newest
// compares exactly these, and then finds them read (or waits for the read under
// way instead of starting another). It reads nothing else, so the memory it
// holds is two revisions at most, and a new latest revision replaces the pair.
// Leaving the history (close) cancels it. Its errors are not shown here: d
// reads again, and shows what failed.
func (s *Screen) prefetch() tea.Cmd {
	n := len(s.Rows)
	if n < 2 {
		return nil
	}
	pair := s.Rows[n-2:]
	if pair[0].Broken || pair[1].Broken {
		return nil // a diff of it fails without reading its payload
	}
	id := common.RowID(pair[0]) + " " + common.RowID(pair[1])
	if id == s.prefetched {
		return nil
	}
	s.Close()
	ctx, cancel := context.WithCancel(s.Ctx)
	s.prefetched, s.stopPrefetch = id, cancel
	var c client = s.Client
	rows := []kube.RevisionRow{pair[0], pair[1]}
	return func() tea.Msg {
		defer cancel()
		_ = c.Prefetch(ctx, rows...)
		return nil
	}
}

// Close cancels the prefetch, if one runs: the screen is gone.
func (s *Screen) Close() {
	if s.stopPrefetch != nil {
		s.stopPrefetch()
		s.stopPrefetch, s.prefetched = nil, ""
	}
}
