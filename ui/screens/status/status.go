package status

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// The resources view: how the objects of one revision run (kstatus), the last
// run of its hooks and its Warning events, read as `chunkview status` reads
// them, then followed live with one watch per kind of object and namespace
// (kube.WatchStatus), read every few seconds where the server refuses to watch.
// Its updates arrive through the program's Send, like the live view's.

// Screen shows the resources view of one revision of a release.
type Screen struct {
	common.Common
	Ns, Name string
	// Rev is the revision shown; 0 the latest deployed (from the list).
	Rev int

	Gen     int
	Loading bool
	Err     error
	St      *live.ReleaseStatus
	// Live is set while the watch runs; polling, with pollNote, once some
	// kind is read every few seconds instead.
	Live     bool
	polling  bool
	pollNote string
	// changes counts the updates the watch brought.
	changes int
	Stop    context.CancelFunc
	Send    func(tea.Msg)
	vp      viewport.Model
}

// New opens the status of revision rev of a release (0: the latest).
func New(c common.Common, ns, name string, rev int) *Screen {
	vp := viewport.New()
	vp.KeyMap = c.Keys.Scroll.ViewportKeys()
	vp.MouseWheelEnabled = false
	return &Screen{Common: c, Ns: ns, Name: name, Rev: rev, vp: vp}
}

// SetSend gives the screen the program's Send, for the watch's updates.
func (s *Screen) SetSend(send func(tea.Msg)) { s.Send = send }

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd { return s.reload() }

// reload stops the watch and reads the status again.
func (s *Screen) reload() tea.Cmd {
	s.Close()
	s.Gen++
	s.Loading = true
	return loadStatus(s.Ctx, s.Client, s.Ns, s.Name, s.Rev, s.Gen)
}

// Close stops the watch; the screen is closed, or reads again.
func (s *Screen) Close() {
	if s.Stop != nil {
		s.Stop()
		s.Stop = nil
	}
	s.Live, s.polling, s.pollNote = false, false, ""
}

// follow starts watching st, the status read for load gen.
func (s *Screen) follow(st *live.ReleaseStatus) tea.Cmd {
	if s.Send == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(s.Ctx)
	s.Stop, s.Live = cancel, true
	var c client = s.Client
	send, ns, name, gen := s.Send, s.Ns, s.Name, s.Gen
	return func() tea.Msg {
		ch := live.WatchStatus(ctx, c, st, live.StatusWatchOptions{})
		go func() {
			for upd := range ch {
				send(LiveMsg{Ns: ns, Name: name, Gen: gen, Upd: upd})
			}
			if ctx.Err() == nil {
				send(LiveMsg{Ns: ns, Name: name, Gen: gen, ended: true})
			}
		}()
		return nil
	}
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string {
	if s.Rev == 0 {
		return s.Name + " › status"
	}
	return fmt.Sprintf("status of revision %d", s.Rev)
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.Loading }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return false }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h-statusHeadLines, 1))
	s.rerender()
}

// statusHeadLines are the lines above the scrolled part: the summary and how
// the view follows the cluster.
const statusHeadLines = 2

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k, sc := s.Keys.Status, s.Keys.Scroll
	return common.HelpKeys{
		Short: []key.Binding{k.Refresh, sc.Down, sc.PageDown},
		Full:  [][]key.Binding{sc.Bindings(), {k.Refresh}},
	}
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		if msg.Ns != s.Ns || msg.Name != s.Name || msg.Gen != s.Gen {
			return nil
		}
		s.Loading, s.Err, s.changes = false, msg.err, 0
		if msg.err != nil {
			s.St = nil
			s.rerender()
			return nil
		}
		s.St = msg.St
		s.rerender()
		return s.follow(msg.St)
	case LiveMsg:
		if msg.Ns != s.Ns || msg.Name != s.Name || msg.Gen != s.Gen || !s.Live {
			return nil
		}
		if msg.ended {
			s.Close()
			s.rerender()
			return nil
		}
		s.St = msg.Upd.Status
		s.polling, s.pollNote = msg.Upd.Polling, msg.Upd.Note
		s.changes++
		s.rerender()
		return nil
	case common.ReleaseChangedMsg:
		// A new revision: with rev 0, another may now be the deployed one.
		if msg.Ns == s.Ns && msg.Name == s.Name && s.Rev == 0 {
			return s.reload()
		}
		return nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.Keys.Status.Refresh):
			return s.reload()
		case key.Matches(msg, s.Keys.Scroll.Top):
			s.vp.GotoTop()
			return nil
		case key.Matches(msg, s.Keys.Scroll.Bottom):
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
func (s *Screen) rerender() {
	if s.Width == 0 {
		return
	}
	y := s.vp.YOffset()
	switch {
	case s.Err != nil:
		s.vp.SetContent(s.Styles.RenderError(s.Err, s.Width) + "\n\n" + s.Styles.Dim.Render("r: read again · esc: back"))
	case s.St == nil:
		s.vp.SetContent(s.Styles.Dim.Render("Reading the objects…"))
	default:
		s.vp.SetContent(renderStatusBody(s.Styles, s.St, s.Width, s.Now()))
	}
	s.vp.SetYOffset(y)
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	head := ""
	if s.St != nil {
		head = renderStatusHead(s.Styles, s.St, s.Width, s.liveLine())
	}
	return table.PadLines(head, statusHeadLines) + "\n" + viewer.View(&s.vp)
}

// liveLine says how the view follows the cluster.
func (s *Screen) liveLine() string {
	switch {
	case s.polling:
		return "◌ " + s.pollNote
	case s.Live:
		line := "● following live (one watch per kind of object)"
		if s.changes > 0 {
			line += fmt.Sprintf(" · %s seen", human.Plural(s.changes, "change", "changes"))
		}
		return line
	}
	return "not following the cluster: r reads again"
}
