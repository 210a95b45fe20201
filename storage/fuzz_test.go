package storage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/storage"
)

// fuzzMaxDecoded is the decompressed-size bound FuzzDecodePayload decodes under.
const fuzzMaxDecoded = 64 << 10

// FuzzDecodeIndex feeds ParseExtraChunks arbitrary keys and extraChunks data. It must
// never panic, must reject with ErrCorrupt, and must accept only names of the key's
// own chunks. Seeds are in testdata/fuzz/FuzzDecodeIndex.
func FuzzDecodeIndex(f *testing.F) {
	k := "sh.helm.release.v1.app.v1"
	// Over the parse bound: built here rather than kept as a corpus file.
	var many []string
	for len(many)*(len(k)+17) <= 256<<10 {
		many = append(many, storage.ChunkName(k, []byte{byte(len(many))}))
	}
	huge, _ := json.Marshal(many)
	f.Add(k, huge)
	f.Add(k, append([]byte(`[`), bytes.Repeat([]byte(` `), 300<<10)...))

	f.Fuzz(func(t *testing.T, key string, data []byte) {
		names, err := storage.ParseExtraChunks(key, data)
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			if names != nil {
				t.Fatalf("returned names %q with error %v", names, err)
			}
			return
		}
		if len(data) > 256<<10 {
			t.Fatalf("accepted %d bytes of extraChunks", len(data))
		}
		for i, n := range names {
			h := storage.HashOfChunkName(key, n)
			if h == "" || n != key+"-"+h || len(h) != 13 {
				t.Fatalf("accepted name %d %q, which is not a chunk name of key %q", i, n, key)
			}
			if strings.ContainsAny(h, "=ABCDEFGHIJKLMNOPQRSTUVWXYZ0789") {
				t.Fatalf("accepted hash %q outside the format's alphabet", h)
			}
		}
		// What was accepted survives a round trip.
		again, err := json.Marshal(names)
		if err != nil {
			t.Fatal(err)
		}
		back, err := storage.ParseExtraChunks(key, again)
		if err != nil || len(back) != len(names) {
			t.Fatalf("accepted names do not parse again: %v", err)
		}
	})
}

// FuzzDecodePayload feeds DecodePayload arbitrary bytes under a small bound. It must
// never panic, must fail with ErrCorrupt or ErrTooLarge, and a release it returns
// has info and no system labels. Seeds are in testdata/fuzz/FuzzDecodePayload.
func FuzzDecodePayload(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rls, err := storage.DecodePayload(bytes.NewReader(data), fuzzMaxDecoded)
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) && !errors.Is(err, storage.ErrTooLarge) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrTooLarge", err)
			}
			if rls != nil {
				t.Fatalf("returned a release with error %v", err)
			}
			return
		}
		if rls == nil || rls.Info == nil {
			t.Fatalf("returned a release without info")
		}
		if rls.Labels == nil {
			t.Fatalf("returned nil labels")
		}
		for l := range rls.Labels {
			if storage.IsSystemLabel(l) {
				t.Fatalf("returned system label %q", l)
			}
		}
		// A decoded release encodes and decodes again.
		gz, _, err := storage.EncodePayload(rls)
		if err != nil {
			t.Fatalf("a decoded release does not encode: %v", err)
		}
		back, err := storage.DecodePayload(bytes.NewReader(gz), 0)
		if err != nil {
			t.Fatalf("re-encoded release does not decode: %v", err)
		}
		if back.Name != rls.Name || back.Version != rls.Version || back.Manifest != rls.Manifest {
			t.Fatalf("round trip changed the release")
		}
	})
}
