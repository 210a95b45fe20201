package picker

import "charm.land/bubbles/v2/key"

// KeyMap are the keys of a picker. Letters are the filter's, so only the arrows
// and control keys move.
type KeyMap struct {
	Up     key.Binding
	Down   key.Binding
	Submit key.Binding
	Back   key.Binding
}

// DefaultKeyMap returns the arrows (and ctrl+p, ctrl+n, tab, as in shells), enter
// to choose and esc to cancel.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "ctrl+n", "tab"), key.WithHelp("↓/tab", "down")),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp returns the bindings of the help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Submit, k.Back} }

// FullHelp returns the bindings of the help overlay (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
