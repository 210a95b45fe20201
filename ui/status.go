package ui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// The resources view: how the objects of one revision run (kstatus), the last
// run of its hooks and its Warning events, read as `chunkview status` reads
// them, then followed live with one watch per kind of object and namespace
// (kube.WatchStatus), read every few seconds where the server refuses to watch.
// Its updates arrive through the program's Send, like the live view's.

// statusLoadedMsg answers loadStatus; gen tells a reload's answer from an
// earlier one.
type statusLoadedMsg struct {
	ns, name string
	gen      int
	st       *kube.ReleaseStatus
	err      error
}

// statusLiveMsg carries one update of the watch started for the gen-th load.
type statusLiveMsg struct {
	ns, name string
	gen      int
	upd      kube.StatusUpdate
	// ended is set, without an update, when the watch stopped by itself.
	ended bool
}

// loadStatus reads the status of revision rev (0: the latest deployed) of a
// release whose records are looked up in ns.
func loadStatus(ctx context.Context, c *kube.Client, ns, name string, rev, gen int) tea.Cmd {
	return func() tea.Msg {
		st, err := c.Status(ctx, ns, name, rev, kube.StatusOptions{})
		return statusLoadedMsg{ns: ns, name: name, gen: gen, st: st, err: err}
	}
}

// statusScreen shows the resources view of one revision of a release.
type statusScreen struct {
	common
	ns, name string
	// rev is the revision shown; 0 the latest deployed (from the list).
	rev int

	gen     int
	loading bool
	err     error
	st      *kube.ReleaseStatus
	// live is set while the watch runs; polling, with pollNote, once some
	// kind is read every few seconds instead.
	live     bool
	polling  bool
	pollNote string
	// changes counts the updates the watch brought.
	changes int
	stop    context.CancelFunc
	send    func(tea.Msg)
	vp      viewport.Model
}

func newStatusScreen(c common, ns, name string, rev int) *statusScreen {
	vp := viewport.New()
	vp.KeyMap = c.keys.Scroll.viewportKeys()
	vp.MouseWheelEnabled = false
	return &statusScreen{common: c, ns: ns, name: name, rev: rev, vp: vp}
}

// setSend gives the screen the program's Send, for the watch's updates.
func (s *statusScreen) setSend(send func(tea.Msg)) { s.send = send }

func (s *statusScreen) init() tea.Cmd { return s.reload() }

// reload stops the watch and reads the status again.
func (s *statusScreen) reload() tea.Cmd {
	s.close()
	s.gen++
	s.loading = true
	return loadStatus(s.ctx, s.client, s.ns, s.name, s.rev, s.gen)
}

// close stops the watch; the screen is closed, or reads again.
func (s *statusScreen) close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	s.live, s.polling, s.pollNote = false, false, ""
}

// follow starts watching st, the status read for load gen.
func (s *statusScreen) follow(st *kube.ReleaseStatus) tea.Cmd {
	if s.send == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.stop, s.live = cancel, true
	c, send, ns, name, gen := s.client, s.send, s.ns, s.name, s.gen
	return func() tea.Msg {
		ch := c.WatchStatus(ctx, st, kube.StatusWatchOptions{})
		go func() {
			for upd := range ch {
				send(statusLiveMsg{ns: ns, name: name, gen: gen, upd: upd})
			}
			if ctx.Err() == nil {
				send(statusLiveMsg{ns: ns, name: name, gen: gen, ended: true})
			}
		}()
		return nil
	}
}

func (s *statusScreen) title() string {
	if s.rev == 0 {
		return s.name + " › status"
	}
	return fmt.Sprintf("status of revision %d", s.rev)
}

func (s *statusScreen) busy() bool { return s.loading }

func (s *statusScreen) capturing() bool { return false }

func (s *statusScreen) handlesBack() bool { return false }

func (s *statusScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h-statusHeadLines, 1))
	s.rerender()
}

// statusHeadLines are the lines above the scrolled part: the summary and how
// the view follows the cluster.
const statusHeadLines = 2

func (s *statusScreen) help() helpKeys {
	k, sc := s.keys.Status, s.keys.Scroll
	return helpKeys{
		short: []key.Binding{k.Refresh, sc.Down, sc.PageDown},
		full:  [][]key.Binding{sc.bindings(), {k.Refresh}},
	}
}

func (s *statusScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case statusLoadedMsg:
		if msg.ns != s.ns || msg.name != s.name || msg.gen != s.gen {
			return nil
		}
		s.loading, s.err, s.changes = false, msg.err, 0
		if msg.err != nil {
			s.st = nil
			s.rerender()
			return nil
		}
		s.st = msg.st
		s.rerender()
		return s.follow(msg.st)
	case statusLiveMsg:
		if msg.ns != s.ns || msg.name != s.name || msg.gen != s.gen || !s.live {
			return nil
		}
		if msg.ended {
			s.close()
			s.rerender()
			return nil
		}
		s.st = msg.upd.Status
		s.polling, s.pollNote = msg.upd.Polling, msg.upd.Note
		s.changes++
		s.rerender()
		return nil
	case releaseChangedMsg:
		// A new revision: with rev 0, another may now be the deployed one.
		if msg.ns == s.ns && msg.name == s.name && s.rev == 0 {
			return s.reload()
		}
		return nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Status.Refresh):
			return s.reload()
		case key.Matches(msg, s.keys.Scroll.Top):
			s.vp.GotoTop()
			return nil
		case key.Matches(msg, s.keys.Scroll.Bottom):
			s.vp.GotoBottom()
			return nil
		}
		var cmd tea.Cmd
		s.vp, cmd = s.vp.Update(msg)
		return cmd
	}
	return nil
}

// rerender draws the scrolled part again, keeping its scroll position.
func (s *statusScreen) rerender() {
	if s.width == 0 {
		return
	}
	y := s.vp.YOffset()
	switch {
	case s.err != nil:
		s.vp.SetContent(s.styles.renderError(s.err, s.width) + "\n\n" + s.styles.Dim.Render("r: read again · esc: back"))
	case s.st == nil:
		s.vp.SetContent(s.styles.Dim.Render("Reading the objects…"))
	default:
		s.vp.SetContent(renderStatusBody(s.styles, s.st, s.width, s.now()))
	}
	s.vp.SetYOffset(y)
}

func (s *statusScreen) view() string {
	head := ""
	if s.st != nil {
		head = renderStatusHead(s.styles, s.st, s.width, s.liveLine())
	}
	return padLines(head, statusHeadLines) + "\n" + viewMarked(&s.vp)
}

// liveLine says how the view follows the cluster.
func (s *statusScreen) liveLine() string {
	switch {
	case s.polling:
		return "◌ " + s.pollNote
	case s.live:
		line := "● following live (one watch per kind of object)"
		if s.changes > 0 {
			line += fmt.Sprintf(" · %s seen", human.Plural(s.changes, "change", "changes"))
		}
		return line
	}
	return "not following the cluster: r reads again"
}
