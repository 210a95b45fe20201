package storage_test

import (
	"errors"
	"testing"

	"github.com/chunkview/chunkview/storage"
)

// TestGetBoundedByDefault: a driver given no MaxDecodedBytes (as ls, the TUI and
// the operations build theirs) refuses a record that decompresses to past 128
// MiB, the bound the README states, with ErrTooLarge. The size is written out
// here rather than taken from DefaultMaxDecodedBytes, so that the default itself
// is held to what the README says.
func TestGetBoundedByDefault(t *testing.T) {
	const readmeBound = 128 << 20
	gz := blockBomb(t, readmeBound+8<<20)
	forEachAdapter(t, func(t *testing.T, ad chunkedAdapter) {
		_, secrets := newNamespace(t)
		k := key("bomb", 1)
		const chunkSize = 256 << 10
		handStore(t, secrets, k, gz, chunkSize)
		d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
		if _, err := d.Get(k); !errors.Is(err, storage.ErrTooLarge) {
			t.Fatalf("Get of a record of %d MiB of JSON with the default bound: %v, want ErrTooLarge", (readmeBound+8<<20)>>20, err)
		}
	})
}
