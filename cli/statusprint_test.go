package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/render/rendertest"
)

// TestStatusPrintShowsWhatRenderYields: `status` prints every fact that
// render.StatusOf yields, the TUI's resources view too (its own test holds it
// to the same list), among them the last exit code of a hook container that
// restarted, which only the CLI printed before both printed render's.
func TestStatusPrintShowsWhatRenderYields(t *testing.T) {
	st := rendertest.Status()
	var b strings.Builder
	if err := printStatus(&b, st, rendertest.Now, 200, false); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(b.String()), " ")
	for _, f := range rendertest.StatusFacts(render.StatusOf(st, rendertest.Now)) {
		if !strings.Contains(flat, f) {
			t.Errorf("%q is not printed:\n%s", f, b.String())
		}
	}
	if want := fmt.Sprintf("2 restarts, the last ended with exit code %d", rendertest.LastExitCode); !strings.Contains(flat, want) {
		t.Errorf("the last exit code is not printed (%q):\n%s", want, b.String())
	}
}
