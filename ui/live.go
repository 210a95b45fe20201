package ui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// The live view: the root model runs one kube.Watch over the release list's
// client while watch mode is on, and hands its events to every screen. A screen
// applies a revision added, changed or deleted to its rows directly; only a
// WatchSynced (the first, or a resync after the watch fell behind) makes it list
// again. The events arrive through the program's Send, from the goroutine that
// reads the watch; the first one (the sync) answers the command that starts it.

// startLive starts following the list's client, stopping any earlier watch.
func (m *model) startLive() tea.Cmd {
	m.stopLive()
	m.liveGen++
	m.polling, m.pollNote = false, ""
	m.liveState, m.liveSynced, m.lastContact = kube.WatchUp, false, time.Time{}
	ctx, cancel := context.WithCancel(m.Ctx)
	m.liveCancel = cancel
	gen, send, c := m.liveGen, m.send, m.stack[0].(*releases.Screen).Client
	poll, now := m.opts.watchInterval(), m.Now
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
					send(common.LiveMsg{Gen: gen, Ev: ev})
				}
			}
		}()
		return common.LiveMsg{Gen: gen, Ev: first}
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
	if rs, ok := m.stack[0].(*releases.Screen); ok {
		rs.Live = on
	}
}

// liveModeStatus is the status line of a watch that fell back to polling.
func liveModeStatus(ev kube.WatchEvent) string {
	return "Polling: " + ev.Note + "."
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
		resync := common.LiveMsg{Gen: m.liveGen, Ev: kube.WatchEvent{Type: kube.WatchSynced}}
		for _, s := range m.stack {
			cmds = append(cmds, s.Update(resync))
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
	return strings.TrimSuffix(common.ShortError(err), ".") + "."
}

// liveBadge is the header's word for the watch: LIVE only while it is up,
// else OFFLINE or RETRYING with the time since the server last answered.
func (m *model) liveBadge(short bool) string {
	st := m.Styles
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
		word += " " + human.Age(m.Now(), m.lastContact)
	default:
		word += " · last contact " + human.Age(m.Now(), m.lastContact) + " ago"
	}
	return st.BadgeOffline.Render(word)
}
