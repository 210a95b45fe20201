package history

import (
	"sort"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// applyLive takes one watch event into the history, when it is of its release.
func (s *Screen) applyLive(ev kube.WatchEvent) tea.Cmd {
	if ev.Type == kube.WatchSynced {
		if s.confirm != nil {
			return nil
		}
		return s.reload()
	}
	r := ev.Row
	if !s.loaded || len(s.rows) == 0 || r.Name != s.name || !common.SameStore(r.Driver, s.store()) || r.StorageNamespace != s.rows[0].StorageNamespace {
		return nil
	}
	idx := -1
	for i := range s.rows {
		if s.rows[i].Revision == r.Revision {
			idx = i
		}
	}
	var keep int
	if sel := s.selected(); sel != nil {
		keep = sel.Revision
	}
	atLatest := s.list.Cursor() == len(s.rows)-1
	switch {
	case ev.Type == kube.WatchDeleted && idx >= 0:
		s.rows = append(s.rows[:idx], s.rows[idx+1:]...)
	case ev.Type == kube.WatchChanged && idx >= 0:
		if s.rows[idx].ResourceVersion == r.ResourceVersion {
			return nil
		}
		if !r.Known && s.rows[idx].Known {
			common.KeepSummary(&r, s.rows[idx])
		}
		s.rows[idx] = r
	case ev.Type == kube.WatchChanged:
		s.rows = append(s.rows, r)
		sort.Slice(s.rows, func(i, j int) bool { return s.rows[i].Revision < s.rows[j].Revision })
	default:
		return nil
	}
	s.keepMark()
	// The selection stays on its revision; one on the latest follows a new one.
	s.list.SetCursor(len(s.rows) - 1)
	if !atLatest {
		for i, row := range s.rows {
			if row.Revision == keep {
				s.list.SetCursor(i)
			}
		}
	}
	s.clamp()
	return s.fill()
}
