package releases

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// applyLive takes one watch event into the release list.
func (s *Screen) applyLive(ev kube.WatchEvent) tea.Cmd {
	switch ev.Type {
	case kube.WatchSynced:
		return s.reload()
	case kube.WatchHealth:
		if ev.State != kube.WatchUp && s.Live && !s.loaded && s.loading {
			// The watch's first list cannot be had: say why rather than
			// wait; its sync, once the server answers, lists.
			s.loading, s.err = false, ev.Err
		}
		return nil
	case kube.WatchChanged:
		if !s.loaded {
			return nil // the list under way will have it
		}
		r := ev.Row
		for i := range s.Items {
			it := &s.Items[i]
			l := it.Row.Latest
			if releaseID(l) != releaseID(r) {
				continue
			}
			if ev.New {
				it.Row.Revisions++
			}
			if r.Revision > l.Revision || (r.Revision == l.Revision && r.ResourceVersion != l.ResourceVersion) {
				it.reread = nil
				if !r.Known && l.Known && r.Revision == l.Revision {
					// A rewrite of the same revision (a status change) keeps its
					// chart, sizes and deploy time until the record is read again:
					// the metadata's modifiedAt is when the status changed. The
					// rewrite may have changed them too (Helm's description,
					// the record's size), so it is read again all the same.
					unread := r
					it.reread = &unread
					common.KeepSummary(&r, l)
				}
				// The old latest's size, filled since the listing, stays in
				// the history's sum.
				it.Row.SetRevisionSize(l.Revision, common.StoredSize(l))
				// The answer for the row replaced is dropped (it no longer
				// matches), so the row's place among those being read goes
				// with it.
				delete(s.Inflight, it.id())
				it.Row.Latest, it.Filled, it.Err = r, false, nil
			} else {
				it.Row.SetRevisionSize(r.Revision, common.StoredSize(r))
			}
			return s.fillVisible()
		}
		rows := s.rows()
		rows = append(rows, kube.ReleaseRow{Latest: r, Revisions: 1})
		s.setRows(rows)
		return s.fillVisible()
	case kube.WatchDeleted:
		r := ev.Row
		for i := range s.Items {
			it := &s.Items[i]
			l := it.Row.Latest
			if releaseID(l) != releaseID(r) {
				continue
			}
			if l.Key == r.Key {
				// The latest is gone: which revision is latest now, if any, is
				// the release's to say.
				return loadRelease(s.Ctx, s.Client.WithDrivers(common.StoreOf(l.Driver)), s.ViewName, l)
			}
			it.Row.Revisions = max(it.Row.Revisions-1, 1)
			it.Row.SetRevisionSize(r.Revision, 0)
			return nil
		}
	}
	return nil
}

// rows returns the release rows as the screen holds them.
func (s *Screen) rows() []kube.ReleaseRow {
	out := make([]kube.ReleaseRow, len(s.Items))
	for i, it := range s.Items {
		out[i] = it.Row
	}
	return out
}

// takeRelease replaces one release's row with what reading it again found, or
// drops it when nothing of it is left.
func (s *Screen) takeRelease(msg releaseReadMsg) tea.Cmd {
	if msg.view != s.ViewName || msg.err != nil {
		return nil
	}
	rows := s.rows()
	var out []kube.ReleaseRow
	for _, rr := range rows {
		if releaseID(rr.Latest) == msg.id {
			if msg.row != nil {
				out = append(out, *msg.row)
			}
			continue
		}
		out = append(out, rr)
	}
	for i := range s.Items {
		if releaseID(s.Items[i].Row.Latest) == msg.id {
			delete(s.Inflight, s.Items[i].id())
			s.Items[i].Filled = false
		}
	}
	s.setRows(out)
	return s.fillVisible()
}

// releaseReadMsg answers loadRelease: one release read again, nil when it has no
// record left.
type releaseReadMsg struct {
	view, id string
	row      *kube.ReleaseRow
	err      error
}

// loadRelease reads again the release of row l, by name, from metadata (rows of
// Helm's stores are then read one record each, as any unsummarized row).
func loadRelease(ctx context.Context, c client, view string, l kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		msg := releaseReadMsg{view: view, id: releaseID(l)}
		rows, err := c.ReleasesNamed(ctx, l.Name)
		if err != nil && !errors.Is(err, kube.ErrNotFound) {
			msg.err = err
			return msg
		}
		for i := range rows {
			if releaseID(rows[i].Latest) == msg.id {
				msg.row = &rows[i]
			}
		}
		return msg
	}
}
