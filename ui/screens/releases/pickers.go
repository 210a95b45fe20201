package releases

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/picker"
)

// namesMsg answers loadNamespaces and loadContexts: the names to choose from.
type namesMsg struct {
	kind  pickKind
	names []string
	err   error
}

// loadNamespaces lists the cluster's namespaces for the picker. A user who may
// not list namespaces can still type one.
func loadNamespaces(ctx context.Context, c client) tea.Cmd {
	return func() tea.Msg {
		names, err := c.Namespaces(ctx)
		return namesMsg{kind: pickNamespace, names: names, err: err}
	}
}

// loadContexts lists the contexts to pick from: reading a kubeconfig is I/O.
func loadContexts(cs *kube.Contexts) tea.Cmd {
	return func() tea.Msg {
		names, err := cs.List()
		return namesMsg{kind: pickContext, names: names, err: err}
	}
}

// namespacePicker chooses the namespace the list looks at among the cluster's
// namespaces (seen until they are listed), "all namespaces" first.
func (s *Screen) namespacePicker(seen []string) picker.Model {
	p := s.NewPicker("Look at releases in", "namespaces", "namespace: ", seen).WithFirst(common.AllNamespaces)
	p.OnChoose = func(name string) tea.Cmd {
		msg := common.NamespaceChosenMsg{Ns: name}
		if name == common.AllNamespaces {
			msg = common.NamespaceChosenMsg{All: true}
		}
		return func() tea.Msg { return msg }
	}
	return p
}

// contextPicker chooses the kube context to switch to.
func (s *Screen) contextPicker() picker.Model {
	p := s.NewPicker("Switch to context", "contexts", "context: ", nil).WithCurrent(s.KubeContext)
	p.OnChoose = func(name string) tea.Cmd {
		return func() tea.Msg { return common.ContextChosenMsg{Name: name} }
	}
	return p
}

// openPicker opens p over the list and reads its names with load.
func (s *Screen) openPicker(kind pickKind, p picker.Model, load tea.Cmd) tea.Cmd {
	p.SetSize(s.Width, s.Height)
	s.picker, s.pickKind = &p, kind
	return tea.Batch(s.picker.Init(), load)
}

// takeNames hands the open picker the names read for it.
func (s *Screen) takeNames(msg namesMsg) {
	if s.picker == nil || msg.kind != s.pickKind {
		return
	}
	if msg.err != nil {
		s.picker.Fail(common.ErrorTitle(msg.err))
		return
	}
	s.picker.SetNames(msg.names)
}

// updatePicker gives msg to the open picker, and closes it once done with.
func (s *Screen) updatePicker(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*s.picker, cmd = s.picker.Update(msg)
	if s.picker.Closed() {
		s.picker = nil
	}
	return cmd
}
