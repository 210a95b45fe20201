package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// textSearch is a less-like search over a text view: / types a text, enter
// jumps to its first match at or below the top line, n and N to the next and
// previous, esc clears it. The match is a substring, any case. While a search is
// set, the text shows plain with the matches marked, so that they stand out from
// the syntax colours.
type textSearch struct {
	styles *Styles
	keys   SearchKeyMap
	input  textinput.Model
	typing bool
	query  string
	lines  []int // lines holding a match, in order
	cur    int   // index in lines of the match gone to
}

func newTextSearch(st *Styles, k SearchKeyMap) textSearch {
	in := newTextInput()
	in.Prompt = "/"
	in.Placeholder = "search (any case); enter: go · esc: cancel"
	return textSearch{styles: st, keys: k, input: in}
}

// active reports whether a search is being typed or is set.
func (t *textSearch) active() bool { return t.typing || t.query != "" }

// bindings are the keys to show while searching.
func (t *textSearch) bindings() []key.Binding {
	if t.typing {
		return []key.Binding{t.keys.Go, t.keys.Cancel}
	}
	if t.query != "" {
		return []key.Binding{t.keys.Next, t.keys.Prev, t.keys.Cancel}
	}
	return []key.Binding{t.keys.Start}
}

// handleKey takes the search's keys. handled is false for keys it leaves to the
// view; text, when changed is set, is the raw text to show again (with or
// without marks).
func (t *textSearch) handleKey(msg tea.KeyPressMsg, vp *viewport.Model, raw string) (cmd tea.Cmd, handled bool) {
	switch {
	case t.typing && key.Matches(msg, t.keys.Go):
		t.typing = false
		t.input.Blur()
		t.query = strings.TrimSpace(t.input.Value())
		t.apply(vp, raw)
		t.goNear(vp)
		return nil, true
	case t.typing && key.Matches(msg, t.keys.Cancel):
		t.typing = false
		t.input.Blur()
		return nil, true
	case t.typing:
		var c tea.Cmd
		t.input, c = t.input.Update(msg)
		return c, true
	case key.Matches(msg, t.keys.Start):
		t.typing = true
		t.input.SetValue("")
		return t.input.Focus(), true
	case t.query != "" && key.Matches(msg, t.keys.Cancel):
		t.query, t.lines = "", nil
		y := vp.YOffset()
		vp.SetContent(raw)
		vp.SetYOffset(y)
		return nil, true
	case t.query != "" && key.Matches(msg, t.keys.Next):
		t.step(vp, 1)
		return nil, true
	case t.query != "" && key.Matches(msg, t.keys.Prev):
		t.step(vp, -1)
		return nil, true
	}
	return nil, false
}

// apply shows raw in vp, marked for the query when one is set, keeping the
// scroll position.
func (t *textSearch) apply(vp *viewport.Model, raw string) {
	y := vp.YOffset()
	if t.query == "" {
		vp.SetContent(raw)
		vp.SetYOffset(y)
		return
	}
	text, lines := markMatches(ansi.Strip(raw), t.query, &t.styles.Match)
	t.lines = lines
	t.cur = min(t.cur, max(len(lines)-1, 0))
	vp.SetContent(text)
	vp.SetYOffset(y)
}

// goNear goes to the first match at or below the top line, else the first.
func (t *textSearch) goNear(vp *viewport.Model) {
	t.cur = 0
	for i, l := range t.lines {
		if l >= vp.YOffset() {
			t.cur = i
			break
		}
	}
	t.show(vp)
}

func (t *textSearch) step(vp *viewport.Model, dir int) {
	if len(t.lines) == 0 {
		return
	}
	t.cur = (t.cur + dir + len(t.lines)) % len(t.lines)
	t.show(vp)
}

// show scrolls so that the current match is on screen, a few lines from the top.
func (t *textSearch) show(vp *viewport.Model) {
	if len(t.lines) == 0 {
		return
	}
	l := t.lines[t.cur]
	if l < vp.YOffset() || l >= vp.YOffset()+vp.Height() {
		vp.SetYOffset(max(l-2, 0))
	}
}

// footer is the search's line: the field while typing, else where the search
// stands; "" when there is none.
func (t *textSearch) footer() string {
	switch {
	case t.typing:
		return t.input.View()
	case t.query == "":
		return ""
	case len(t.lines) == 0:
		return t.styles.Warning.Render(fmt.Sprintf("/%s: not found · esc clears", t.query))
	}
	return t.styles.Accent.Render(fmt.Sprintf("/%s: match %d of %d (line %d) · n/N next/previous · esc clears", t.query, t.cur+1, len(t.lines), t.lines[t.cur]+1))
}

// markMatches marks every match of q (any case) in plain text, and returns the
// numbers (0-based) of the lines holding one.
func markMatches(text, q string, st interface{ Render(...string) string }) (string, []int) {
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
