package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"
)

// allNamespaces is the picker's entry for looking at every namespace.
const allNamespaces = "all namespaces"

// nsChosenMsg switches the release list to a namespace, or to all of them.
type nsChosenMsg struct {
	ns  string
	all bool
}

// nsPicker chooses the namespace the release list looks at: a text field that
// filters the cluster's namespaces, with "all namespaces" first. A namespace
// that cannot be listed can still be typed in full.
type nsPicker struct {
	common
	input   textinput.Model
	names   []string // from the cluster, or from the releases seen
	shown   []string
	cursor  int
	loading bool
	err     error
}

func newNSPicker(c common, seen []string) *nsPicker {
	in := newTextInput()
	in.Prompt = "namespace: "
	in.Placeholder = "type to filter, or a name"
	in.SetWidth(30)
	p := &nsPicker{common: c, input: in, names: seen, loading: true}
	p.refilter()
	return p
}

func (p *nsPicker) init() tea.Cmd {
	return tea.Batch(p.input.Focus(), loadNamespaces(p.ctx, p.client))
}

func (p *nsPicker) refilter() {
	q := strings.TrimSpace(p.input.Value())
	p.shown = []string{allNamespaces}
	if q == "" {
		p.shown = append(p.shown, p.names...)
	} else {
		p.shown = p.shown[:0]
		for _, m := range fuzzy.Find(q, p.names) {
			p.shown = append(p.shown, m.Str)
		}
	}
	p.cursor = min(p.cursor, max(len(p.shown)-1, 0))
}

// update handles the picker's keys and the namespace list. It returns done when
// the picker should close.
func (p *nsPicker) update(msg tea.Msg) (cmd tea.Cmd, done bool) {
	switch msg := msg.(type) {
	case namespacesLoadedMsg:
		p.loading = false
		if msg.err != nil {
			p.err = msg.err
			return nil, false
		}
		p.names = msg.names
		p.refilter()
		return nil, false
	case tea.KeyPressMsg:
		d := p.keys.Dialog
		switch {
		case key.Matches(msg, p.keys.Global.Back):
			return nil, true
		case key.Matches(msg, d.Submit):
			return p.choose(), true
		case msg.String() == "up", msg.String() == "ctrl+p":
			p.cursor = max(p.cursor-1, 0)
			return nil, false
		case msg.String() == "down", msg.String() == "ctrl+n", msg.String() == "tab":
			p.cursor = min(p.cursor+1, max(len(p.shown)-1, 0))
			return nil, false
		}
		var c tea.Cmd
		p.input, c = p.input.Update(msg)
		p.cursor = 0
		p.refilter()
		return c, false
	}
	var c tea.Cmd
	p.input, c = p.input.Update(msg)
	return c, false
}

// choose returns the chosen namespace: the highlighted entry, or the typed name
// when nothing matches it.
func (p *nsPicker) choose() tea.Cmd {
	typed := strings.TrimSpace(p.input.Value())
	choice := ""
	if p.cursor < len(p.shown) {
		choice = p.shown[p.cursor]
	}
	if choice == "" {
		choice = typed
	}
	if choice == "" {
		return nil
	}
	msg := nsChosenMsg{ns: choice}
	if choice == allNamespaces {
		msg = nsChosenMsg{all: true}
	}
	return func() tea.Msg { return msg }
}

func (p *nsPicker) view() string {
	st := p.styles
	width := min(p.width-4, 50)
	var b strings.Builder
	b.WriteString(p.input.View())
	b.WriteString("\n\n")
	rows := max(min(p.height-10, 10), 3)
	off := scrollWindow(p.cursor, 0, rows, len(p.shown))
	for i := off; i < len(p.shown) && i < off+rows; i++ {
		if i == p.cursor {
			b.WriteString(st.Cursor.Render("▶ ") + st.Selected.Render(p.shown[i]))
		} else {
			b.WriteString("  " + p.shown[i])
		}
		b.WriteByte('\n')
	}
	if len(p.shown) == 0 {
		b.WriteString(st.Dim.Render("  no namespace matches; enter uses the name as typed") + "\n")
	}
	switch {
	case p.loading:
		b.WriteString(st.Dim.Render("listing namespaces…"))
	case p.err != nil:
		b.WriteString(st.Warning.Render(wrap("Cannot list namespaces ("+errorTitle(p.err)+"); type a name.", width-4)))
	default:
		b.WriteString(st.Dim.Render("enter: switch · esc: cancel"))
	}
	return st.dialogBox("Look at releases in", b.String(), width)
}
