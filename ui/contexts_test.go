package ui

import (
	"errors"
	"testing"

	"github.com/chunkview/chunkview/kube"
)

// testContexts are three contexts: prod (the fixture's client), staging (another
// cluster, looking at shop) and gone, which cannot be reached.
func testContexts(f *fixture) *kube.Contexts {
	staging := newFixture(f.T()).Client.WithNamespace("shop", false)
	return &kube.Contexts{
		Current: "prod",
		List:    func() ([]string, error) { return []string{"gone", "prod", "staging"}, nil },
		Connect: func(name string) (*kube.Client, error) {
			switch name {
			case "prod":
				return f.Client, nil
			case "staging":
				return staging, nil
			}
			return nil, errors.New(`Get "https://10.9.9.9:6443/version": dial tcp 10.9.9.9:6443: connect: no route to host`)
		},
	}
}

// contextOptions are the options of a view started on context prod.
func contextOptions(f *fixture) Options {
	return Options{ContextName: "prod", Contexts: testContexts(f)}
}

// TestContextSwitch: :ctx picks a context, :ctx NAME switches straight away, the
// header names the context and namespace throughout, and a context that cannot
// be reached leaves the view where it was.
func TestContextSwitch(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, contextOptions(f), 80, 24)
	h.contains("ctx prod · ns default", "web", "worker")

	h.press("down", "down", "enter", ":").typeText("ctx").press("enter")
	if len(h.m.stack) != 1 {
		t.Fatalf(":ctx left %d screens open", len(h.m.stack))
	}
	h.contains("Switch to context", "gone", "staging", "prod (current)")
	h.typeText("stag").press("enter")
	h.contains("ctx staging · ns shop", "Switched to context staging", "api", "cache").lacks("worker")

	h.press(":").typeText("ctx gone").press("enter")
	h.contains("Still on staging: cannot switch to context gone", "ctx staging · ns shop", "api")

	h.press(":").typeText("ctx prod").press("enter")
	h.contains("ctx prod · ns default", "worker")
}

// TestDialogsNameTheCluster: every dialog that changes the cluster says which
// context and namespace it changes.
func TestDialogsNameTheCluster(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"uninstall", []string{"down", "down", "enter", "U"}},
		{"delete revision", []string{"enter", "X"}},
		{"fix stuck", []string{"G", "enter", "F"}},
		{"rollback", []string{"down", "down", "enter", "up", "R"}},
	} {
		h := newHarness(t, f.Client, contextOptions(f), 120, 40)
		h.press(c.keys...).contains("context prod · namespace default")
	}
}
