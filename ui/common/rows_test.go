package common

import (
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

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
		if got := ReleaseNamespace(tc.row); got != tc.want {
			t.Errorf("%s: releaseNamespace = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLargestSecret(t *testing.T) {
	lc := NewLayoutCache()
	row := func(stored int64, chunks int) kube.RevisionRow {
		return kube.RevisionRow{StorageNamespace: "ns", Key: "k", ResourceVersion: "1", Known: true,
			Summary: storage.Summary{StoredBytes: stored, Chunks: chunks}}
	}
	for _, tc := range []struct {
		name      string
		row       kube.RevisionRow
		chunkSize int
		want      int64
		ok        bool
	}{
		{"unknown", kube.RevisionRow{}, 100, 0, false},
		{"one Secret", row(700, 1), 1000, 700, true},
		{"configured chunk size fits", row(2500, 3), 1000, 1000, true},
		// Written with another chunk size: stored/n rounded up.
		{"other chunk size", row(2500, 3), 400, 834, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := LargestSecret(tc.row, tc.chunkSize, lc)
			if got != tc.want || ok != tc.ok {
				t.Errorf("largestSecret = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	// A layout seen is exact.
	lc.Put(row(2500, 3), 950)
	if got, _ := LargestSecret(row(2500, 3), 1000, lc); got != 950 {
		t.Errorf("with a layout known, largestSecret = %d, want 950", got)
	}
}
