package screentest

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
)

// Common is the shared value the screens are opened with in tests: client's,
// with the default styles and keys and the fixed clock.
func Common(client *kube.Client) common.Common {
	return common.New(context.Background(), client, func() time.Time { return Now })
}

// Harness drives one screen the way the root does, but synchronously: it sizes
// it, runs the commands each update returns and feeds their messages back until
// nothing is left to do. What the screen asks of the root (push a screen, pop
// itself, a status line, the watch on or off, another context) it keeps in Out
// instead. Timer ticks that commands produce (a recheck) are dropped, so a test
// never waits on a timer; a test sends one itself when it wants one.
type Harness struct {
	t testing.TB
	// S is the screen driven.
	S common.Screen
	// Out are the messages for the root, in the order they came.
	Out []tea.Msg
	// Trace names the messages fed to the screen, for a failure's message.
	Trace []string

	w, h  int
	msgs  chan tea.Msg
	async chan tea.Msg
	busy  int
}

// New opens screen s at w by h cells and waits until its first loads answered.
func New(t testing.TB, s common.Screen, w, h int) *Harness {
	t.Helper()
	hs := Start(t, s, w, h)
	hs.Settle()
	return hs
}

// Start is New without the wait: the first commands are under way when it
// returns.
func Start(t testing.TB, s common.Screen, w, h int) *Harness {
	t.Helper()
	hs := &Harness{t: t, S: s, w: w, h: h, msgs: make(chan tea.Msg, 256), async: make(chan tea.Msg, 1024)}
	if snd, ok := s.(common.Sender); ok {
		// A screen's own watch delivers its updates on its own; a test takes
		// them with WaitAsync.
		snd.SetSend(func(msg tea.Msg) { hs.async <- msg })
	}
	s.SetSize(w, h)
	hs.run(s.Init())
	return hs
}

func (h *Harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.busy++
	go func() { h.msgs <- cmd() }()
}

// Settle processes messages until every command has answered.
func (h *Harness) Settle() *Harness {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for h.busy > 0 {
		select {
		case msg := <-h.msgs:
			h.busy--
			h.feed(msg, true)
		case <-deadline:
			h.t.Fatalf("commands did not settle; messages so far: %v\nscreen:\n%s", h.Trace, h.View())
		}
	}
	return h
}

// feed gives msg to the screen, or keeps it in Out when it is the root's.
func (h *Harness) feed(msg tea.Msg, fromCmd bool) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
		return
	case common.PushMsg, common.PopMsg, common.StatusMsg, common.ToggleWatchMsg, common.ContextChosenMsg:
		h.Out = append(h.Out, msg)
		return
	case rowcheck.RecheckMsg:
		if fromCmd {
			return
		}
	}
	h.Trace = append(h.Trace, reflect.TypeOf(msg).String())
	h.run(h.S.Update(msg))
}

// Send delivers a message to the screen and settles.
func (h *Harness) Send(msg tea.Msg) *Harness {
	h.t.Helper()
	h.feed(msg, false)
	return h.Settle()
}

// Run runs cmd as the root would, and settles.
func (h *Harness) Run(cmd tea.Cmd) *Harness {
	h.t.Helper()
	h.run(cmd)
	return h.Settle()
}

// WaitAsync takes the messages the screen's watch sends, settling after each,
// until done reports true.
func (h *Harness) WaitAsync(what string, done func() bool) *Harness {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for !done() {
		select {
		case msg := <-h.async:
			h.Send(msg)
		case <-deadline:
			h.t.Fatalf("%s: not within 20s; screen:\n%s", what, h.View())
		}
	}
	return h
}

// Press sends key presses, named as bubbletea names them ("enter", "esc",
// "up", "shift+tab", "space", "ctrl+c") or as single characters; each settles.
func (h *Harness) Press(keys ...string) *Harness {
	h.t.Helper()
	for _, k := range keys {
		h.Send(Key(k))
	}
	return h
}

// Type types s one character at a time.
func (h *Harness) Type(s string) *Harness {
	h.t.Helper()
	for _, r := range s {
		h.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return h
}

// Key is the key press named k (see Press).
func Key(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "tab": tea.KeyTab, "pgdown": tea.KeyPgDown,
		"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace,
	}
	switch {
	case k == "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case k == "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case strings.HasPrefix(k, "ctrl+"):
		return tea.KeyPressMsg{Code: rune(k[len(k)-1]), Mod: tea.ModCtrl}
	}
	if c, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// Resize gives the screen another size.
func (h *Harness) Resize(w, hgt int) *Harness {
	h.w, h.h = w, hgt
	h.S.SetSize(w, hgt)
	return h
}

// Frame is the screen's view as the root draws it: exactly its size, no line
// past its width, in colour.
func (h *Harness) Frame() string {
	return table.CutLines(table.PadLines(h.S.View(), h.h), h.w)
}

// View is the screen's frame without colour and trailing spaces.
func (h *Harness) View() string { return Plain(h.Frame()) }

var trailingSpace = regexp.MustCompile(`[ \t]+\n`)

// Plain strips colour and trailing spaces, so that golden files do not depend on
// the terminal's colour profile.
func Plain(s string) string {
	s = ansi.Strip(s)
	s = trailingSpace.ReplaceAllString(s+"\n", "\n")
	return strings.TrimRight(s, "\n") + "\n"
}

// Contains fails the test unless the view shows every one of want.
func (h *Harness) Contains(want ...string) *Harness {
	h.t.Helper()
	v := h.View()
	for _, w := range want {
		if !strings.Contains(v, w) {
			h.t.Fatalf("the view does not show %q:\n%s", w, v)
		}
	}
	return h
}

// Lacks fails the test if the view shows any of unwanted.
func (h *Harness) Lacks(unwanted ...string) *Harness {
	h.t.Helper()
	v := h.View()
	for _, w := range unwanted {
		if strings.Contains(v, w) {
			h.t.Fatalf("the view shows %q:\n%s", w, v)
		}
	}
	return h
}

// Golden compares the view with testdata/<test name>.golden; go test -update
// rewrites it.
func (h *Harness) Golden() {
	h.t.Helper()
	golden.RequireEqual(h.t, h.View())
}

// Status is the last status line the screen asked for, and whether it was an
// error; "" when it asked for none.
func (h *Harness) Status() (text string, isErr bool) {
	for i := len(h.Out) - 1; i >= 0; i-- {
		if m, ok := h.Out[i].(common.StatusMsg); ok {
			return m.Text, m.Err
		}
	}
	return "", false
}

// Pushed is the last screen the screen opened, nil when it opened none.
func (h *Harness) Pushed() common.Screen {
	for i := len(h.Out) - 1; i >= 0; i-- {
		if m, ok := h.Out[i].(common.PushMsg); ok {
			return m.S
		}
	}
	return nil
}

// Popped reports whether the screen closed itself, and the status it left.
func (h *Harness) Popped() (status string, ok bool) {
	for i := len(h.Out) - 1; i >= 0; i-- {
		if m, ok := h.Out[i].(common.PopMsg); ok {
			return m.Status, true
		}
	}
	return "", false
}

// Forget drops what the screen asked of the root so far, so that Status,
// Pushed and Popped see only what comes next.
func (h *Harness) Forget() *Harness {
	h.Out = nil
	return h
}
