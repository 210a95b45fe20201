package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

func newModel(c common.Common, opts Options) *model {
	m := &model{Common: c, opts: opts, watch: opts.Watch, cmd: newCmdLine()}
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(c.Styles.Spinner))
	m.help = help.New()
	m.help.Styles = c.Styles.Help
	m.stack = []common.Screen{releases.New(c)}
	m.setLive(m.watch)
	return m
}

// Init starts the release list and, in watch mode, the watch: the list then
// waits for the watch's first list, so that no change falls between the two.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.top().Init()}
	if m.watch {
		cmds = append(cmds, m.startLive())
	}
	return tea.Batch(append(cmds, m.startSpinner())...)
}

// Update routes a message: keys to the top screen after the global ones,
// navigation to the stack, and everything else to every screen.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer m.noteStatus()
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg)
		return m, nil

	case tea.KeyPressMsg:
		return m, m.handleKey(msg)

	case spinner.TickMsg:
		if !m.anyBusy() {
			m.spinning = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd

	case common.PushMsg:
		return m, m.push(msg.S)

	case common.PopMsg:
		m.popScreen()
		m.status, m.statusErr = msg.Status, false
		return m, nil

	case common.StatusMsg:
		m.status, m.statusErr = msg.Text, msg.Err
		return m, nil

	case common.ContextChosenMsg:
		return m, m.askContext(msg.Name)

	case ctxSwitchedMsg:
		return m, m.contextSwitched(msg)

	case common.ToggleWatchMsg:
		return m, m.toggleWatch()

	case clockMsg:
		// Only the redraw after it: the ages count up.
		return m, nil

	case common.LiveMsg:
		cmd, handled := m.takeLive(msg)
		if handled {
			return m, cmd
		}
		cmds = append(cmds, cmd)

	case nsCheckedMsg:
		return m, m.namespaceChecked(msg)

	case common.NamespaceChosenMsg:
		// The list looks elsewhere: the watch follows it there.
		for _, s := range m.stack {
			cmds = append(cmds, s.Update(msg))
		}
		if m.watch {
			cmds = append(cmds, m.startLive())
		}
		return m, tea.Batch(append(cmds, m.startSpinner())...)
	}

	for _, s := range m.stack {
		cmds = append(cmds, s.Update(msg))
	}
	cmds = append(cmds, m.startSpinner())
	return m, tea.Batch(cmds...)
}

// resize gives the new terminal size to the help, the command line and every
// screen on the stack.
func (m *model) resize(msg tea.WindowSizeMsg) {
	m.termWidth, m.termHeight = msg.Width, msg.Height
	m.help.SetWidth(msg.Width)
	m.cmd.input.SetWidth(max(msg.Width-2, 1))
	w, h := m.bodySize()
	for _, s := range m.stack {
		s.SetSize(w, h)
	}
}

// toggleWatch turns the live view on or off, and says so.
func (m *model) toggleWatch() tea.Cmd {
	m.watch = !m.watch
	m.setLive(m.watch)
	if m.watch {
		m.status, m.statusErr = "Live: rows change as revisions are written.", false
		return tea.Batch(m.startLive(), m.startSpinner())
	}
	m.stopLive()
	m.polling, m.pollNote = false, ""
	m.status, m.statusErr = "Live view off: r refreshes.", false
	return nil
}

// takeLive takes an event of the live view's watch: one of a watch stopped since
// is dropped, a change of the watch's mode is said in the status line; both are
// handled here. Any other event goes on to the screens (handled false), with the
// command its health check needs.
func (m *model) takeLive(msg common.LiveMsg) (cmd tea.Cmd, handled bool) {
	if !m.watch || msg.Gen != m.liveGen {
		return nil, true
	}
	switch msg.Ev.Type {
	case kube.WatchHealth:
		cmd = m.takeHealth(msg.Ev)
	case kube.WatchSynced:
		m.liveSynced = true
	case kube.WatchMode:
		m.polling, m.pollNote = msg.Ev.Polling, msg.Ev.Note
		switch {
		case msg.Ev.Polling:
			m.status, m.statusErr = liveModeStatus(msg.Ev), true
		case msg.Ev.Note != "":
			// A store the live view cannot follow: LIVE holds for the rest.
			m.status, m.statusErr = "Live, except: "+msg.Ev.Note+".", true
		}
		return nil, true
	}
	return cmd, false
}

func (m *model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.Keys.Global
	if key.Matches(msg, g.ForceQuit) {
		if m.confirmForceQuit() {
			return nil
		}
		return tea.Quit
	}
	if m.quitArmed {
		m.quitArmed = false
		m.status = ""
	}
	if m.cmd.active {
		return m.handleCmdLine(msg)
	}
	if m.showLog {
		m.showLog = false
		return nil
	}
	if m.showHelp {
		// Any key closes the overlay, q and esc among them, as in less and
		// k9s: from the help, q is not a way out of chunkview (ctrl+c is).
		m.showHelp = false
		return nil
	}
	top := m.top()
	if !top.Capturing() {
		switch {
		case key.Matches(msg, g.Quit):
			return tea.Quit
		case key.Matches(msg, g.Help):
			m.showHelp = true
			return nil
		case key.Matches(msg, g.Command):
			m.cmd.active = true
			m.cmd.input.SetValue("")
			return m.cmd.input.Focus()
		case key.Matches(msg, g.Back) && !top.HandlesBack():
			if m.popScreen() {
				m.status = ""
			}
			return nil
		}
	}
	return tea.Batch(top.Update(msg), m.startSpinner())
}

// View draws the header, the top screen (or the help overlay), the status line
// and the help line.
func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "chunkview"
	return v
}

func (m *model) render() string {
	if m.termWidth == 0 {
		return ""
	}
	if m.termWidth < minWidth || m.termHeight < minHeight {
		return table.Wrap("chunkview needs a terminal of at least 60x12; this one is "+
			strconv.Itoa(m.termWidth)+"x"+strconv.Itoa(m.termHeight)+". Enlarge it, or press q to quit.", m.termWidth)
	}
	_, h := m.bodySize()
	top := m.top()
	var body string
	switch {
	case m.showLog:
		body = m.logOverlay()
	case m.showHelp:
		body = m.helpOverlay(top)
	default:
		body = top.View()
	}
	body = table.CutLines(table.PadLines(body, h), m.termWidth)
	return strings.Join([]string{m.header(), body, m.statusLine(), m.helpLine(top)}, "\n")
}

// header is the app name, the breadcrumb and the badges. When they do not fit,
// the read-only badge shortens, then the breadcrumb loses its first parts before
// the last one: the screen shown, with the release name, stays.
func (m *model) header() string {
	st := m.Styles
	var crumbs []string
	for _, s := range m.stack {
		crumbs = append(crumbs, s.Title())
	}
	right := m.badges(false)
	if lipgloss.Width(st.AppName.Render("chunkview")+st.Crumb.Render(strings.Join(crumbs, " › ")))+lipgloss.Width(right) >= m.termWidth {
		// Short badges before a shorter breadcrumb.
		right = m.badges(true)
	}
	var left string
	for k := range crumbs {
		cs := crumbs[k:]
		if k > 0 {
			cs = append([]string{"…"}, cs...)
		}
		left = st.AppName.Render("chunkview") + st.Crumb.Render(strings.Join(cs, " › "))
		if lipgloss.Width(left)+lipgloss.Width(right) < m.termWidth {
			break
		}
	}
	gap := m.termWidth - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(m.termWidth-lipgloss.Width(right)-1, 10), "…")
		gap = max(m.termWidth-lipgloss.Width(left)-lipgloss.Width(right), 0)
	}
	return ansi.Truncate(left+st.Header.Render(strings.Repeat(" ", gap))+right, m.termWidth, "…")
}

// badges are the header's right side: loading, live or polling, demo, read-only,
// context.
func (m *model) badges(short bool) string {
	st := m.Styles
	var badges []string
	if m.anyBusy() {
		label := " loading "
		if d := m.Now().Sub(m.busySince); m.spinning && d >= time.Second {
			label = " loading " + human.Span(d.Truncate(time.Second)) + " "
		}
		badges = append(badges, st.Spinner.Render(m.spin.View()+label))
	}
	if m.watch {
		badges = append(badges, m.liveBadge(short))
	}
	if m.opts.Demo {
		badges = append(badges, st.BadgeDemo.Render("DEMO"))
	}
	if m.ReadOnly() {
		if short {
			badges = append(badges, st.BadgeReadOnly.Render("READ-ONLY"))
		} else {
			badges = append(badges, st.BadgeReadOnly.Render("READ-ONLY: actions off"))
		}
	}
	return st.HeaderInfo.Render(m.whereInfo(short)) + strings.Join(badges, "")
}

// whereInfo names the context and the namespace in view, always: short, each is
// cut to a few letters, but neither is dropped.
func (m *model) whereInfo(short bool) string {
	ns := "?"
	if rs, ok := m.stack[0].(*releases.Screen); ok {
		ns = rs.ViewName
	}
	if ns == common.AllNamespaces {
		ns = "all"
	}
	ctx := m.KubeContext
	if short {
		ctx, ns = ansi.Truncate(ctx, 14, "…"), ansi.Truncate(ns, 12, "…")
	}
	if ctx == "" {
		return "ns " + ns
	}
	return "ctx " + ctx + " · ns " + ns
}

func (m *model) statusLine() string {
	if m.cmd.active {
		return m.cmd.input.View()
	}
	if m.status == "" {
		return ""
	}
	text := table.OneLine(m.status)
	if ansi.StringWidth(text) > m.termWidth {
		// Cut: the message log has it whole.
		const more = " (:log)"
		text = ansi.Truncate(text, m.termWidth-len(more), "…") + more
	}
	if m.statusErr {
		return m.Styles.Error.Render(text)
	}
	return m.Styles.OK.Render(text)
}

// helpLine is the screen's keys, as many as fit, then the way out: help, quit and
// back are always shown, whatever the width. While a screen takes typed text, q
// and ? type, so the line offers ctrl+c instead.
func (m *model) helpLine(top common.Screen) string {
	g := m.Keys.Global
	if m.cmd.active {
		return ansi.Truncate(m.help.ShortHelpView(m.cmdLineKeys()), m.termWidth, "…")
	}
	var way []key.Binding
	if top.Capturing() {
		way = []key.Binding{g.ForceQuit}
	} else {
		way = []key.Binding{g.Help, g.Quit}
		if len(m.stack) > 1 && !top.HandlesBack() {
			way = append(way, g.Back)
		}
	}
	tail := m.help.ShortHelpView(way)
	sep := m.help.Styles.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	room := m.termWidth - lipgloss.Width(tail) - lipgloss.Width(sep)
	short := top.Help().Short
	if len(short) == 0 || room < 8 {
		return ansi.Truncate(tail, m.termWidth, "…")
	}
	return fitShortHelp(m.help, short, room) + sep + tail
}

// fitShortHelp renders as many of bindings as fit in width, then " …" when some
// were left out. The help bubble's own cut adds items past its width when the
// ellipsis has no room, so the cut is made here.
func fitShortHelp(hm help.Model, bindings []key.Binding, width int) string {
	hm.SetWidth(0)
	if full := hm.ShortHelpView(bindings); lipgloss.Width(full) <= width {
		return full
	}
	ellipsis := " " + hm.Styles.Ellipsis.Inline(true).Render(hm.Ellipsis)
	for n := len(bindings) - 1; n > 0; n-- {
		if v := hm.ShortHelpView(bindings[:n]); lipgloss.Width(v)+lipgloss.Width(ellipsis) <= width {
			return v + ellipsis
		}
	}
	return ansi.Truncate(hm.ShortHelpView(bindings[:1]), width, "…")
}

// helpOverlay lists the screen's keys in columns, the global ones (help, back,
// quit) first so that a small terminal keeps them.
func (m *model) helpOverlay(top common.Screen) string {
	st := m.Styles
	h := top.Help()
	cols := append([][]key.Binding{m.Keys.Global.Bindings()}, h.Full...)
	title := st.Title.Render("Keys: " + top.Title())
	note := st.Dim.Render("q, esc or any other key closes this help (ctrl+c quits).")
	full := m.flowColumns(cols, m.termWidth)
	return strings.Join([]string{title, "", full, "", note}, "\n")
}
