package picker

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/table"
)

// Model chooses one name among those it is given (namespaces, kube contexts):
// a text field that filters them, fixed entries first. Until the names come
// (SetNames) it offers those it started with; a name that could not be listed
// can still be typed in full.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	// OnChoose is what choosing name does.
	OnChoose func(name string) tea.Cmd

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
	// failure says why the names could not be listed.
	failure string
	closed  bool

	width, height int
}

// New picks one of names (until SetNames hands the listed ones), typed after
// prompt, under heading; noun names what is listed.
func New(heading, noun, prompt string, names []string) Model {
	in := textinput.New()
	st := in.Styles()
	// A blinking cursor redraws the screen twice a second for nothing.
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Prompt = prompt
	in.Placeholder = "type to filter, or a name"
	in.SetWidth(30)
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), input: in, heading: heading, noun: noun, names: names, loading: true}
}

// WithFirst returns the picker offering entries above the names, always.
func (p Model) WithFirst(entries ...string) Model {
	p.first = entries
	return p
}

// WithCurrent returns the picker marking name as the one in use.
func (p Model) WithCurrent(name string) Model {
	p.current = name
	return p
}

// SetSize sets the area the picker is drawn over.
func (p *Model) SetSize(w, h int) { p.width, p.height = w, h }

// Closed reports that the picker is done with: a name chosen, or cancelled.
func (p Model) Closed() bool { return p.closed }

// Init focuses the filter.
func (p *Model) Init() tea.Cmd {
	p.refilter()
	return p.input.Focus()
}

// SetNames hands the picker the names listed, the cursor on the one in use
// while nothing is typed.
func (p *Model) SetNames(names []string) {
	p.loading = false
	p.names = names
	p.refilter()
	if p.input.Value() == "" {
		for i, n := range p.shown {
			if n == p.current {
				p.cursor = i
			}
		}
	}
}

// Fail says that the names could not be listed, in a few words (what): a name
// can still be typed.
func (p *Model) Fail(what string) { p.loading, p.failure = false, what }

func (p *Model) refilter() {
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

// Update takes the picker's keys and the filter's text; see Closed.
func (p Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		var c tea.Cmd
		p.input, c = p.input.Update(msg)
		return p, c
	}
	switch {
	case key.Matches(k, p.KeyMap.Back):
		p.closed = true
		return p, nil
	case key.Matches(k, p.KeyMap.Submit):
		p.closed = true
		return p, p.choose()
	case key.Matches(k, p.KeyMap.Up):
		p.cursor = max(p.cursor-1, 0)
		return p, nil
	case key.Matches(k, p.KeyMap.Down):
		p.cursor = min(p.cursor+1, max(len(p.shown)-1, 0))
		return p, nil
	}
	var c tea.Cmd
	p.input, c = p.input.Update(k)
	p.cursor = 0
	p.refilter()
	return p, c
}

// choose returns what choosing does: the highlighted entry, or the typed name
// when nothing matches it.
func (p Model) choose() tea.Cmd {
	choice := ""
	if p.cursor < len(p.shown) {
		choice = p.shown[p.cursor]
	}
	if choice == "" {
		choice = strings.TrimSpace(p.input.Value())
	}
	if choice == "" || p.OnChoose == nil {
		return nil
	}
	return p.OnChoose(choice)
}

// View draws it in exactly its size.
func (p Model) View() string {
	st := &p.Styles
	width := min(p.width-4, 50)
	var b strings.Builder
	b.WriteString(p.input.View())
	b.WriteString("\n\n")
	rows := max(min(p.height-10, 10), 3)
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
	case p.failure != "":
		b.WriteString(st.Warning.Render(table.Wrap("Cannot list "+p.noun+" ("+p.failure+"); type a name.", width-4)))
	default:
		b.WriteString(st.Dim.Render("enter: switch · esc: cancel"))
	}
	return dialog.Box(st.Box, st.Title, p.heading, b.String(), width)
}
