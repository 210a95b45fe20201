package viewer

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
)

// KeyMap scrolls a text view.
type KeyMap struct {
	Up           key.Binding
	Down         key.Binding
	PageUp       key.Binding
	PageDown     key.Binding
	HalfPageUp   key.Binding
	HalfPageDown key.Binding
	Left         key.Binding
	Right        key.Binding
	Top          key.Binding
	Bottom       key.Binding
}

// DefaultKeyMap returns less's scroll keys, without the letters a viewport
// binds by default (d, u, f, b), which the screens use.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:           b("↑/k", "scroll up", "up", "k"),
		Down:         b("↓/j", "scroll down", "down", "j"),
		PageUp:       b("pgup", "page up", "pgup", "ctrl+b"),
		PageDown:     b("pgdn/space", "page down", "pgdown", "ctrl+f", "space"),
		HalfPageUp:   b("ctrl+u", "½ page up", "ctrl+u"),
		HalfPageDown: b("ctrl+d", "½ page down", "ctrl+d"),
		Left:         b("←/h", "scroll left", "left", "h"),
		Right:        b("→/l", "scroll right", "right", "l"),
		Top:          b("g/home", "top", "home", "g"),
		Bottom:       b("G/end", "bottom", "end", "G"),
	}
}

// Bindings lists the bindings, for the help.
func (k KeyMap) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfPageUp, k.HalfPageDown, k.Left, k.Right, k.Top, k.Bottom}
}

// ShortHelp returns the bindings of the help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.PageDown} }

// FullHelp returns the bindings of the help overlay (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.Bindings()} }

// viewportKeys maps the keys onto a viewport's key map; Top and Bottom the
// viewer takes itself.
func (k KeyMap) viewportKeys() viewport.KeyMap {
	return viewport.KeyMap{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown,
		HalfPageUp: k.HalfPageUp, HalfPageDown: k.HalfPageDown, Left: k.Left, Right: k.Right,
	}
}
