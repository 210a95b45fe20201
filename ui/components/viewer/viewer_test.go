package viewer_test

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/components/search"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

func press(m viewer.Model, keys ...string) viewer.Model {
	for _, k := range keys {
		msg := tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		}
		m, _ = m.Update(msg)
	}
	return m
}

// TestViewerMarksCutLines: a line that goes on past the right edge ends in "…";
// one that fits does not.
func TestViewerMarksCutLines(t *testing.T) {
	m := viewer.New()
	m.SetSize(10, 3)
	m.SetContent("short\n" + strings.Repeat("x", 30) + "\nend")
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if strings.TrimSpace(lines[0]) != "short" || lines[1] != strings.Repeat("x", 9)+"…" || strings.TrimSpace(lines[2]) != "end" {
		t.Fatalf("view %q", lines)
	}
	m = press(m, "l")
	if got := ansi.Strip(strings.Split(m.View(), "\n")[1]); strings.HasPrefix(got, "xxxxxxxxxx") && !strings.HasSuffix(got, "…") {
		t.Errorf("scrolled right, the long line still goes on but is not marked: %q", got)
	}
}

// TestViewerSearch: / types a text, enter marks its matches and shows the
// first at or below the top line, n and N go from match to match and wrap, esc
// clears the marks; keys of the search do not scroll.
func TestViewerSearch(t *testing.T) {
	var lines []string
	for i := range 40 {
		word := "plain"
		if i%10 == 5 {
			word = "Needle"
		}
		lines = append(lines, fmt.Sprintf("%02d %s", i, word))
	}
	m := viewer.New().WithSearch(search.New())
	m.SetSize(30, 5)
	m.SetContent(strings.Join(lines, "\n"))
	m = press(m, "j", "j") // top line 2
	if !m.SearchWants(tea.KeyPressMsg{Code: '/', Text: "/"}) || m.SearchWants(tea.KeyPressMsg{Code: 'n', Text: "n"}) {
		t.Fatal("before a search, only / is the search's")
	}
	m = press(m, "/", "n", "e", "e", "d", "l", "e")
	if !m.Search().Typing() || m.YOffset() != 2 {
		t.Fatalf("typing: typing %v, top %d; the letters must not scroll", m.Search().Typing(), m.YOffset())
	}
	m = press(m, "enter")
	if got := m.Search().Matches(); fmt.Sprint(got) != "[5 15 25 35]" {
		t.Fatalf("matches %v", got)
	}
	if l, _ := m.Search().Current(); l != 5 || !strings.Contains(ansi.Strip(m.Search().Footer()), "match 1 of 4 (line 6)") {
		t.Fatalf("after enter: at line %d, footer %q", l, ansi.Strip(m.Search().Footer()))
	}
	for _, want := range []int{15, 25, 35, 5} {
		m = press(m, "n")
		if l, _ := m.Search().Current(); l != want || m.YOffset() > l || m.YOffset()+m.Height() <= l {
			t.Fatalf("n: at line %d (want %d), showing from %d", l, want, m.YOffset())
		}
	}
	m = press(m, "N")
	if l, _ := m.Search().Current(); l != 35 {
		t.Fatalf("N from the first: at line %d, want the last (35)", l)
	}
	m = press(m, "esc")
	if m.Search().Active() || len(m.Search().Matches()) != 0 || m.Content() != strings.Join(lines, "\n") {
		t.Fatal("esc did not clear the search and its marks")
	}
	if m.SearchWants(tea.KeyPressMsg{Code: tea.KeyEscape}) {
		t.Fatal("esc without a search is the screen's, to leave")
	}
}
