package status

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// The resources view: how the objects of one revision run (kstatus), the last
// run of its hooks and its Warning events, read as `chunkview status` reads
// them, then followed live with one watch per kind of object and namespace
// (live.WatchStatus), read every few seconds where the server refuses to watch.
// Its updates arrive through the program's Send, like the live view's.

// Screen shows the resources view of one revision of a release.
type Screen struct {
	common.Common
	ns, name string
	// rev is the revision shown; 0 the latest deployed (from the list).
	rev int

	gen     int
	loading bool
	err     error
	st      *live.ReleaseStatus
	// live is set while the watch runs; polling, with pollNote, once some
	// kind is read every few seconds instead.
	live     bool
	polling  bool
	pollNote string
	// changes counts the updates the watch brought.
	changes int
	stop    context.CancelFunc
	send    func(tea.Msg)
	vp      viewer.Model

	// served is what the cluster serves, once known; apis the check of the
	// revision shown against it (apisRev the revision it answers).
	served  *apis.Served
	apis    *apis.Report
	apisRev int
	// sel is the object under the cursor (see items), selLine the line it is
	// drawn on.
	sel, selLine int
}

// New opens the status of revision rev of a release (0: the latest).
func New(c common.Common, ns, name string, rev int) *Screen {
	return &Screen{Common: c, ns: ns, name: name, rev: rev, vp: c.NewArrowViewer(), selLine: -1}
}

// SetSend gives the screen the program's Send, for the watch's updates.
func (s *Screen) SetSend(send func(tea.Msg)) { s.send = send }

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd {
	return tea.Batch(s.reload(), common.LoadServed(s.Ctx, s.Client, false))
}

// reload stops the watch and reads the status again.
func (s *Screen) reload() tea.Cmd {
	s.Close()
	s.gen++
	s.loading = true
	return loadStatus(s.Ctx, s.Client, s.ns, s.name, s.rev, s.gen)
}

// Close stops the watch; the screen is closed, or reads again.
func (s *Screen) Close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	s.live, s.polling, s.pollNote = false, false, ""
}

// follow starts watching st, the status read for load gen.
func (s *Screen) follow(st *live.ReleaseStatus) tea.Cmd {
	if s.send == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(s.Ctx)
	s.stop, s.live = cancel, true
	var c client = s.Client
	send, ns, name, gen := s.send, s.ns, s.name, s.gen
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
	if s.rev == 0 {
		return s.name + " › status"
	}
	return fmt.Sprintf("status of revision %d", s.rev)
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.loading }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return false }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.vp.SetSize(w, max(h-statusHeadLines, 1))
	s.rerender()
}

// statusHeadLines are the lines above the scrolled part: the summary and how
// the view follows the cluster.
const statusHeadLines = 2

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k, sc := s.Keys.Status, s.vp.KeyMap
	return common.HelpKeys{
		Short: []key.Binding{k.Pods, k.Logs, k.Describe, k.Refresh, s.Keys.List.Down},
		Full:  [][]key.Binding{{s.Keys.List.Up, s.Keys.List.Down, k.Pods, k.Logs, k.Describe, k.Refresh}, sc.Bindings()[2:]},
	}
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		if msg.Ns != s.ns || msg.Name != s.name || msg.Gen != s.gen {
			return nil
		}
		s.loading, s.err, s.changes = false, msg.err, 0
		if msg.err != nil {
			s.st = nil
			s.rerender()
			return nil
		}
		s.st = msg.St
		s.sel = firstNotCurrent(msg.St)
		s.rerender()
		return tea.Batch(s.follow(msg.St), s.checkAPIs())
	case common.ServedMsg:
		if msg.Err == nil && msg.Served != s.served {
			s.served, s.apis, s.apisRev = msg.Served, nil, 0
			return s.checkAPIs()
		}
		return nil
	case apisMsg:
		if msg.Ns == s.ns && msg.Name == s.name && msg.Served == s.served && s.st != nil && msg.Rev == s.st.Revision {
			s.apis, s.apisRev = msg.Rep, msg.Rev
			s.rerender()
		}
		return nil
	case LiveMsg:
		if msg.Ns != s.ns || msg.Name != s.name || msg.Gen != s.gen || !s.live {
			return nil
		}
		if msg.ended {
			s.Close()
			s.rerender()
			return nil
		}
		s.st = msg.Upd.Status
		s.polling, s.pollNote = msg.Upd.Polling, msg.Upd.Note
		s.changes++
		s.rerender()
		return nil
	case common.ReleaseChangedMsg:
		// A new revision: with rev 0, another may now be the deployed one.
		if msg.Ns == s.ns && msg.Name == s.name && s.rev == 0 {
			return s.reload()
		}
		return nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.Keys.Status.Refresh):
			return s.reload()
		}
		if cmd, ok := s.drillKey(msg); ok {
			return cmd
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
	case s.err != nil:
		s.vp.SetContent(common.RenderError(s.Styles, s.err, s.Width) + "\n\n" + s.Styles.Dim.Render("r: read again · esc: back"))
	case s.st == nil:
		s.vp.SetContent(s.Styles.Dim.Render("Reading the objects…"))
	default:
		s.sel = min(s.sel, max(len(s.items())-1, 0))
		apis := s.apisLines()
		body, line := renderStatusRows(s.Styles, s.st, s.Width, s.Now(), s.sel)
		s.selLine = -1
		if line >= 0 {
			s.selLine = line + strings.Count(apis, "\n")
		}
		s.vp.SetContent(apis + body)
	}
	s.vp.SetYOffset(y)
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	head := ""
	if s.st != nil {
		head = renderStatusHead(s.Styles, s.st, s.Width, s.liveLine())
	}
	return table.PadLines(head, statusHeadLines) + "\n" + s.vp.View()
}

// liveLine says how the view follows the cluster.
func (s *Screen) liveLine() string {
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
