package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// Smallest usable terminal; below it the UI asks for more room.
const (
	minWidth  = 60
	minHeight = 12
)

// chromeLines is the height of the header, status line and help line.
const chromeLines = 3

// model is the root of the program: the screen stack, the header with its badges,
// the status line, the help line and overlay, the spinner and the live watch.
type model struct {
	common.Common
	opts Options

	stack    []common.Screen
	spin     spinner.Model
	spinning bool
	// busySince is when the spinner started: the badge counts the seconds a
	// wait lasts, so that a server slow to answer shows as one.
	busySince time.Time
	help      help.Model
	showHelp  bool
	// showLog shows the message log (:log) over the screen; log holds it, and
	// lastLogged is the status last recorded in it.
	showLog    bool
	log        []loggedStatus
	lastLogged string

	status    string
	statusErr bool

	// watch is on while the live view follows the cluster (w switches it);
	// liveGen counts the watches started, liveCancel ends the current one, and
	// polling is set, with pollNote, when the server refused to watch.
	watch      bool
	liveGen    int
	liveCancel context.CancelFunc
	polling    bool
	pollNote   string
	// liveState is the watch's health, lastContact when the server last
	// answered it, and liveSynced is set once its first list is in: the
	// header says LIVE only then, and while up.
	liveState   kube.WatchState
	lastContact time.Time
	liveSynced  bool
	// send delivers a message to the program from outside a command (the
	// watch's events); Run sets it.
	send func(tea.Msg)

	// cmd is the ":" command line; quitArmed is set by a first ctrl+c that
	// asked before losing typed text.
	cmd       cmdLine
	quitArmed bool
	// switching is the context a switch is under way to ("" when none).
	switching string

	termWidth, termHeight int
}

func (m *model) top() common.Screen { return m.stack[len(m.stack)-1] }

// popScreen closes the top screen, unless it is the last, and reports whether
// it did.
func (m *model) popScreen() bool {
	if len(m.stack) < 2 {
		return false
	}
	closeScreens(m.stack[len(m.stack)-1:])
	m.stack = m.stack[:len(m.stack)-1]
	return true
}

func closeScreens(ss []common.Screen) {
	for _, s := range ss {
		if c, ok := s.(common.Closer); ok {
			c.Close()
		}
	}
}

func (m *model) bodySize() (int, int) {
	return m.termWidth, max(m.termHeight-chromeLines, 1)
}

// push opens screen s on top of the stack.
func (m *model) push(s common.Screen) tea.Cmd {
	if l, ok := s.(common.Sender); ok {
		l.SetSend(m.send)
	}
	w, h := m.bodySize()
	s.SetSize(w, h)
	m.stack = append(m.stack, s)
	m.status = ""
	return tea.Batch(s.Init(), m.startSpinner())
}

func (m *model) anyBusy() bool {
	if m.switching != "" {
		return true
	}
	for _, s := range m.stack {
		if s.Busy() {
			return true
		}
	}
	return false
}

// startSpinner starts the spinner's ticks when something is loading and they are
// not running already; they stop by themselves once nothing is.
func (m *model) startSpinner() tea.Cmd {
	if m.spinning || !m.anyBusy() {
		return nil
	}
	m.spinning, m.busySince = true, m.Now()
	return m.spin.Tick
}

// loggedStatus is one status message as it was shown, kept whole.
type loggedStatus struct {
	at   time.Time
	text string
	err  bool
}
