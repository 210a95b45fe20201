package storage_test

import (
	"bytes"
	"testing"

	"github.com/chunkview/chunkview/storage"
)

// BenchmarkDecodeWalk measures, side by side in one run, a payload decode as Helm's
// reads make it (no walk), as DecodeStats makes it (with the walk for fields Helm 3
// drops), and the walk alone: the in-place scanner and the json.Decoder walk it
// replaced. Run: go test ./storage -run '^$' -bench DecodeWalk -benchtime 5x.
func BenchmarkDecodeWalk(b *testing.B) {
	for _, sz := range benchSizes {
		gz, jsonLen, err := storage.EncodePayload(benchRelease("walk", 1, sz.gz, 3))
		if err != nil {
			b.Fatal(err)
		}
		js := gunzip(b, gz)
		for _, c := range []struct {
			name string
			op   func() error
		}{
			{"decode", func() error { _, _, err := storage.DecodePayloadInfo(bytes.NewReader(gz), false); return err }},
			{"decode+walk", func() error { _, _, err := storage.DecodePayloadInfo(bytes.NewReader(gz), true); return err }},
			{"walk/scanner", func() error { _, _, err := storage.UnknownFieldsOfPayload(js); return err }},
			{"walk/json.Decoder", func() error { _, _, err := storage.UnknownFieldsOfPayloadDecoder(js); return err }},
		} {
			b.Run(sz.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(jsonLen))
				b.ReportAllocs()
				for b.Loop() {
					if err := c.op(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
