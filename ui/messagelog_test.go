package ui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// TestHelpShowsEveryKey: at 80x24 and at 160x45, the help overlay of the list,
// the history and a revision shows every key of the screen, none cut off at the
// right edge: r, V and w on the list, ←/→ on a revision, :ctx and :log in the
// command's help, and /~ in the filter's.
func TestHelpShowsEveryKey(t *testing.T) {
	screens := []struct {
		name string
		keys []string
	}{
		{"list", nil},
		{"history", []string{"enter"}},
		{"revision", []string{"enter", "enter"}},
	}
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		for _, sc := range screens {
			t.Run(sc.name+"/"+table.Itoa(size[0]), func(t *testing.T) {
				f := newFixture(t)
				h := newHarness(t, f.Client, Options{}, size[0], size[1])
				h.press(sc.keys...)
				top := h.top()
				h.press("?")
				screen := h.screen()
				cols := append([][]key.Binding{h.m.Keys.Global.Bindings()}, top.Help().Full...)
				for _, col := range cols {
					for _, b := range col {
						if !b.Enabled() {
							continue
						}
						if hb := b.Help(); !strings.Contains(screen, hb.Desc) {
							t.Errorf("the help lacks %q (%s):\n%s", hb.Desc, hb.Key, screen)
						}
					}
				}
				for _, want := range []string{":ctx", ":log"} {
					if !strings.Contains(screen, want) {
						t.Errorf("the help lacks %s", want)
					}
				}
				if sc.name == "list" && !strings.Contains(screen, "/~ fuzzy") {
					t.Error("the list's help does not say /~ for a fuzzy filter")
				}
				if sc.name == "revision" && !strings.Contains(screen, "→/l") {
					t.Error("the revision's help does not say →")
				}
				for _, line := range strings.Split(screen, "\n") {
					if strings.HasSuffix(line, "…") && strings.HasPrefix(line, "?") {
						t.Errorf("a help line is cut: %q", line)
					}
				}
			})
		}
	}
}

// TestMessageLogKeepsCutLines: a status message wider than the terminal is cut
// on the status line with a pointer to :log, and :log shows it whole (wrapped),
// with the earlier ones; any key closes it.
func TestMessageLogKeepsCutLines(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 80, 24)
	long := "The cfgmap store was skipped: Forbidden: your credentials may not list configmaps in namespace default. Ask for a Role that grants list on configmaps, or pass --driver secret."
	h.send(common.StatusMsg{Text: "first message"})
	h.send(common.StatusMsg{Text: long, Err: true})
	lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
	status := lines[len(lines)-2]
	if !strings.HasSuffix(status, "… (:log)") || len([]rune(status)) > 80 {
		t.Fatalf("the cut status line: %q", status)
	}
	h.press(":").typeText("log").press("enter")
	flat := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(flat, "Messages") || !strings.Contains(flat, "first message") || !strings.Contains(flat, "or pass --driver secret.") {
		t.Fatalf(":log does not show the messages whole:\n%s", h.screen())
	}
	h.press("x")
	h.lacks("Any key closes the messages")
}

// TestCommandPlaceholderWhole: at 80 columns the ":" prompt's placeholder is
// shown whole, not cut to its first letter.
func TestCommandPlaceholderWhole(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 80, 24)
	h.press(":")
	h.contains(":ns NAME · ns all · ctx · ctx NAME · log · q")
}

// TestMessageLogShowsWholeMessages: when the session's messages do not all fit,
// :log shows the newest whole, each with its time, and says how many earlier
// ones it leaves out.
func TestMessageLogShowsWholeMessages(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 80, 24)
	for i := 1; i <= 30; i++ {
		h.send(common.StatusMsg{Text: "message number " + table.Itoa(i) + " of the session"})
	}
	h.press(":").typeText("log").press("enter")
	h.contains("earlier messages not shown", "message number 30 of the session").lacks("message number 1 of")
	var shown int
	lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
	// The overlay's lines: the status line and the help line below are not it.
	for _, line := range lines[:len(lines)-2] {
		if strings.Contains(line, "message number") {
			shown++
			if !strings.HasPrefix(line, "12:00:00  message number") {
				t.Errorf("a message without its time: %q", line)
			}
		}
	}
	h.contains(table.Itoa(30-shown) + " earlier messages not shown")
}
