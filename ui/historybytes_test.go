package ui

import (
	"context"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/storage"
)

// TestLiveHistoryBytes: what a release's revisions hold follows the live view:
// a revision written adds its stored size, a deleted older revision takes its
// size away, with no list read again; the detail line says it.
func TestLiveHistoryBytes(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.client, Options{Watch: true}, 160, 45)
	secrets := f.cluster.Clientset().CoreV1().Secrets("default")
	stored := func(rev int) int64 {
		t.Helper()
		idx, err := secrets.Get(context.Background(), storage.RecordKey("web", rev), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := storage.SummaryFromMeta(idx)
		if !ok {
			t.Fatalf("revision %d has no summary", rev)
		}
		return s.StoredBytes
	}
	var want int64
	for rev := 1; rev <= 4; rev++ {
		want += stored(rev)
	}
	if b, n := webRow(h).HistoryBytes(); b != want || n != 4 {
		t.Fatalf("web: want 4 revisions holding %d bytes, got %d over %d", want, b, n)
	}
	h.press("down", "down").contains("4 revisions holding " + human.Bytes(want))

	h.trace = nil
	drv := storage.NewDriver(secrets, storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
	if err := drv.Create(storage.RecordKey("web", 5), webRelease(5, release.StatusDeployed)); err != nil {
		t.Fatal(err)
	}
	h.waitLive("web revision 5", func() bool { return webRow(h).Latest.Revision == 5 })
	want += stored(5)
	if b, n := webRow(h).HistoryBytes(); b != want || n != 5 {
		t.Errorf("after revision 5: want %d bytes over 5, got %d over %d", want, b, n)
	}
	gone := stored(1)
	if _, err := drv.Delete(storage.RecordKey("web", 1)); err != nil {
		t.Fatal(err)
	}
	h.waitLive("web down to 4 revisions", func() bool { return webRow(h).Revisions == 4 })
	if b, n := webRow(h).HistoryBytes(); b != want-gone || n != 4 {
		t.Errorf("after deleting revision 1: want %d bytes over 4, got %d over %d", want-gone, b, n)
	}
	if n := reloads(h); n != 0 {
		t.Errorf("the list was read again %d times", n)
	}
	h.contains("4 revisions holding "+human.Bytes(want-gone), "HISTORY")
}
