package ui

import tea "charm.land/bubbletea/v2"

// allNamespaces is the picker's entry for looking at every namespace.
const allNamespaces = "all namespaces"

// nsChosenMsg switches the release list to a namespace, or to all of them.
type nsChosenMsg struct {
	ns  string
	all bool
}

// newNSPicker chooses the namespace the release list looks at among the
// cluster's namespaces (seen until they are listed), "all namespaces" first.
func newNSPicker(c common, seen []string) *listPicker {
	p := newListPicker(c, pickNamespace, "namespace: ", seen)
	p.heading, p.noun, p.first = "Look at releases in", "namespaces", []string{allNamespaces}
	p.load = loadNamespaces(c.ctx, c.client)
	p.chosen = func(name string) tea.Msg {
		if name == allNamespaces {
			return nsChosenMsg{all: true}
		}
		return nsChosenMsg{ns: name}
	}
	return p
}
