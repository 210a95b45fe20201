package diffview

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestJumpsBetweenChanges: n and N move the view to the changes' headings in
// turn, the counter follows, and the last change, which cannot reach the top of
// the view, is still counted once jumped to.
func TestJumpsBetweenChanges(t *testing.T) {
	m := New()
	m.SetSize(40, 10)
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	m.SetContent(strings.Join(lines, "\n"), []int{10, 40, 95}, 40)
	n := tea.KeyPressMsg{Code: 'n', Text: "n"}
	prev := tea.KeyPressMsg{Code: 'N', Text: "N", ShiftedCode: 'N'}

	if got := ansi.Strip(m.Counter()); got != "3 changes · n: the first" {
		t.Fatalf("counter before a jump: %q", got)
	}
	for i, want := range []struct {
		key   tea.KeyPressMsg
		top   string
		count string
	}{
		{n, "line 10", "change 1 of 3"},
		{n, "line 40", "change 2 of 3"},
		{n, "line 90", "change 3 of 3"}, // the view ends at the text's end
		{n, "line 90", "change 3 of 3"}, // no change after the last
		{prev, "line 40", "change 2 of 3"},
	} {
		m, _ = m.Update(want.key)
		top := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
		if strings.TrimSpace(top) != want.top || !strings.HasPrefix(ansi.Strip(m.Counter()), want.count) {
			t.Fatalf("step %d: view starts at %q, counter %q; want %q, %q", i, top, ansi.Strip(m.Counter()), want.top, want.count)
		}
	}

	if m.Stale(40) || !m.Stale(80) {
		t.Fatal("Stale should tell the width the diff was rendered at from another")
	}
	m.SetMessage("the diff failed")
	if m.Changes() != 0 || m.Counter() != "" {
		t.Fatalf("a message has %d changes and counter %q, want none", m.Changes(), m.Counter())
	}
}
