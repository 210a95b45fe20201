package status

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
	"github.com/chunkview/chunkview/ui/screens/pods"
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

// checkAPIs checks the revision shown against what the cluster serves, once
// both are known and it was not checked yet.
func (s *Screen) checkAPIs() tea.Cmd {
	if s.served == nil || s.st == nil || (s.apis != nil && s.apisRev == s.st.Revision) {
		return nil
	}
	return checkRevisionAPIs(s.Ctx, s.Client, s.ns, s.name, s.st.Revision, s.st.Store, s.served)
}

// apisLines say, above the objects, that Helm can no longer upgrade the
// release and which objects use APIs the cluster no longer serves (each with
// what serves it now), wrapped whole; "" when none does or it is not known.
func (s *Screen) apisLines() string {
	if s.apis == nil || s.st == nil || s.apisRev != s.st.Revision || !s.apis.CannotUpgrade() {
		return ""
	}
	text := fmt.Sprintf("✗ %s %s: revision %d uses APIs the cluster no longer serves: %s. A in the history writes a revision on served versions (fix-apis).",
		apis.CannotUpgrade, s.name, s.apisRev, common.UnservedRefs(s.apis.Findings))
	return s.Styles.ErrorBold.Render(human.WrapCells(text, s.Width)) + "\n"
}

// items are the objects of the status shown, then its hooks.
func (s *Screen) items() []item {
	if s.st == nil {
		return nil
	}
	var out []item
	for _, r := range s.st.Resources {
		out = append(out, item{r.Kind, r.Namespace, r.Name})
	}
	for _, h := range s.st.Hooks {
		out = append(out, item{h.Kind, h.Namespace, h.Name})
	}
	return out
}

// selected is the object under the cursor.
func (s *Screen) selected() (item, bool) {
	its := s.items()
	if s.sel < 0 || s.sel >= len(its) {
		return item{}, false
	}
	return its[s.sel], true
}

// drillKey handles the keys that move the cursor or open a screen on the
// object under it; handled is false for another key.
func (s *Screen) drillKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	k, l := s.Keys.Status, s.Keys.List
	switch {
	case key.Matches(msg, l.Up, l.Down):
		if n := len(s.items()); n > 0 {
			if key.Matches(msg, l.Up) {
				s.sel = max(s.sel-1, 0)
			} else {
				s.sel = min(s.sel+1, n-1)
			}
			s.rerender()
			s.showSelected()
		}
		return nil, true
	case !key.Matches(msg, k.Pods, k.Logs, k.Describe):
		return nil, false
	}
	it, ok := s.selected()
	if !ok {
		return nil, true
	}
	kind := strings.ToLower(it.kind) + "/" + it.name
	switch {
	case key.Matches(msg, k.Pods):
		if !pods.IsWorkload(it.kind) {
			return common.Status(kind+" runs no Pods: enter lists those of a Deployment, StatefulSet, DaemonSet or Job", true), true
		}
		return common.Push(pods.New(s.Common, s.ns, s.name, s.st.Revision, it.kind, it.ns, it.name, s.st.Events)), true
	case key.Matches(msg, k.Logs):
		if !pods.IsWorkload(it.kind) && it.kind != "Pod" {
			return common.Status(kind+" has no log: l shows those of a Deployment, StatefulSet, DaemonSet, Job or Pod", true), true
		}
		return common.Push(pods.NewLog(s.Common, nil, s.ns, s.name, s.st.Revision, it.kind, it.name)), true
	default:
		if !slices.Contains(live.DescribeKinds, it.kind) {
			return common.Status(kind+": d describes a "+strings.Join(live.DescribeKinds, ", "), true), true
		}
		return common.Push(pods.NewDescribe(s.Common, s.st.Scrub, it.kind, it.ns, it.name, s.st.Events)), true
	}
}

// showSelected scrolls the view so that the selected line is in it.
func (s *Screen) showSelected() {
	if s.selLine < 0 {
		return
	}
	y, h := s.vp.YOffset(), s.vp.Height()
	switch {
	case s.selLine < y:
		s.vp.SetYOffset(s.selLine)
	case s.selLine >= y+h:
		s.vp.SetYOffset(s.selLine - h + 1)
	}
}
