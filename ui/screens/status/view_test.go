package status

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/render/rendertest"
	"github.com/chunkview/chunkview/ui/theme"
)

// TestViewShowsWhatRenderYields: the resources view shows every fact that
// render.StatusOf yields, as `chunkview status` does (its own test holds it to
// the same list), among them the last exit code of a hook container that
// restarted, which the view left out before both printed render's.
func TestViewShowsWhatRenderYields(t *testing.T) {
	st := rendertest.Status()
	styles := theme.DefaultStyles()
	out := ansi.Strip(renderStatusHead(&styles, st, 200, "") + "\n" + renderStatusBody(&styles, st, 200, rendertest.Now))
	flat := strings.Join(strings.Fields(out), " ")
	for _, f := range rendertest.StatusFacts(render.StatusOf(st, rendertest.Now)) {
		if !strings.Contains(flat, f) {
			t.Errorf("%q is not shown:\n%s", f, out)
		}
	}
	if want := fmt.Sprintf("2 restarts, the last ended with exit code %d", rendertest.LastExitCode); !strings.Contains(flat, want) {
		t.Errorf("the last exit code is not shown (%q):\n%s", want, out)
	}
}
