package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestReleasesFilter(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	// A substring of the name, any case; a fuzzy match needs ~.
	h.press("/").typeText("wrk").lacks("worker")
	h.press("enter").contains("filter: wrk (0 of 4; esc clears)")
	h.press("esc")
	h.press("/").typeText("~wrk")
	h.contains("worker").lacks("legacy", "old-tool")
	h.press("esc")
	h.press("/").typeText("ORK")
	h.contains("worker").lacks("legacy", "old-tool")
	h.press("enter").contains("filter: ORK (1 of 4; esc clears)")
	// q is a letter while typing, not quit, and the footer does not offer it.
	h.press("/").typeText("q")
	if h.quit {
		t.Fatal("q typed into the filter quit the program")
	}
	h.lacks("q quit").contains("ctrl+c quit")
	h.press("esc").contains("legacy", "web", "worker", "4 releases")
}

// TestEverySizeFits checks, for every screen, that the view fills the terminal
// exactly: no line wider than it, no more lines than it has.
func TestEverySizeFits(t *testing.T) {
	f := newFixture(t)
	screens := map[string][]string{
		"releases": nil,
		"history":  {"down", "down", "enter"},
		"revision": {"down", "down", "enter", "enter", "3"},
		"chunks":   {"c"},
		"diff":     {"down", "down", "enter", "d"},
		"rollback": {"down", "down", "enter", "up", "R"},
		"dialog":   {"G", "enter", "F"},
		"help":     {"?"},
	}
	for name, keys := range screens {
		h := newHarness(t, f.Client, Options{}, 120, 40)
		h.press(keys...)
		for _, sz := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {200, 60}, {60, 12}, {50, 10}} {
			h.resize(sz[0], sz[1])
			out := h.m.render()
			lines := strings.Split(out, "\n")
			if len(lines) > sz[1] {
				t.Errorf("%s at %dx%d: %d lines", name, sz[0], sz[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%s at %dx%d: line %d is %d wide: %q", name, sz[0], sz[1], i, w, ansi.Strip(l))
				}
			}
		}
		h.resize(50, 10).contains("needs a terminal of at least 60x12")
	}
}

func TestRunQuitsAndRestoresLog(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	log.SetOutput(&logs)
	defer log.SetOutput(nil)
	out := &syncBuffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), f.Client, Options{
			Input: pr, Output: out, Now: func() time.Time { return testNow },
			ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(80, 24)},
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(ansi.Strip(out.String()), "legacy") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, _ = pw.Write([]byte("q"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after q")
	}
	if log.Writer() != &logs {
		t.Fatal("Run did not put the standard logger back")
	}
	if !strings.Contains(ansi.Strip(out.String()), "legacy") {
		t.Fatalf("Run did not draw the release list: %q", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe to read while the program writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunStopsWithContext(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f.Client, Options{Input: pr, Output: &bytes.Buffer{}}) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop when its context was cancelled")
	}
}

// TestHelpClosesOnQ: as in less and k9s, q and esc close the help; they do not
// quit chunkview from it.
func TestHelpClosesOnQ(t *testing.T) {
	f := newFixture(t)
	for _, k := range []string{"q", "esc"} {
		h := newHarness(t, f.Client, Options{}, 80, 24)
		h.press("?").contains("Keys: ", "q, esc or any other key closes this help")
		h.press(k).lacks("Keys: ")
		if h.quit {
			t.Fatalf("%s in the help quit chunkview", k)
		}
		h.press("q")
		if !h.quit {
			t.Fatalf("q after the help closed did not quit")
		}
	}
}
