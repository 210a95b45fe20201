package demo

import (
	"testing"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// BenchmarkDemoSeed is what every whole-demo command (ls, verify, gc,
// completion) pays before it reads anything: Seed of every sample on a fresh
// in-memory cluster, the live objects held back as the CLI holds them. The
// replay variant sends every write to the drivers as Helm does, each release
// compressed on each of its writes, as Seed did before issue 29's item 16.
func BenchmarkDemoSeed(b *testing.B) {
	for _, bc := range []struct {
		name   string
		replay bool
	}{{"once", false}, {"replay", true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Seed(b.Context(), fakeapi.NewCluster(), SeedOptions{Live: NewLive(), replay: bc.replay}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
