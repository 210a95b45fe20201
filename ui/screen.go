package ui

import tea "charm.land/bubbletea/v2"

// screen is one screen of the UI. Screens are stacked: the release list at the
// bottom, then what was opened from it. Key presses go to the top screen; every
// other message goes to all of them, and each keeps what answers its own requests.
type screen interface {
	// init starts the screen's first loads.
	init() tea.Cmd
	update(msg tea.Msg) tea.Cmd
	// view draws the screen's body in exactly its size.
	view() string
	// title is the screen's part of the breadcrumb.
	title() string
	// help returns the bindings for the help line and the overlay.
	help() helpKeys
	setSize(w, h int)
	// busy reports whether the screen waits on the cluster, for the spinner.
	busy() bool
	// capturing reports whether the screen takes typed text, so that letters
	// such as q and ? reach it instead of acting globally.
	capturing() bool
	// handlesBack reports whether esc closes something inside the screen rather
	// than the screen itself.
	handlesBack() bool
}

// sender is a screen whose own watch delivers messages through the program's
// Send (the resources view's).
type sender interface{ setSend(func(tea.Msg)) }

// closer is a screen with work of its own under way (a read ahead) to stop
// once the screen is closed.
type closer interface{ close() }
