package ui

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// The live view: the root model runs one kube.Watch over the release list's
// client while watch mode is on, and hands its events to every screen. A screen
// applies a revision added, changed or deleted to its rows directly; only a
// WatchSynced (the first, or a resync after the watch fell behind) makes it list
// again. The events arrive through the program's Send, from the goroutine that
// reads the watch; the first one (the sync) answers the command that starts it.

// liveMsg carries one event of the watch started gen-th; events of an earlier
// watch (switched off, or of another namespace view) are dropped.
type liveMsg struct {
	gen int
	ev  kube.WatchEvent
}

// startLive starts following the list's client, stopping any earlier watch.
func (m *model) startLive() tea.Cmd {
	m.stopLive()
	m.liveGen++
	m.polling, m.pollNote = false, ""
	m.liveState, m.liveSynced, m.lastContact = kube.WatchUp, false, time.Time{}
	ctx, cancel := context.WithCancel(m.ctx)
	m.liveCancel = cancel
	gen, send, c := m.liveGen, m.send, m.stack[0].(*releasesScreen).client
	poll, now := m.opts.watchInterval(), m.now
	return func() tea.Msg {
		ch := c.Watch(ctx, kube.WatchOptions{PollInterval: poll, Now: now})
		first, ok := <-ch
		if !ok {
			return nil
		}
		if send != nil {
			go runClock(ctx, send, gen)
		}
		go func() {
			for ev := range ch {
				if send != nil {
					send(liveMsg{gen: gen, ev: ev})
				}
			}
		}()
		return liveMsg{gen: gen, ev: first}
	}
}

// stopLive ends the watch, if one runs.
func (m *model) stopLive() {
	if m.liveCancel != nil {
		m.liveCancel()
		m.liveCancel = nil
	}
}

// setLive tells the release list whether its rows come from the watch, so that
// it waits for the watch's first list before it lists.
func (m *model) setLive(on bool) {
	if rs, ok := m.stack[0].(*releasesScreen); ok {
		rs.live = on
	}
}

// liveModeStatus is the status line of a watch that fell back to polling.
func liveModeStatus(ev kube.WatchEvent) string {
	return "Polling: " + ev.Note + "."
}

// applyLive takes one watch event into the release list.
func (s *releasesScreen) applyLive(ev kube.WatchEvent) tea.Cmd {
	switch ev.Type {
	case kube.WatchSynced:
		return s.reload()
	case kube.WatchHealth:
		if ev.State != kube.WatchUp && s.live && !s.loaded && s.loading {
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
		for i := range s.items {
			it := &s.items[i]
			l := it.row.Latest
			if releaseID(l) != releaseID(r) {
				continue
			}
			if ev.New {
				it.row.Revisions++
			}
			if r.Revision > l.Revision || (r.Revision == l.Revision && r.ResourceVersion != l.ResourceVersion) {
				if !r.Known && l.Known && r.Revision == l.Revision {
					// A rewrite of the same revision (a status change) keeps its
					// chart, sizes and deploy time until the record is read again:
					// the metadata's modifiedAt is when the status changed.
					keepSummary(&r, l)
				}
				// The old latest's size, filled since the listing, stays in
				// the history's sum.
				it.row.SetRevisionSize(l.Revision, storedSize(l))
				// The answer for the row replaced is dropped (it no longer
				// matches), so the row's place among those being read goes
				// with it.
				delete(s.inflight, it.id())
				it.row.Latest, it.filled, it.err = r, false, nil
			} else {
				it.row.SetRevisionSize(r.Revision, storedSize(r))
			}
			return s.fillVisible()
		}
		rows := s.rows()
		rows = append(rows, kube.ReleaseRow{Latest: r, Revisions: 1})
		s.setRows(rows)
		return s.fillVisible()
	case kube.WatchDeleted:
		r := ev.Row
		for i := range s.items {
			it := &s.items[i]
			l := it.row.Latest
			if releaseID(l) != releaseID(r) {
				continue
			}
			if l.Key == r.Key {
				// The latest is gone: which revision is latest now, if any, is
				// the release's to say.
				return loadRelease(s.ctx, s.client.WithDrivers(storeOf(l.Driver)), s.viewName, l)
			}
			it.row.Revisions = max(it.row.Revisions-1, 1)
			it.row.SetRevisionSize(r.Revision, 0)
			return nil
		}
	}
	return nil
}

// rows returns the release rows as the screen holds them.
func (s *releasesScreen) rows() []kube.ReleaseRow {
	out := make([]kube.ReleaseRow, len(s.items))
	for i, it := range s.items {
		out[i] = it.row
	}
	return out
}

// takeRelease replaces one release's row with what reading it again found, or
// drops it when nothing of it is left.
func (s *releasesScreen) takeRelease(msg releaseReadMsg) tea.Cmd {
	if msg.view != s.viewName || msg.err != nil {
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
	for i := range s.items {
		if releaseID(s.items[i].row.Latest) == msg.id {
			delete(s.inflight, s.items[i].id())
			s.items[i].filled = false
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
func loadRelease(ctx context.Context, c *kube.Client, view string, l kube.RevisionRow) tea.Cmd {
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

// applyLive takes one watch event into the history, when it is of its release.
func (s *historyScreen) applyLive(ev kube.WatchEvent) tea.Cmd {
	if ev.Type == kube.WatchSynced {
		if s.dialog != nil {
			return nil
		}
		return s.reload()
	}
	r := ev.Row
	if !s.loaded || len(s.rows) == 0 || r.Name != s.name || !sameStore(r.Driver, s.store()) || r.StorageNamespace != s.rows[0].StorageNamespace {
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
	atLatest := s.cursor == len(s.rows)-1
	switch {
	case ev.Type == kube.WatchDeleted && idx >= 0:
		s.rows = append(s.rows[:idx], s.rows[idx+1:]...)
	case ev.Type == kube.WatchChanged && idx >= 0:
		if s.rows[idx].ResourceVersion == r.ResourceVersion {
			return nil
		}
		if !r.Known && s.rows[idx].Known {
			keepSummary(&r, s.rows[idx])
		}
		s.rows[idx] = r
	case ev.Type == kube.WatchChanged:
		s.rows = append(s.rows, r)
		sort.Slice(s.rows, func(i, j int) bool { return s.rows[i].Revision < s.rows[j].Revision })
	default:
		return nil
	}
	// The selection stays on its revision; one on the latest follows a new one.
	s.cursor = len(s.rows) - 1
	if !atLatest {
		for i, row := range s.rows {
			if row.Revision == keep {
				s.cursor = i
			}
		}
	}
	s.clamp()
	return s.fill()
}

// keepSummary gives r, a rewrite of revision old read from metadata alone, what
// old knew from its payload: its chart, sizes, and when it was deployed, which a
// status change leaves as they were.
func keepSummary(r *kube.RevisionRow, old kube.RevisionRow) {
	r.Summary, r.Known, r.Updated = old.Summary, true, old.Updated
	r.ApplyMethod, r.UnknownFields = old.ApplyMethod, old.UnknownFields
	r.Peeked, r.StoredAtMost = old.Peeked, old.StoredAtMost
}

// takeHealth takes a WatchHealth event: the header's badge follows it, the
// status line says what went wrong, and once the watch is up again after a
// loss the screens list again what they could not read meanwhile.
func (m *model) takeHealth(ev kube.WatchEvent) tea.Cmd {
	was := m.liveState
	m.liveState, m.lastContact = ev.State, ev.LastContact
	switch {
	case ev.State != kube.WatchUp:
		what := "Offline"
		if ev.State == kube.WatchRetrying {
			what = "Retrying"
		}
		// The outcome first: a narrow status line cuts the reason short.
		m.status, m.statusErr = what+", the rows are as last read. "+liveErrText(ev.Err), true
		return nil
	case was != kube.WatchUp && m.liveSynced:
		m.status, m.statusErr = "Live again: the rows are read again.", false
		var cmds []tea.Cmd
		resync := liveMsg{gen: m.liveGen, ev: kube.WatchEvent{Type: kube.WatchSynced}}
		for _, s := range m.stack {
			cmds = append(cmds, s.update(resync))
		}
		return tea.Batch(append(cmds, m.startSpinner())...)
	}
	return nil
}

// liveErrText words why the watch is not up, for the status line.
func liveErrText(err error) string {
	if err == nil {
		return "the cluster does not answer."
	}
	return strings.TrimSuffix(shortError(err), ".") + "."
}

// liveBadge is the header's word for the watch: LIVE only while it is up,
// else OFFLINE or RETRYING with the time since the server last answered.
func (m *model) liveBadge(short bool) string {
	st := m.styles
	switch {
	case m.liveState == kube.WatchUp && !m.liveSynced:
		return st.BadgePoll.Render("CONNECTING")
	case m.liveState == kube.WatchUp && m.polling:
		return st.BadgePoll.Render("POLL")
	case m.liveState == kube.WatchUp:
		return st.BadgeWatch.Render("● LIVE")
	}
	word := "OFFLINE"
	if m.liveState == kube.WatchRetrying {
		word = "RETRYING"
	}
	switch {
	case m.lastContact.IsZero() && short:
	case m.lastContact.IsZero():
		word += " · no contact yet"
	case short:
		word += " " + human.Age(m.now(), m.lastContact)
	default:
		word += " · last contact " + human.Age(m.now(), m.lastContact) + " ago"
	}
	return st.BadgeOffline.Render(word)
}
