package picker

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// pickKind is what a Picker chooses.
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

// Picker chooses one name among those loaded (namespaces, kube contexts): a
// text field that filters them, fixed entries first. A name that could not be
// listed can still be typed in full.
type Picker struct {
	common.Common
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

// New picks one of names (or, with no names, those its load reads), typed after prompt.
func New(c common.Common, kind pickKind, prompt string, names []string) *Picker {
	in := common.NewTextInput()
	in.Prompt = prompt
	in.Placeholder = "type to filter, or a name"
	in.SetWidth(30)
	return &Picker{Common: c, kind: kind, input: in, names: names, loading: true}
}

// Init starts the first loads.
func (p *Picker) Init() tea.Cmd {
	p.refilter()
	return tea.Batch(p.input.Focus(), p.load)
}

func (p *Picker) refilter() {
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

// Update handles the picker's keys and its list. It returns done when the picker
// should close.
func (p *Picker) Update(msg tea.Msg) (cmd tea.Cmd, done bool) {
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
		d := p.Keys.Dialog
		switch {
		case key.Matches(msg, p.Keys.Global.Back):
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
func (p *Picker) choose() tea.Cmd {
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

// View draws it in exactly its size.
func (p *Picker) View() string {
	st := p.Styles
	width := min(p.Width-4, 50)
	var b strings.Builder
	b.WriteString(p.input.View())
	b.WriteString("\n\n")
	rows := max(min(p.Height-10, 10), 3)
	off := table.ScrollWindow(p.cursor, 0, rows, len(p.shown))
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
		b.WriteString(st.Warning.Render(table.Wrap("Cannot list "+p.noun+" ("+common.ErrorTitle(p.err)+"); type a name.", width-4)))
	default:
		b.WriteString(st.Dim.Render("enter: switch · esc: cancel"))
	}
	return st.DialogBox(p.heading, b.String(), width)
}
