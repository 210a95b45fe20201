package ui

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
)

// harness drives the root model the way the Bubble Tea runtime does, but
// synchronously: it runs the commands each update returns and feeds their
// messages back until nothing is left to do. Spinner and watch ticks are
// dropped, so a test never waits on a timer.
type harness struct {
	t    testing.TB
	m    *model
	msgs chan tea.Msg
	// async holds the messages sent from outside a command (the live view's).
	async chan tea.Msg
	busy  int
	quit  bool
	trace []string
}

func newHarness(t testing.TB, client *kube.Client, opts Options, w, h int) *harness {
	t.Helper()
	hs := startHarness(t, client, opts, w, h)
	hs.settle()
	return hs
}

// startHarness is newHarness without the wait: the first commands are under
// way when it returns.
func startHarness(t testing.TB, client *kube.Client, opts Options, w, h int) *harness {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	hs := &harness{t: t, msgs: make(chan tea.Msg, 256), async: make(chan tea.Msg, 1024)}
	hs.m = newModel(newCommon(context.Background(), client, opts), opts)
	// The live view's events after its first arrive on their own; a test
	// takes them with waitLive.
	hs.m.send = func(msg tea.Msg) { hs.async <- msg }
	hs.m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.busy++
	go func() { h.msgs <- cmd() }()
}

// settle processes messages until every command has answered.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for h.busy > 0 {
		select {
		case msg := <-h.msgs:
			h.busy--
			h.feed(msg, true)
		case <-deadline:
			h.t.Fatalf("commands did not settle; messages so far: %v\nscreen:\n%s", h.trace, h.screen())
		}
	}
}

// feed updates the model with msg. Timer ticks that commands produce are
// dropped; a test sends one itself when it wants one.
func (h *harness) feed(msg tea.Msg, fromCmd bool) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
		return
	case spinner.TickMsg, rowcheck.RecheckMsg:
		if fromCmd {
			return
		}
	case tea.QuitMsg:
		h.quit = true
		return
	}
	h.trace = append(h.trace, reflect.TypeOf(msg).String())
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// waitLive takes the live view's messages as they come, settling after each,
// until done reports true.
func (h *harness) waitLive(what string, done func() bool) *harness {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for !done() {
		select {
		case msg := <-h.async:
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("%s: not within 20s; screen:\n%s", what, h.screen())
		}
	}
	return h
}

// send delivers a message and settles.
func (h *harness) send(msg tea.Msg) *harness {
	h.t.Helper()
	h.feed(msg, false)
	h.settle()
	return h
}

// press sends key presses, named as bubbletea names them ("enter", "esc", "up",
// "shift+tab", "space") or as single characters; each settles.
func (h *harness) press(keys ...string) *harness {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
	return h
}

// selectRow puts the cursor of the screen shown on its row i (from the top,
// with the list keys).
func (h *harness) selectRow(i int) *harness {
	h.t.Helper()
	h.press("home")
	for range i {
		h.press("down")
	}
	return h
}

// typeText types s one character at a time.
func (h *harness) typeText(s string) *harness {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return h
}

func keyMsg(k string) tea.KeyPressMsg {
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
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is what the terminal shows, without colour and trailing spaces.
func (h *harness) screen() string { return plainScreen(h.m.render()) }

var trailingSpace = regexp.MustCompile(`[ \t]+\n`)

// plainScreen strips colour and trailing spaces, so golden files do not depend
// on the terminal's colour profile.
func plainScreen(s string) string {
	s = ansi.Strip(s)
	s = trailingSpace.ReplaceAllString(s+"\n", "\n")
	return strings.TrimRight(s, "\n") + "\n"
}

// contains fails the test unless the screen shows every one of want.
func (h *harness) contains(want ...string) *harness {
	h.t.Helper()
	scr := h.screen()
	for _, w := range want {
		if !strings.Contains(scr, w) {
			h.t.Fatalf("screen does not show %q:\n%s", w, scr)
		}
	}
	return h
}

func (h *harness) lacks(unwanted ...string) *harness {
	h.t.Helper()
	scr := h.screen()
	for _, w := range unwanted {
		if strings.Contains(scr, w) {
			h.t.Fatalf("screen shows %q:\n%s", w, scr)
		}
	}
	return h
}

// golden compares the screen with testdata/<test name>.golden; go test -update
// rewrites it.
func (h *harness) golden() {
	h.t.Helper()
	golden.RequireEqual(h.t, h.screen())
}

// resize sends a new terminal size.
func (h *harness) resize(w, hgt int) *harness {
	return h.send(tea.WindowSizeMsg{Width: w, Height: hgt})
}

func (h *harness) top() common.Screen { return h.m.top() }
