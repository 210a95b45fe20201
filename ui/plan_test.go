package ui

import (
	"testing"
)

// TestStaleRollbackRereadsTheHistory: a rollback refused because the release
// moved on leaves the history under it read again, showing the revision that
// was added meanwhile.
func TestStaleRollbackRereadsTheHistory(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "up", "up", "R").contains("Roll back web from revision 4 to revision 2?")
	f.MoveWeb(t)
	h.press("ctrl+r").contains("changed while you were looking")
	h.press("esc").contains("Revision 2,", "web-1.5.0")
}
