package ui

import (
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestSizeText: a row peeked from its index shows its size when it is one chunk,
// and '-', not "0 B", when it spans more; a row not known yet shows a
// placeholder.
func TestSizeText(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  kube.RevisionRow
		want string
	}{
		{"decoded", kube.RevisionRow{Known: true, Summary: storage.Summary{StoredBytes: 2048, Chunks: 2}}, "2.0 KiB"},
		{"peeked, one chunk", kube.RevisionRow{Known: true, Peeked: true, Summary: storage.Summary{StoredBytes: 900, Chunks: 1}}, "900 B"},
		{"peeked, chunks", kube.RevisionRow{Known: true, Peeked: true, StoredAtMost: 3072, Summary: storage.Summary{Chunks: 3}}, "-"},
		{"not known yet", kube.RevisionRow{}, "…"},
		{"broken", kube.RevisionRow{Broken: true}, "?"},
	} {
		if got := sizeText(tc.row); got != tc.want {
			t.Errorf("%s: sizeText = %q, want %q", tc.name, got, tc.want)
		}
	}
}
