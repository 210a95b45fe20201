package common

import (
	"charm.land/bubbles/v2/key"

	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/picker"
	"github.com/chunkview/chunkview/ui/components/search"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// The components a screen embeds, with the keys and styles the screens share
// (read-only mode turns some keys off; see KeyMap.DisableActions).

// NewDialog returns a dialog that asks heading and body about an operation on
// namespace ns (see Where); esc leaves it.
func (c Common) NewDialog(heading, ns, body string) dialog.Model {
	m := dialog.New(heading, c.Where(ns), body)
	m.KeyMap, m.Styles = c.Keys.Dialog, c.Styles.Dialog
	m.KeyMap.Back = c.Keys.Global.Back
	return m
}

// NewPicker returns a picker of names (the names known so far), typed after
// prompt; esc leaves it.
func (c Common) NewPicker(heading, noun, prompt string, names []string) picker.Model {
	m := picker.New(heading, noun, prompt, names)
	m.KeyMap, m.Styles = c.Keys.Picker, c.Styles.Picker
	m.KeyMap.Back = c.Keys.Global.Back
	return m
}

// NewTable returns a table cursor moved by the list keys.
func (c Common) NewTable() table.Model {
	m := table.New()
	m.KeyMap, m.Styles = c.Keys.List, c.Styles.Table
	return m
}

// NewViewer returns a text view scrolled by the scroll keys.
func (c Common) NewViewer() viewer.Model {
	m := viewer.New()
	m.KeyMap, m.Styles = c.Keys.Scroll, c.Styles.Viewer
	return m
}

// NewSearch returns a / search for a text view.
func (c Common) NewSearch() search.Model {
	m := search.New()
	m.KeyMap, m.Styles = c.Keys.Search, c.Styles.Search
	return m
}

// NewDiff returns a diff viewer, scrolled by the scroll keys.
func (c Common) NewDiff() diffview.Model {
	m := diffview.New().WithScrollKeys(c.Keys.Scroll)
	m.KeyMap, m.Styles = c.Keys.Changes, c.Styles.Diff
	return m
}

// NewArrowViewer is NewViewer scrolled sideways by the arrows alone: for the
// screens where h and l mean something else (l shows a log).
func (c Common) NewArrowViewer() viewer.Model {
	m := c.NewViewer()
	m.KeyMap.Left = key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "scroll left"))
	m.KeyMap.Right = key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "scroll right"))
	return m
}
