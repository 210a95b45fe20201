package common

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Screen is one screen of the UI. Screens are stacked: the release list at the
// bottom, then what was opened from it. Key presses go to the top screen; every
// other message goes to all of them, and each keeps what answers its own requests.
type Screen interface {
	// Init starts the screen's first loads.
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	// View draws the screen's body in exactly its size.
	View() string
	// Title is the screen's part of the breadcrumb.
	Title() string
	// Help returns the bindings for the help line and the overlay.
	Help() HelpKeys
	SetSize(w, h int)
	// Busy reports whether the screen waits on the cluster, for the spinner.
	Busy() bool
	// Capturing reports whether the screen takes typed text, so that letters
	// such as q and ? reach it instead of acting globally.
	Capturing() bool
	// HandlesBack reports whether esc closes something inside the screen rather
	// than the screen itself.
	HandlesBack() bool
}

// Sender is a screen whose own watch delivers messages through the program's
// Send (the resources view's).
type Sender interface{ SetSend(func(tea.Msg)) }

// Closer is a screen with work of its own under way (a read ahead) to stop
// once the screen is closed.
type Closer interface{ Close() }

// HelpKeys is a help.KeyMap built from a screen's bindings and the global ones.
type HelpKeys struct {
	Short []key.Binding
	Full  [][]key.Binding
}

// ShortHelp returns the help line's bindings.
func (h HelpKeys) ShortHelp() []key.Binding { return h.Short }

// FullHelp returns the overlay's columns of bindings.
func (h HelpKeys) FullHelp() [][]key.Binding { return h.Full }
