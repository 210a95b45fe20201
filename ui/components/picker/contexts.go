package picker

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// ContextChosenMsg asks to switch to kube context name (:ctx NAME, or the picker).
type ContextChosenMsg struct{ Name string }

// Contexts chooses the kube context to switch to among cs's.
func Contexts(c common.Common) *Picker {
	p := New(c, pickContext, "context: ", nil)
	p.heading, p.noun, p.current = "Switch to context", "contexts", c.KubeContext
	p.load = loadContexts(c.Contexts)
	p.chosen = func(name string) tea.Msg { return ContextChosenMsg{Name: name} }
	return p
}

// loadContexts lists the contexts to pick from: reading a kubeconfig is I/O.
func loadContexts(cs *kube.Contexts) tea.Cmd {
	return func() tea.Msg {
		names, err := cs.List()
		return namesLoadedMsg{kind: pickContext, names: names, err: err}
	}
}
