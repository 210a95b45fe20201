package storage_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/chunkview/chunkview/storage"
)

// blockBomb returns a gzip stream of a JSON document that starts like a release
// and goes on with one random 1 KiB block repeated until it is total bytes long:
// about 200:1, under the ratio guard, so that only the bound on decoded size
// stops it.
func blockBomb(t *testing.T, total int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	block := make([]byte, 1<<10)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i := range block {
		block[i] = letters[rng.IntN(len(letters))]
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = zw.Write([]byte(`{"name":"bomb","version":1,"info":{"status":"deployed"},"manifest":"`))
	for n := 0; n < total; n += len(block) {
		_, _ = zw.Write(block)
	}
	_, _ = zw.Write([]byte(`"}`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGetBoundedWhateverTheRatio: through either adapter, a Get of a record that
// decompresses to twice MaxDecodedBytes, at a ratio the ratio guard lets
// through, is refused with ErrTooLarge having allocated about the bound (its
// chunks read from the API server included), not the payload's size.
func TestGetBoundedWhateverTheRatio(t *testing.T) {
	const bound = 64 << 20
	gz := blockBomb(t, 2*bound)
	t.Logf("%d MiB of JSON gzip to %d KiB (%d:1)", 2*bound>>20, len(gz)>>10, 2*bound/len(gz))
	forEachAdapter(t, func(t *testing.T, ad chunkedAdapter) {
		_, secrets := newNamespace(t)
		k := key("bomb", 1)
		const chunkSize = 64 << 10
		if n := handStore(t, secrets, k, gz, chunkSize); n < 3 {
			t.Fatalf("the bomb takes %d slices, want several", n)
		}
		d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize, MaxDecodedBytes: bound})
		var err error
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = d.Get(k)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, storage.ErrTooLarge) {
			t.Fatalf("Get of a payload twice the bound: %v, want ErrTooLarge", err)
		}
		got := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("refused having allocated %d MiB for a %d MiB bound", got>>20, bound>>20)
		if got > bound*3/2 {
			t.Fatalf("refusing allocated %d MiB, more than 1.5 times the %d MiB bound", got>>20, bound>>20)
		}
	})
}
