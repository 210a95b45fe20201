package releases

import (
	"strings"
	"testing"
)

// TestVerifyAlwaysSaysSo: on the list, V checks each release's latest
// revision, and says so: not that the releases are verified, whose older
// revisions it did not read (the history's side is ui/screens/history's test
// of the same name).
func TestVerifyAlwaysSaysSo(t *testing.T) {
	_, h := open(t, 120, 37)
	h.Press("home", "V")
	if st, _ := h.Status(); !strings.Contains(st, "latest revisions verified") || !strings.Contains(st, "older revisions: V in a release's history") || strings.Contains(st, "releases verified") {
		t.Errorf("V on the release list claims more than it checked: %q\n%s", st, h.View())
	}
}
