package search

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Model is a less-like search over a text: / types a text, enter goes to its
// first match at or below the top line, n and N to the next and previous, esc
// clears it. The match is a substring, any case. While a search is set, the
// text shows plain with the matches marked, so that they stand out from the
// syntax colours. The view that shows the text (viewer) marks it (Mark) and
// scrolls to the match gone to (Current).
type Model struct {
	KeyMap KeyMap
	Styles Styles

	input  textinput.Model
	typing bool
	query  string
	lines  []int // lines holding a match, in order
	cur    int   // index in lines of the match gone to
}

// New returns a search that is not under way, with the default keys and styles.
func New() Model {
	in := textinput.New()
	st := in.Styles()
	// A blinking cursor redraws the screen twice a second for nothing.
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Prompt = "/"
	in.Placeholder = "search (any case); enter: go · esc: cancel"
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), input: in}
}

// SetWidth sets the width of the field the text is typed in.
func (m *Model) SetWidth(w int) { m.input.SetWidth(w) }

// Typing reports whether the search's text is being typed: every key is then
// the search's.
func (m Model) Typing() bool { return m.typing }

// Active reports whether a search is being typed or is set.
func (m Model) Active() bool { return m.typing || m.query != "" }

// Query is the text searched for, "" when none is set.
func (m Model) Query() string { return m.query }

// Matches are the numbers (0-based) of the lines holding a match, as Mark last
// found them.
func (m Model) Matches() []int { return m.lines }

// Bindings are the keys to show while searching.
func (m Model) Bindings() []key.Binding {
	if m.typing {
		return []key.Binding{m.KeyMap.Go, m.KeyMap.Cancel}
	}
	if m.query != "" {
		return []key.Binding{m.KeyMap.Next, m.KeyMap.Prev, m.KeyMap.Cancel}
	}
	return []key.Binding{m.KeyMap.Start}
}

// Wants reports whether the search takes msg: any key while its text is typed,
// Start, and its own keys while one is set.
func (m Model) Wants(msg tea.KeyPressMsg) bool {
	k := m.KeyMap
	return m.typing || key.Matches(msg, k.Start) || (m.query != "" && key.Matches(msg, k.Cancel, k.Next, k.Prev))
}

// Update takes the search's keys: the typed text, enter and esc while typing;
// n, N and esc while a search is set.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	var cmd tea.Cmd
	switch {
	case m.typing && key.Matches(k, m.KeyMap.Go):
		m.typing = false
		m.input.Blur()
		m.query = strings.TrimSpace(m.input.Value())
	case m.typing && key.Matches(k, m.KeyMap.Cancel):
		m.typing = false
		m.input.Blur()
	case m.typing:
		m.input, cmd = m.input.Update(k)
	case key.Matches(k, m.KeyMap.Start):
		m.typing = true
		m.input.SetValue("")
		cmd = m.input.Focus()
	case m.query != "" && key.Matches(k, m.KeyMap.Cancel):
		m.query, m.lines = "", nil
	case m.query != "" && key.Matches(k, m.KeyMap.Next):
		m.step(1)
	case m.query != "" && key.Matches(k, m.KeyMap.Prev):
		m.step(-1)
	}
	return m, cmd
}

// Mark returns text with the matches of the search marked (plain, so that they
// stand out), or text itself when no search is set, and remembers the lines
// that hold a match.
func (m *Model) Mark(text string) string {
	if m.query == "" {
		return text
	}
	marked, lines := MarkMatches(ansi.Strip(text), m.query, &m.Styles.Match)
	m.lines = lines
	m.cur = min(m.cur, max(len(lines)-1, 0))
	return marked
}

// GoNear goes to the first match at or below line top, else to the first.
func (m *Model) GoNear(top int) {
	m.cur = 0
	for i, l := range m.lines {
		if l >= top {
			m.cur = i
			break
		}
	}
}

func (m *Model) step(dir int) {
	if len(m.lines) == 0 {
		return
	}
	m.cur = (m.cur + dir + len(m.lines)) % len(m.lines)
}

// Current is the line of the match gone to; ok is false when there is none.
func (m Model) Current() (line int, ok bool) {
	if len(m.lines) == 0 {
		return 0, false
	}
	return m.lines[m.cur], true
}

// Footer is the search's line: the field while typing, else where the search
// stands; "" when there is none.
func (m Model) Footer() string {
	switch {
	case m.typing:
		return m.input.View()
	case m.query == "":
		return ""
	case len(m.lines) == 0:
		return m.Styles.NotFound.Render(fmt.Sprintf("/%s: not found · esc clears", m.query))
	}
	return m.Styles.Found.Render(fmt.Sprintf("/%s: match %d of %d (line %d) · n/N next/previous · esc clears", m.query, m.cur+1, len(m.lines), m.lines[m.cur]+1))
}

// MarkMatches marks every match of q (any case) in plain text, and returns the
// numbers (0-based) of the lines holding one.
func MarkMatches(text, q string, st interface{ Render(...string) string }) (string, []int) {
	lq := strings.ToLower(q)
	lines := strings.Split(text, "\n")
	var found []int
	for i, l := range lines {
		ll, lq := strings.ToLower(l), lq
		if len(ll) != len(l) {
			// Lowering changed the byte length: match the case as typed, so
			// that offsets in ll hold in l.
			ll, lq = l, q
		}
		if !strings.Contains(ll, lq) {
			continue
		}
		found = append(found, i)
		var b strings.Builder
		rest, lrest := l, ll
		for {
			j := strings.Index(lrest, lq)
			if j < 0 || len(lq) == 0 {
				b.WriteString(rest)
				break
			}
			b.WriteString(rest[:j])
			b.WriteString(st.Render(rest[j : j+len(lq)]))
			rest, lrest = rest[j+len(lq):], lrest[j+len(lq):]
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n"), found
}
