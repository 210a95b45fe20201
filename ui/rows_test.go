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

// TestReleaseNamespaceText: a row read from its index's slice alone, whose records
// are kept in a storage namespace, shows its release namespace as not known, not
// as the storage namespace; a decoded row shows its own.
func TestReleaseNamespaceText(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  kube.RevisionRow
		want string
	}{
		{"decoded", kube.RevisionRow{StorageNamespace: "olmv1-system", Known: true, Summary: storage.Summary{Namespace: "shop"}}, "shop"},
		{"peeked, storage namespace", kube.RevisionRow{StorageNamespace: "olmv1-system", Known: true, Peeked: true, NamespaceUnknown: true}, "?"},
		{"peeked, records in the release's namespace", kube.RevisionRow{StorageNamespace: "shop", Known: true, Peeked: true}, "shop"},
	} {
		if got := releaseNamespace(tc.row); got != tc.want {
			t.Errorf("%s: releaseNamespace = %q, want %q", tc.name, got, tc.want)
		}
	}
}
