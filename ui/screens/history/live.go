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
		if s.Dialog != nil {
			return nil
		}
		return s.reload()
	}
	r := ev.Row
	if !s.Loaded || len(s.Rows) == 0 || r.Name != s.Name || !common.SameStore(r.Driver, s.store()) || r.StorageNamespace != s.Rows[0].StorageNamespace {
		return nil
	}
	idx := -1
	for i := range s.Rows {
		if s.Rows[i].Revision == r.Revision {
			idx = i
		}
	}
	var keep int
	if sel := s.Selected(); sel != nil {
		keep = sel.Revision
	}
	atLatest := s.list.Cursor() == len(s.Rows)-1
	switch {
	case ev.Type == kube.WatchDeleted && idx >= 0:
		s.Rows = append(s.Rows[:idx], s.Rows[idx+1:]...)
	case ev.Type == kube.WatchChanged && idx >= 0:
		if s.Rows[idx].ResourceVersion == r.ResourceVersion {
			return nil
		}
		if !r.Known && s.Rows[idx].Known {
			common.KeepSummary(&r, s.Rows[idx])
		}
		s.Rows[idx] = r
	case ev.Type == kube.WatchChanged:
		s.Rows = append(s.Rows, r)
		sort.Slice(s.Rows, func(i, j int) bool { return s.Rows[i].Revision < s.Rows[j].Revision })
	default:
		return nil
	}
	// The selection stays on its revision; one on the latest follows a new one.
	s.list.SetCursor(len(s.Rows) - 1)
	if !atLatest {
		for i, row := range s.Rows {
			if row.Revision == keep {
				s.list.SetCursor(i)
			}
		}
	}
	s.clamp()
	return s.fill()
}
