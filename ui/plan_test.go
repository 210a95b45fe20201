package ui

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/rollback"
)

// moveWeb is another writer storing revision 5 of web behind the screen's back.
func moveWeb(t *testing.T, f *fixture) {
	t.Helper()
	d := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), "helm", storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
	if err := d.Create(storage.RecordKey("web", 5), webRelease(5, release.StatusDeployed)); err != nil {
		t.Fatal(err)
	}
}

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
	moveWeb(t, f)
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

// TestStaleRollbackRefused: the rollback screen applies the plan it shows (4 → 2),
// not the one the release has by the time the user presses y (5 → 2).
func TestStaleRollbackRefused(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "up", "up", "R")
	d, ok := h.top().(*rollback.Screen)
	if !ok || d.Plan == nil || d.Plan.From != 4 || d.Plan.To != 2 {
		t.Fatalf("rollback screen %T with plan %+v, want 4 -> 2", h.top(), d)
	}
	moveWeb(t, f)
	writes := f.Cluster.Writes()
	h.press("y")
	if n := f.Cluster.Writes() - writes; n != 0 {
		t.Fatalf("a stale rollback wrote %d times", n)
	}
	if d.ActErr == nil || !strings.Contains(d.ActErr.Error(), "revision 5 (deployed) was added") {
		t.Fatalf("rollback error %v", d.ActErr)
	}
	h.contains("changed while you were looking")
	h.press("esc")
	hs := h.top().(*history.Screen)
	if len(hs.Rows) != 5 {
		t.Fatalf("the history under the rollback was not read again: %d rows", len(hs.Rows))
	}
}
