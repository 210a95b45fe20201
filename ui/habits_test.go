package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/common"
)

// habitSizes are the sizes the habits of issue 13 are checked at: the smallest
// that still shows a table, the classic terminal, and a wide one.
var habitSizes = []struct{ w, h int }{{60, 15}, {80, 24}, {160, 45}}

// habitCases are the views issue 13 changed, for golden files at habitSizes.
var habitCases = []goldenCase{
	{name: "releases"},
	{name: "releases_read_only", client: readOnlyClient, steps: keys("G")},
	{name: "history_read_only", client: readOnlyClient, steps: keys("G", "enter")},
	{name: "history_stuck", steps: keys("G", "enter")},
	{name: "history_first_revision", steps: keys("down", "down", "enter", "home")},
	{name: "rollback_leaves_pending", steps: keys("G", "enter", "home", "R")},
	{name: "help", steps: keys("down", "down", "enter", "?")},
	{name: "dialog_fix_stuck", steps: keys("G", "enter", "F")},
	{name: "dialog_fix_stuck_second", steps: keys("G", "enter", "F", "down")},
	{name: "dialog_uninstall", steps: func(h *harness) { h.press("down", "down", "enter", "U").typeText("we") }},
	{name: "diff_last_change", steps: keys("down", "down", "enter", "d", "n", "n", "n", "n", "n", "n", "n", "n", "n")},
	{name: "revision_summary", steps: keys("down", "down", "enter", "enter")},
	{name: "filter_typing", steps: func(h *harness) { h.press("/").typeText("e") }},
}

// TestGoldenHabits compares the views of issue 13 at 60x15, 80x24 and 160x45.
// go test ./ui -run TestGoldenHabits -update rewrites them.
func TestGoldenHabits(t *testing.T) {
	for _, c := range habitCases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range habitSizes {
				t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
					f := newFixture(t)
					client := f.Client
					if c.client != nil {
						client = c.client(f)
					}
					h := newHarness(t, client, c.opts, sz.w, sz.h)
					if c.steps != nil {
						c.steps(h)
					}
					h.golden()
				})
			}
		})
	}
}

// TestWayOutAlwaysShown: at every size, on every screen, the footer keeps
// "? help" and "q quit" (and "esc back" below the list); while text is typed,
// where q is a letter, it offers ctrl+c instead. No line is wider than the
// terminal, and a cut line ends in "…".
func TestWayOutAlwaysShown(t *testing.T) {
	screens := []struct {
		name   string
		keys   []string
		typed  string
		nested bool
	}{
		{"releases", nil, "", false},
		{"history", []string{"down", "down", "enter"}, "", true},
		{"revision", []string{"down", "down", "enter", "enter", "3"}, "", true},
		{"chunks", []string{"c"}, "", true},
		{"diff", []string{"down", "down", "enter", "d"}, "", true},
		{"rollback", []string{"down", "down", "enter", "up", "R"}, "", true},
		{"filter", []string{"/"}, "x", false},
		{"uninstall dialog", []string{"down", "down", "enter", "U"}, "w", true},
	}
	for _, sc := range screens {
		for _, sz := range habitSizes {
			f := newFixture(t)
			h := newHarness(t, f.Client, Options{}, sz.w, sz.h)
			h.press(sc.keys...)
			if sc.typed != "" {
				h.typeText(sc.typed)
			}
			lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
			foot := lines[len(lines)-1]
			typing := sc.typed != ""
			switch {
			case typing && (strings.Contains(foot, "q quit") || !strings.Contains(foot, "ctrl+c quit")):
				t.Errorf("%s at %dx%d, typing: footer %q", sc.name, sz.w, sz.h, foot)
			case !typing && (!strings.Contains(foot, "? help") || !strings.Contains(foot, "q quit")):
				t.Errorf("%s at %dx%d: footer %q lacks ? help or q quit", sc.name, sz.w, sz.h, foot)
			case !typing && sc.nested && !strings.Contains(foot, "esc back"):
				t.Errorf("%s at %dx%d: footer %q lacks esc back", sc.name, sz.w, sz.h, foot)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz.w {
					t.Errorf("%s at %dx%d: line %d is %d wide", sc.name, sz.w, sz.h, i, w)
				}
			}
		}
	}
}

// TestSmallHelpOverlayKeepsWayOut: the ? overlay at 60x15 lists help, back and
// quit first, so they survive the cut.
func TestSmallHelpOverlayKeepsWayOut(t *testing.T) {
	f := newFixture(t)
	for _, k := range [][]string{{"?"}, {"down", "down", "enter", "?"}, {"down", "down", "enter", "d", "?"}} {
		h := newHarness(t, f.Client, Options{}, 60, 15)
		h.press(k...).contains("?   help", "esc back", "q   quit")
	}
}

// TestBreadcrumbKeepsTheScreen: when the header is short of room, the
// breadcrumb gives up its first parts, never the release or screen shown.
func TestBreadcrumbKeepsTheScreen(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{Demo: true}, 60, 15)
	h.press("n", "enter", "down", "down", "enter", "enter")
	head := strings.Split(h.screen(), "\n")[0]
	if !strings.Contains(head, "› revision") || !strings.Contains(head, "…") {
		t.Errorf("header %q", head)
	}
	h.press("esc")
	if head := strings.Split(h.screen(), "\n")[0]; !strings.Contains(head, "web") && !strings.Contains(head, "old-tool") {
		t.Errorf("header without the release: %q", head)
	}
}

// TestReadOnlyOffersNoActions: in read-only mode no hint, help line or overlay
// offers R, X, U or F.
func TestReadOnlyOffersNoActions(t *testing.T) {
	f := newFixture(t)
	for _, k := range [][]string{
		{"G"}, {"G", "enter"}, {"G", "enter", "?"}, {"enter"}, {"enter", "?"}, {"down", "down", "enter"}, {"down", "down", "enter", "up"},
		{"enter", "enter"},
	} {
		for _, sz := range habitSizes {
			h := newHarness(t, readOnlyClient(f), Options{}, sz.w, sz.h)
			h.press(k...).lacks("F to fix", "F: ", "R: ", "X: ", "press R", "R on", "X deletes", "roll back here", "delete revision", "fix stuck")
		}
	}
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		line string
		want cmdResult
	}{
		{"q", cmdResult{quit: true}},
		{" quit ", cmdResult{quit: true}},
		{"ns shop", cmdResult{ns: &common.NamespaceChosenMsg{Ns: "shop"}}},
		{"ns all", cmdResult{ns: &common.NamespaceChosenMsg{All: true}}},
		{"ctx", cmdResult{pickCtx: true}},
		{"ctx prod", cmdResult{ctx: &common.ContextChosenMsg{Name: "prod"}}},
		{"", cmdResult{}},
	}
	for _, c := range cases {
		got := parseCommand(c.line)
		if got.quit != c.want.quit || fmt.Sprint(got.ns) != fmt.Sprint(c.want.ns) || fmt.Sprint(got.ctx) != fmt.Sprint(c.want.ctx) || got.pickCtx != c.want.pickCtx || got.err {
			t.Errorf("%q: %+v, want %+v", c.line, got, c.want)
		}
	}
	for _, line := range []string{"ns", "ns a b", "ctx a b", "frobnicate"} {
		if got := parseCommand(line); !got.err || got.status == "" || got.quit || got.ns != nil {
			t.Errorf("%q: %+v, want an error line", line, got)
		}
	}
}

// TestCommandMode: ":" opens k9s's command line on any screen; :ns switches the
// release list and goes back to it, :ctx without contexts to switch to says so,
// :q quits.
func TestCommandMode(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 80, 24)
	h.press("down", "down", "enter", ":").typeText("ns shop")
	h.contains(":ns shop", "enter run", "esc cancel").lacks("q quit")
	h.press("enter").contains("Releases in shop", "api", "cache").lacks("legacy")
	if len(h.m.stack) != 1 {
		t.Fatalf("%d screens after :ns", len(h.m.stack))
	}
	// A typo is said so, and the view stays where it was.
	h.press("enter", ":").typeText("ns nope").press("enter").contains(`Namespace "nope" does not exist; n picks one.`, "Releases in shop › api")
	h.press(":").typeText("ctx").press("enter").contains("cannot switch contexts")
	h.press(":").typeText("q").press("esc")
	if h.quit {
		t.Fatal("esc ran the command")
	}
	h.press("/").typeText(":q")
	if h.quit {
		t.Fatal(": typed into the filter opened the command line")
	}
	h.press("esc", ":").typeText("q").press("enter")
	if !h.quit {
		t.Fatal(":q did not quit")
	}
}

// TestForceQuitAsksInATypedDialog: ctrl+c in a dialog holding typed text asks
// first; a second ctrl+c quits, any other key goes on with the text kept.
func TestForceQuitAsksInATypedDialog(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 80, 24)
	h.press("down", "down", "enter", "U").typeText("we").press("ctrl+c")
	if h.quit {
		t.Fatal("ctrl+c quit at once with typed text in the dialog")
	}
	h.contains("Press ctrl+c again to quit")
	h.typeText("b").contains("> web").lacks("Press ctrl+c again")
	h.press("ctrl+c")
	if h.quit {
		t.Fatal("the first ctrl+c after going on quit")
	}
	h.press("ctrl+c")
	if !h.quit {
		t.Fatal("a second ctrl+c did not quit")
	}
	// Nothing typed: ctrl+c quits at once.
	h = newHarness(t, f.Client, Options{}, 80, 24)
	h.press("down", "down", "enter", "U", "ctrl+c")
	if !h.quit {
		t.Fatal("ctrl+c in an empty dialog did not quit")
	}
}

// TestNoDeadKeysListed: d is not offered on the first revision until another is
// marked, and a plain diff's help has no y.
func TestNoDeadKeysListed(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 160, 45)
	h.press("down", "down", "enter", "home").lacks("d diff", "d: diff").contains("Revision 1, 2026-")
	h.press("space", "down").contains("d diff", "d: diff with the marked one")
	h = newHarness(t, f.Client, Options{}, 160, 45)
	h.press("down", "down", "enter", "d", "?").contains("next change").lacks("y   roll back", "y roll back")
	h = newHarness(t, f.Client, Options{}, 160, 45)
	h.press("down", "down", "enter", "home", "enter", "?").contains("reveal/mask").lacks("diff with previous")
}
