package search_test

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/components/search"
)

func TestMarkMatches(t *testing.T) {
	st := search.DefaultStyles()
	text, lines := search.MarkMatches("Alpha\nbeta ALPHA alpha\ngamma", "alpha", &st.Match)
	if fmt.Sprint(lines) != "[0 1]" {
		t.Errorf("lines %v", lines)
	}
	if ansi.Strip(text) != "Alpha\nbeta ALPHA alpha\ngamma" {
		t.Errorf("marking changed the text: %q", ansi.Strip(text))
	}
	if _, lines := search.MarkMatches("İstanbul\nistanbul", "istanbul", &st.Match); fmt.Sprint(lines) != "[1]" {
		t.Errorf("a line whose lowering changes its length: %v", lines)
	}
}
