package ui

import (
	"testing"

	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/screens/history"
)

// TestStaleDialogRefusedAndReloaded: a dialog holds the history it was opened
// on. When the release moves on before the user confirms, the operation is refused
// with nothing written, the dialog says why, and the history is read again.
func TestStaleDialogRefusedAndReloaded(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "up", "X")
	hs := h.top().(*history.Screen)
	if hs.Dialog == nil || len(hs.Rows) != 4 {
		t.Fatalf("no delete dialog over 4 revisions: %+v", hs.Dialog)
	}
	f.MoveWeb(t)
	writes := f.Cluster.Writes()
	h.typeText("web").press("enter")
	h.contains("changed while you were looking", "revision 5 (deployed) was added", "Nothing was changed")
	if n := f.Cluster.Writes() - writes; n != 0 {
		t.Fatalf("a refused delete wrote %d times", n)
	}
	if len(hs.Rows) != 5 || hs.Latest().Revision != 5 {
		t.Fatalf("the history was not read again: %d rows", len(hs.Rows))
	}
	if hs.Dialog == nil || hs.Dialog.State() != dialog.Done {
		t.Fatal("the refusal did not stay in its dialog")
	}
}

// TestStaleRollbackRereadsTheHistory: a rollback refused because the release
// moved on leaves the history under it read again, showing the revision that
// was added meanwhile.
func TestStaleRollbackRereadsTheHistory(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "up", "up", "R").contains("Roll back web from revision 4 to revision 2?")
	f.MoveWeb(t)
	h.press("y").contains("changed while you were looking")
	h.press("esc").contains("Revision 2,", "web-1.5.0")
}
