package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/chunkview/chunkview/kube"
)

// ctxChosenMsg asks to switch to kube context name (:ctx NAME, or the picker).
type ctxChosenMsg struct{ name string }

// newCtxPicker chooses the kube context to switch to among cs's.
func newCtxPicker(c common) *listPicker {
	p := newListPicker(c, pickContext, "context: ", nil)
	p.heading, p.noun, p.current = "Switch to context", "contexts", c.kubeContext
	p.load = loadContexts(c.contexts)
	p.chosen = func(name string) tea.Msg { return ctxChosenMsg{name: name} }
	return p
}

// loadContexts lists the contexts to pick from: reading a kubeconfig is I/O.
func loadContexts(cs *kube.Contexts) tea.Cmd {
	return func() tea.Msg {
		names, err := cs.List()
		return namesLoadedMsg{kind: pickContext, names: names, err: err}
	}
}
