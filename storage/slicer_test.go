package storage_test

import (
	"bytes"
	"compress/gzip"
	"slices"
	"testing"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// TestSlicesAsCompressed: the slices a write cuts while it compresses are those of
// the whole gzip stream cut afterwards (EncodePayload, Split), each named after its
// bytes, for records of one to many slices, compressible and not; and no record
// outgrows the chunk count the stream bound allowed it.
func TestSlicesAsCompressed(t *testing.T) {
	for _, chunkSize := range []int{512, 1000, 4096} {
		d := storage.NewDriver(nil, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
		for i, payload := range []int{10, 600, 3000, 9000, 40000} {
			rls := testReleaseSeed("slices", 1, release.StatusDeployed, payload, uint64(i+1))
			k := key("slices", 1)
			got, names, err := storage.RecordSlices(d, k, rls)
			if err != nil {
				t.Fatal(err)
			}
			gz, jsonLen, err := storage.EncodePayload(rls)
			if err != nil {
				t.Fatal(err)
			}
			want := storage.Split(gz, chunkSize)
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("chunk size %d, payload %d: %d slices cut while compressing differ from the %d of the stream cut after", chunkSize, payload, len(got), len(want))
			}
			if len(names) != len(want)-1 {
				t.Fatalf("%d names for %d slices", len(names), len(want))
			}
			for j, n := range names {
				if n != storage.ChunkName(k, want[j+1]) {
					t.Fatalf("slice %d named %s, want %s", j+2, n, storage.ChunkName(k, want[j+1]))
				}
			}
			// The bound a create relies on to write before it has checked: a limit
			// of exactly the chunks it needs may stream only if the bound allows.
			if len(want) == 1 {
				continue // no limit below one chunk
			}
			limited := storage.NewDriver(nil, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize, MaxWriteChunks: len(want) - 1})
			if storage.Streamable(limited, k, jsonLen) {
				t.Fatalf("chunk size %d, payload %d: %d bytes of JSON may stream under a limit of %d chunks, though it takes %d", chunkSize, payload, jsonLen, len(want)-1, len(want))
			}
		}
	}
}

// TestGzipBound: gzip at the level writes use never makes more of incompressible
// bytes than the bound a create relies on to write before it has checked its
// record's size.
func TestGzipBound(t *testing.T) {
	x := uint64(88172645463325252)
	for _, n := range []int{0, 1, 100, 16383, 16384, 65535, 65536, 1 << 20, 3<<20 + 7} {
		raw := make([]byte, n)
		for i := range raw {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			raw[i] = byte(x)
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		if buf.Len() > storage.GzipBound(n) {
			t.Fatalf("%d random bytes gzip to %d, over the bound %d", n, buf.Len(), storage.GzipBound(n))
		}
		t.Logf("%d random bytes: gzip %d, bound %d", n, buf.Len(), storage.GzipBound(n))
	}
}
