package table_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/ui/components/table"
)

// TestWrapKeepsToTheWidth: no wrapped line is wider than asked, even where the
// line would end on a breakpoint character.
func TestWrapKeepsToTheWidth(t *testing.T) {
	s := "Resources: 0 added, 0 removed, 1 changed · also changed: values, computed values, chart"
	for w := 20; w <= 100; w++ {
		for _, l := range strings.Split(table.Wrap(s, w), "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("at %d: %q is %d wide", w, l, ansi.StringWidth(l))
			}
		}
	}
}
