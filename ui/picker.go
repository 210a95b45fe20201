package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"
)

// pickKind is what a listPicker chooses.
type pickKind int

const (
	pickNamespace pickKind = iota
	pickContext
)

// namesLoadedMsg answers a picker's load: the names to choose from.
type namesLoadedMsg struct {
	kind  pickKind
	names []string
	err   error
}

// listPicker chooses one name among those loaded (namespaces, kube contexts): a
// text field that filters them, fixed entries first. A name that could not be
// listed can still be typed in full.
type listPicker struct {
	common
	kind  pickKind
	input textinput.Model
	// heading is the box's title; noun names what is listed ("namespaces").
	heading, noun string
	// first are entries always offered above the names (all namespaces).
	first []string
	// current is marked as the one in use.
	current string
	names   []string
	shown   []string
	cursor  int
	loading bool
	err     error
	load    tea.Cmd
	// chosen is the message a choice sends.
	chosen func(name string) tea.Msg
}

func newListPicker(c common, kind pickKind, prompt string, names []string) *listPicker {
	in := newTextInput()
	in.Prompt = prompt
	in.Placeholder = "type to filter, or a name"
	in.SetWidth(30)
	return &listPicker{common: c, kind: kind, input: in, names: names, loading: true}
}

func (p *listPicker) init() tea.Cmd {
	p.refilter()
	return tea.Batch(p.input.Focus(), p.load)
}

func (p *listPicker) refilter() {
	q := strings.TrimSpace(p.input.Value())
	p.shown = append([]string(nil), p.first...)
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

// update handles the picker's keys and its list. It returns done when the picker
// should close.
func (p *listPicker) update(msg tea.Msg) (cmd tea.Cmd, done bool) {
	switch msg := msg.(type) {
	case namesLoadedMsg:
		if msg.kind != p.kind {
			return nil, false
		}
		p.loading = false
		if msg.err != nil {
			p.err = msg.err
			return nil, false
		}
		p.names = msg.names
		p.refilter()
		if p.input.Value() == "" {
			for i, n := range p.shown {
				if n == p.current {
					p.cursor = i
				}
			}
		}
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

// choose returns the chosen name: the highlighted entry, or the typed name when
// nothing matches it.
func (p *listPicker) choose() tea.Cmd {
	choice := ""
	if p.cursor < len(p.shown) {
		choice = p.shown[p.cursor]
	}
	if choice == "" {
		choice = strings.TrimSpace(p.input.Value())
	}
	if choice == "" {
		return nil
	}
	return func() tea.Msg { return p.chosen(choice) }
}

func (p *listPicker) view() string {
	st := p.styles
	width := min(p.width-4, 50)
	var b strings.Builder
	b.WriteString(p.input.View())
	b.WriteString("\n\n")
	rows := max(min(p.height-10, 10), 3)
	off := scrollWindow(p.cursor, 0, rows, len(p.shown))
	for i := off; i < len(p.shown) && i < off+rows; i++ {
		name := p.shown[i]
		if name == p.current {
			name += st.Dim.Render(" (current)")
		}
		if i == p.cursor {
			b.WriteString(st.Cursor.Render("▶ ") + st.Selected.Render(p.shown[i]))
			if p.shown[i] == p.current {
				b.WriteString(st.Dim.Render(" (current)"))
			}
		} else {
			b.WriteString("  " + name)
		}
		b.WriteByte('\n')
	}
	if len(p.shown) == 0 {
		b.WriteString(st.Dim.Render("  nothing matches; enter uses the name as typed") + "\n")
	}
	switch {
	case p.loading:
		b.WriteString(st.Dim.Render("listing " + p.noun + "…"))
	case p.err != nil:
		b.WriteString(st.Warning.Render(wrap("Cannot list "+p.noun+" ("+errorTitle(p.err)+"); type a name.", width-4)))
	default:
		b.WriteString(st.Dim.Render("enter: switch · esc: cancel"))
	}
	return st.dialogBox(p.heading, b.String(), width)
}
