package storage_test

import (
	"sync"
	"testing"

	"github.com/chunkview/chunkview/storage"
)

// BenchmarkGetUnderRewrite reads a 12-chunk record while helm-operator-plugins
// v0.9.1's driver rewrites it without pause (each content twice, then one whose
// last chunk differs, as in TestReadsRideOutRewritesInALoop), with the slices a
// read verified kept across its attempts (reuse) and fetched again on each
// (refetch). It reports, per read, its attempts, its Gets of chunks, those that
// found one (and so carried a slice), and the reads that failed.
func BenchmarkGetUnderRewrite(b *testing.B) {
	for _, mode := range []string{"reuse", "refetch"} {
		b.Run(mode, func(b *testing.B) {
			secrets := secretsIn(cluster.Namespace(b))
			k := key("busy", 1)
			orig, base, _ := busyRecord(b, secrets, k)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if err := orig.Update(k, rewriteVariant(base, i/2)); err != nil {
						b.Errorf("the original driver's rewrite %d: %v", i, err)
						return
					}
				}
			})
			defer func() { close(stop); wg.Wait() }()

			gl := &getLog{SecretInterface: secrets, key: k}
			d := storage.NewDriver(gl, testOwner, storage.ChunkedSecretsConfig{})
			if mode == "refetch" {
				storage.NoChunkReuse(d)
			}
			var reads, failed, attempts, chunkGets, found int
			for b.Loop() {
				if _, err := d.Get(k); err != nil {
					failed++
				}
				reads++
				for _, g := range gl.take() {
					switch {
					case g.chunks != nil:
						attempts++
					case g.found:
						found++
						chunkGets++
					default:
						chunkGets++
					}
				}
			}
			b.ReportMetric(float64(chunkGets)/float64(reads), "chunk-gets/read")
			b.ReportMetric(float64(found)/float64(reads), "chunks-found/read")
			b.ReportMetric(float64(attempts)/float64(reads), "attempts/read")
			b.ReportMetric(float64(failed)/float64(reads), "failed/read")
		})
	}
}
