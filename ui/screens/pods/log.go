package pods

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// TailLines is how much of the end of a log the view reads, as `chunkview
// logs NAME` does.
const TailLines = 100

// maxLogLines bounds the lines a followed log keeps: the newest.
const maxLogLines = 10000

// screens numbers the screens, so that one takes only its own answers (every
// screen of the stack sees every message).
var screens atomic.Uint64

// Log shows one container's log of a workload or Pod of a release: its tail,
// followed on f, its previous run on p, searched with /, masked like
// `chunkview logs` unless revealed.
type Log struct {
	common.Common
	id  uint64
	src LogSource
	// ns and release name the release; rev its revision (0: the one status
	// shows); kind/obj what the log was asked of.
	ns, release string
	rev         int
	kind, obj   string

	pods    *live.ReleasePods
	targets []live.LogTarget
	idx     int

	follow, previous, revealed bool
	gen                        int
	loading, streaming         bool
	lines                      []string
	err, logErr                error
	cancel                     context.CancelFunc
	send                       func(tea.Msg)
	vp                         viewer.Model
}

// NewLog opens the log of kind/obj (a workload of the release, or a Pod: see
// live.ReleasePods.Select), reading the release's Pods first unless pods holds
// them; its failing container is shown first.
func NewLog(c common.Common, pods *live.ReleasePods, ns, release string, rev int, kind, obj string) *Log {
	return newLog(c, clusterLogs{c.Client.Clientset()}, pods, ns, release, rev, kind, obj)
}

func newLog(c common.Common, src LogSource, pods *live.ReleasePods, ns, release string, rev int, kind, obj string) *Log {
	return &Log{Common: c, id: screens.Add(1), src: src, pods: pods, ns: ns, release: release, rev: rev, kind: kind, obj: obj,
		vp: c.NewArrowViewer().WithSearch(c.NewSearch())}
}

// podsMsg answers readPods for screen id.
type podsMsg struct {
	id   uint64
	pods *live.ReleasePods
	err  error
}

// readPods reads the Pods of revision rev of the release, masked (the log
// view and the Pods view unmask on v alone).
func readPods(ctx context.Context, c live.Source, id uint64, ns, name string, rev int) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.History(ctx, ns, name)
		if err != nil {
			return podsMsg{id: id, err: err}
		}
		p, err := live.PodsOf(ctx, c, rows, rev, false)
		return podsMsg{id: id, pods: p, err: err}
	}
}

// SetSend gives the screen the program's Send, for a followed log's lines.
func (s *Log) SetSend(send func(tea.Msg)) { s.send = send }

// Init reads the Pods, or the log when they are known.
func (s *Log) Init() tea.Cmd {
	if s.pods == nil {
		s.loading = true
		return readPods(s.Ctx, s.Client, s.id, s.ns, s.release, s.rev)
	}
	return s.podsRead()
}

// podsRead picks the containers of the object, its failing one first, and
// reads its log.
func (s *Log) podsRead() tea.Cmd {
	s.targets, s.err = s.pods.Select(s.kind, s.obj, "")
	if s.err == nil && len(s.targets) == 0 {
		s.err = fmt.Errorf("%s/%s has no Pods in the cluster, so no log to show", strings.ToLower(s.kind), s.obj)
	}
	if s.err != nil {
		s.loading = false
		s.rerender()
		return nil
	}
	failing, _ := s.pods.Failing()
	for i, t := range s.targets {
		for _, f := range failing {
			if f.Pod == t.Pod && f.Container == t.Container {
				s.idx = i
				return s.start()
			}
		}
	}
	return s.start()
}

// start reads the log shown anew, stopping a read under way.
func (s *Log) start() tea.Cmd {
	s.Close()
	s.gen++
	s.lines, s.logErr = nil, nil
	ctx, cancel := context.WithCancel(s.Ctx)
	s.cancel = cancel
	opts := live.LogOptions{Previous: s.previous, Follow: s.follow, Tail: TailLines}
	t := s.targets[s.idx]
	s.rerender()
	if s.follow && s.send != nil {
		s.streaming = true
		id, gen, send := s.id, s.gen, s.send
		return followLog(ctx, s.src, t, opts, gen, func(m tea.Msg) { send(logMsgOf(id, m)) })
	}
	s.loading = true
	opts.Follow = false
	read, id := readLog(ctx, s.src, t, opts, s.gen), s.id
	return func() tea.Msg { return logMsgOf(id, read()) }
}

// screenLogMsg is a logMsg for screen id.
type screenLogMsg struct {
	id uint64
	logMsg
}

func logMsgOf(id uint64, m tea.Msg) tea.Msg { return screenLogMsg{id: id, logMsg: m.(logMsg)} }

// Close stops the log's stream: the view is closed, or reads it another way.
func (s *Log) Close() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.streaming, s.loading = false, false
}

// Title is the part of the breadcrumb it adds.
func (s *Log) Title() string {
	if len(s.targets) > 0 {
		return "log of " + s.targets[s.idx].Pod + "/" + s.targets[s.idx].Container
	}
	return "log of " + strings.ToLower(s.kind) + "/" + s.obj
}

// Busy reports whether it waits on the cluster.
func (s *Log) Busy() bool { return s.loading }

// Capturing reports whether a search is being typed.
func (s *Log) Capturing() bool { return s.vp.Search().Typing() }

// HandlesBack: esc clears a search before it leaves the screen.
func (s *Log) HandlesBack() bool { return s.vp.Search().Active() }

// logHeadLines are the lines above the log: which container, and how it is
// read.
const logHeadLines = 2

// SetSize sets the size it draws in.
func (s *Log) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.vp.SetSize(w, max(h-logHeadLines-1, 1))
	s.rerender()
}

// Help returns its keys.
func (s *Log) Help() common.HelpKeys {
	k := s.Keys.Log
	if sr := s.vp.Search(); sr.Active() {
		b := sr.Bindings()
		return common.HelpKeys{Short: b, Full: [][]key.Binding{b, s.vp.KeyMap.Bindings()}}
	}
	return common.HelpKeys{
		Short: []key.Binding{k.Follow, k.Previous, s.Keys.Search.Start, k.Container, k.Reveal},
		Full:  [][]key.Binding{{k.Follow, k.Previous, k.Container, k.Reveal, s.Keys.Search.Start}, s.vp.KeyMap.Bindings()},
	}
}

// Update takes a key, or an answer of its reads.
func (s *Log) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case podsMsg:
		if msg.id != s.id {
			return nil
		}
		s.loading = false
		if s.pods, s.err = msg.pods, msg.err; s.err != nil {
			s.rerender()
			return nil
		}
		return s.podsRead()
	case screenLogMsg:
		if msg.id != s.id || msg.gen != s.gen {
			return nil
		}
		s.take(msg.logMsg)
		return nil
	case tea.KeyPressMsg:
		return s.key(msg)
	}
	return nil
}

// take adds the lines a read brought, keeping the end of the log in view
// while the reader is there.
func (s *Log) take(m logMsg) {
	atEnd := s.vp.YOffset()+s.vp.Height() >= s.vp.TotalLineCount()
	s.lines = append(s.lines, m.lines...)
	if n := len(s.lines) - maxLogLines; n > 0 {
		s.lines = s.lines[n:]
	}
	if m.done {
		s.loading, s.streaming, s.logErr = false, false, m.err
	}
	s.rerender()
	if atEnd {
		s.vp.SetYOffset(max(s.vp.TotalLineCount()-s.vp.Height(), 0))
	}
}

// key handles a key press: the search's first, then the log's keys, then the
// scroll keys.
func (s *Log) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.Keys.Log
	if s.vp.SearchWants(msg) || len(s.targets) == 0 {
		var cmd tea.Cmd
		s.vp, cmd = s.vp.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, k.Follow):
		s.follow = !s.follow
		return s.start()
	case key.Matches(msg, k.Previous):
		s.previous = !s.previous
		return s.start()
	case key.Matches(msg, k.Container):
		s.idx = (s.idx + 1) % len(s.targets)
		return s.start()
	case key.Matches(msg, k.Reveal):
		s.revealed = !s.revealed
		s.rerender()
		return nil
	}
	var cmd tea.Cmd
	s.vp, cmd = s.vp.Update(msg)
	return cmd
}

// shown is the log as it is shown: each line masked by the release's scrub,
// the one `chunkview logs` masks with, unless revealed.
func (s *Log) shown() string {
	out := make([]string, len(s.lines))
	for i, l := range s.lines {
		if s.revealed {
			out[i] = l
		} else {
			out[i] = s.pods.Scrub(l)
		}
	}
	return strings.Join(out, "\n")
}

// rerender sets the text of the log view.
func (s *Log) rerender() {
	if s.Width == 0 {
		return
	}
	st := s.Styles
	var text string
	switch {
	case s.err != nil:
		text = common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("esc: back")
	case s.pods == nil:
		text = st.Dim.Render("Reading the release's Pods…")
	default:
		text = s.shown()
		if s.logErr != nil {
			if text != "" {
				text += "\n"
			}
			text += common.RenderError(st, s.logErr, s.Width)
		} else if !s.loading && !s.streaming && len(s.lines) == 0 {
			text = st.Dim.Render("The log is empty.")
		}
	}
	s.vp.SetContent(text)
}

// View draws it in exactly its size.
func (s *Log) View() string {
	st := s.Styles
	var head [logHeadLines]string
	if len(s.targets) > 0 {
		t := s.targets[s.idx]
		head[0] = st.Title.Render(t.Name())
		if len(s.targets) > 1 {
			head[0] += st.Dim.Render(fmt.Sprintf(" · %d of %d containers (tab: next)", s.idx+1, len(s.targets)))
		}
		head[1] = st.Dim.Render(s.how())
	}
	foot := ""
	if sr := s.vp.Search(); sr.Footer() != "" {
		foot = table.Line1(s.Width, sr.Footer())
	}
	return table.CutLines(head[0]+"\n"+head[1], s.Width) + "\n" + table.PadLines(s.vp.View(), max(s.Height-logHeadLines-1, 1)) + "\n" + foot
}

// how says which log is shown and how it is read.
func (s *Log) how() string {
	run := "current run"
	if s.previous {
		run = "previous run (p: current)"
	} else if s.targets[s.idx].Restarts > 0 {
		run += " (p: previous)"
	}
	state := "ended (f: follow)"
	switch {
	case s.follow && !s.streaming && !s.loading:
		state = "the stream ended (f: read again)"
	case s.streaming:
		state = "● following (f: stop)"
	case s.loading:
		state = "reading…"
	}
	mask := "masked (v: reveal)"
	if s.revealed {
		mask = "secrets shown (v: mask)"
	}
	return fmt.Sprintf("tail %d · %s · %s · %s", TailLines, run, state, mask)
}
