package search

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/common"
)

// Model is a less-like search over a text view: / types a text, enter
// jumps to its first match at or below the top line, n and N to the next and
// previous, esc clears it. The match is a substring, any case. While a search is
// set, the text shows plain with the matches marked, so that they stand out from
// the syntax colours.
type Model struct {
	styles *common.Styles
	keys   common.SearchKeyMap
	Input  textinput.Model
	Typing bool
	query  string
	Lines  []int // lines holding a match, in order
	cur    int   // index in lines of the match gone to
}

// New returns a search that is not under way.
func New(st *common.Styles, k common.SearchKeyMap) Model {
	in := common.NewTextInput()
	in.Prompt = "/"
	in.Placeholder = "search (any case); enter: go · esc: cancel"
	return Model{styles: st, keys: k, Input: in}
}

// Active reports whether a search is being typed or is set.
func (t *Model) Active() bool { return t.Typing || t.query != "" }

// Bindings are the keys to show while searching.
func (t *Model) Bindings() []key.Binding {
	if t.Typing {
		return []key.Binding{t.keys.Go, t.keys.Cancel}
	}
	if t.query != "" {
		return []key.Binding{t.keys.Next, t.keys.Prev, t.keys.Cancel}
	}
	return []key.Binding{t.keys.Start}
}

// HandleKey takes the search's keys. handled is false for keys it leaves to the
// view; text, when changed is set, is the raw text to show again (with or
// without marks).
func (t *Model) HandleKey(msg tea.KeyPressMsg, vp *viewport.Model, raw string) (cmd tea.Cmd, handled bool) {
	switch {
	case t.Typing && key.Matches(msg, t.keys.Go):
		t.Typing = false
		t.Input.Blur()
		t.query = strings.TrimSpace(t.Input.Value())
		t.Apply(vp, raw)
		t.goNear(vp)
		return nil, true
	case t.Typing && key.Matches(msg, t.keys.Cancel):
		t.Typing = false
		t.Input.Blur()
		return nil, true
	case t.Typing:
		var c tea.Cmd
		t.Input, c = t.Input.Update(msg)
		return c, true
	case key.Matches(msg, t.keys.Start):
		t.Typing = true
		t.Input.SetValue("")
		return t.Input.Focus(), true
	case t.query != "" && key.Matches(msg, t.keys.Cancel):
		t.query, t.Lines = "", nil
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

// Apply shows raw in vp, marked for the query when one is set, keeping the
// scroll position.
func (t *Model) Apply(vp *viewport.Model, raw string) {
	y := vp.YOffset()
	if t.query == "" {
		vp.SetContent(raw)
		vp.SetYOffset(y)
		return
	}
	text, lines := MarkMatches(ansi.Strip(raw), t.query, &t.styles.Match)
	t.Lines = lines
	t.cur = min(t.cur, max(len(lines)-1, 0))
	vp.SetContent(text)
	vp.SetYOffset(y)
}

// goNear goes to the first match at or below the top line, else the first.
func (t *Model) goNear(vp *viewport.Model) {
	t.cur = 0
	for i, l := range t.Lines {
		if l >= vp.YOffset() {
			t.cur = i
			break
		}
	}
	t.show(vp)
}

func (t *Model) step(vp *viewport.Model, dir int) {
	if len(t.Lines) == 0 {
		return
	}
	t.cur = (t.cur + dir + len(t.Lines)) % len(t.Lines)
	t.show(vp)
}

// show scrolls so that the current match is on screen, a few lines from the top.
func (t *Model) show(vp *viewport.Model) {
	if len(t.Lines) == 0 {
		return
	}
	l := t.Lines[t.cur]
	if l < vp.YOffset() || l >= vp.YOffset()+vp.Height() {
		vp.SetYOffset(max(l-2, 0))
	}
}

// Footer is the search's line: the field while typing, else where the search
// stands; "" when there is none.
func (t *Model) Footer() string {
	switch {
	case t.Typing:
		return t.Input.View()
	case t.query == "":
		return ""
	case len(t.Lines) == 0:
		return t.styles.Warning.Render(fmt.Sprintf("/%s: not found · esc clears", t.query))
	}
	return t.styles.Accent.Render(fmt.Sprintf("/%s: match %d of %d (line %d) · n/N next/previous · esc clears", t.query, t.cur+1, len(t.Lines), t.Lines[t.cur]+1))
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
