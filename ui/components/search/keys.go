package search

import "charm.land/bubbles/v2/key"

// KeyMap are the keys of a / search.
type KeyMap struct {
	Start  key.Binding
	Go     key.Binding
	Cancel key.Binding
	Next   key.Binding
	Prev   key.Binding
}

// DefaultKeyMap returns less's search keys: / to type, enter to go, n and N
// between matches, esc to clear.
func DefaultKeyMap() KeyMap {
	b := func(keys, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(help, desc))
	}
	return KeyMap{
		Start:  b("/", "/", "search"),
		Go:     b("enter", "enter", "go to match"),
		Cancel: b("esc", "esc", "clear search"),
		Next:   b("n", "n", "next match"),
		Prev:   b("N", "N", "previous match"),
	}
}

// ShortHelp returns the bindings of the help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Start} }

// FullHelp returns the bindings of the help overlay (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Start, k.Go, k.Cancel, k.Next, k.Prev}}
}
