package history

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestVerifyAlwaysSaysSo: V ends with a result line, healthy or not (the
// list's side is ui/screens/releases' test of the same name).
func TestVerifyAlwaysSaysSo(t *testing.T) {
	f := screentest.NewFixture(t)
	_, h := open(t, f.Client, "web", 120, 37)
	h.Press("V")
	if st, _ := h.Status(); !strings.Contains(st, "4 revisions verified ✓") {
		t.Errorf("V on web: status %q", st)
	}
	s, h := open(t, f.Client, "legacy", 120, 37)
	if got := s.Title(); got != "legacy" {
		t.Fatalf("opened %s, want legacy", got)
	}
	h.Press("V")
	if st, _ := h.Status(); !strings.Contains(st, "2 revisions verified: ✗ 1 broken (2)") {
		t.Errorf("V on legacy: status %q", st)
	}
}
