package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/ui/common"
)

// TestVerifyAlwaysSaysSo: V ends with a result line, healthy or not.
func TestVerifyAlwaysSaysSo(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "V").contains("4 revisions verified ✓")
	h.press("esc", "up", "up", "enter")
	if got := h.top().Title(); got != "legacy" {
		t.Fatalf("opened %s, want legacy", got)
	}
	h.press("V").contains("2 revisions verified: ✗ 1 broken (2)")
	// On the list, V checks each release's latest revision, and says so: not
	// that the releases are verified, whose older revisions it did not read.
	h.press("esc", "home", "V")
	if !strings.Contains(h.screen(), "latest revisions verified") || !strings.Contains(h.screen(), "older revisions: V in a release's history") || strings.Contains(h.screen(), "releases verified") {
		t.Errorf("V on the release list claims more than it checked:\n%s", h.screen())
	}
}

// statusText returns the status line text a message carries, batches included.
func statusText(msg tea.Msg) string {
	switch m := msg.(type) {
	case common.StatusMsg:
		return m.Text
	case tea.BatchMsg:
		var out string
		for _, c := range m {
			if c != nil {
				out += statusText(c())
			}
		}
		return out
	}
	return ""
}
