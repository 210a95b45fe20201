package kube

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage"
)

// TestStoredBytesOf holds the quick read of an index's stored size to
// storage.SummaryFromMeta, which decodes the whole summary, on the summaries
// chunkview writes (whatever their description says) and on what it does not.
func TestStoredBytesOf(t *testing.T) {
	meta := func(a map[string]string) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{Name: "sh.helm.release.v1.x.v1", Annotations: a}
	}
	var cases []*metav1.ObjectMeta
	for _, desc := range []string{"", "Upgrade complete", `tricky "storedBytes":99 text`, `\"storedBytes\":7`, "storedBytes", `{"storedBytes":5}`} {
		for _, n := range []int64{0, 1, 5_880, 11_444_224} {
			s := storage.Summary{Chart: "c", Description: desc, LastDeployed: time.Unix(1, 0), StoredBytes: n, DecodedBytes: 3 * n, Chunks: 2}
			cases = append(cases, meta(s.Annotations()))
		}
	}
	cases = append(cases,
		meta(nil),
		meta(map[string]string{storage.AnnotationChunks: "0", storage.AnnotationSummary: `{"storedBytes":9}`}),
		meta(map[string]string{storage.AnnotationChunks: "x", storage.AnnotationSummary: `{"storedBytes":9}`}),
		meta(map[string]string{storage.AnnotationChunks: "1", storage.AnnotationStoredBytes: "4321"}),
		meta(map[string]string{storage.AnnotationChunks: "1", storage.AnnotationSummary: `{"chart":"c"}`}),
	)
	for i, m := range cases {
		want := int64(0)
		if s, ok := storage.SummaryFromMeta(m); ok {
			want = s.StoredBytes
		}
		if got := storedBytesOf(m); got != want {
			t.Errorf("case %d %v: storedBytesOf %d, SummaryFromMeta %d", i, m.Annotations, got, want)
		}
	}
}

// TestHistoryBytes: the sum over the revisions sized, the latest counted with
// its row's size once known, and a copy of a row left alone by changes to the
// other.
func TestHistoryBytes(t *testing.T) {
	var g releaseGroups
	for rev, n := range map[int]int64{1: 100, 2: 0, 3: 300} {
		g.offer("ns", "r", rev, n, func() RevisionRow { return RevisionRow{Name: "r", Revision: rev} })
	}
	g.offer("ns", "r", 4, 0, func() RevisionRow { return RevisionRow{Name: "r", Revision: 4} })
	rr := g.releases()[0]
	if b, n := rr.HistoryBytes(); rr.Revisions != 4 || b != 400 || n != 2 {
		t.Fatalf("want 4 revisions, 400 bytes over 2 sized; got %d, %d over %d", rr.Revisions, b, n)
	}
	cp := rr
	// A fill learns the latest's size.
	rr.Latest.Known, rr.Latest.Summary.StoredBytes = true, 50
	if b, n := rr.HistoryBytes(); b != 450 || n != 3 {
		t.Errorf("latest filled: want 450 over 3, got %d over %d", b, n)
	}
	rr.SetRevisionSize(1, 0)
	rr.SetRevisionSize(2, 20)
	if b, n := rr.HistoryBytes(); b != 370 || n != 3 {
		t.Errorf("1 forgotten, 2 sized: want 370 over 3, got %d over %d", b, n)
	}
	if b, n := cp.HistoryBytes(); b != 400 || n != 2 {
		t.Errorf("the copy: want 400 over 2 as it was, got %d over %d", b, n)
	}
}
