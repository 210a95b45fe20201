package dialog

import "charm.land/bubbles/v2/key"

// KeyMap are the keys of a confirmation dialog.
type KeyMap struct {
	Confirm key.Binding
	Cancel  key.Binding
	Up      key.Binding
	Down    key.Binding
	Submit  key.Binding
	Close   key.Binding
	// Back leaves the dialog while it asks or plans, typed text or not.
	Back key.Binding
}

// DefaultKeyMap returns y to confirm, esc or n to cancel, the arrows between
// the choices and enter to submit a typed name or close the outcome.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Confirm: b("y", "yes", "y"),
		Cancel:  b("esc/n", "cancel", "esc", "n"),
		Up:      b("↑/k", "up", "up", "k"),
		Down:    b("↓/j", "down", "down", "j"),
		Submit:  b("enter", "confirm", "enter"),
		Close:   b("enter", "close", "enter", "esc"),
		Back:    b("esc", "back", "esc"),
	}
}

// ShortHelp returns the bindings of the help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Confirm, k.Cancel} }

// FullHelp returns the bindings of the help overlay (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Confirm, k.Cancel, k.Up, k.Down, k.Submit, k.Close}}
}
