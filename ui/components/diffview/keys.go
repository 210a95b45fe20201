package diffview

import "charm.land/bubbles/v2/key"

// KeyMap moves between a diff's changes; the viewer's keys scroll it.
type KeyMap struct {
	NextChange key.Binding
	PrevChange key.Binding
}

// DefaultKeyMap returns n/] and N/[, as in less and vim's diff mode.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		NextChange: key.NewBinding(key.WithKeys("n", "]"), key.WithHelp("n/]", "next change")),
		PrevChange: key.NewBinding(key.WithKeys("N", "["), key.WithHelp("N/[", "previous change")),
	}
}

// ShortHelp returns the bindings of the help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.NextChange, k.PrevChange} }

// FullHelp returns the bindings of the help overlay (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
