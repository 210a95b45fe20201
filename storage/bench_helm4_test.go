package storage_test

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"
	rspb "helm.sh/helm/v4/pkg/release/v1"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// majorSide is one adapter of BenchmarkHelm4SideBySide: its own counted
// connection and namespace, and the operations under test in its Helm's types.
type majorSide struct {
	name    string
	count   *benchCounter
	ns      string
	elapsed []time.Duration
	// create, update and get run the operation on the key of the benchmark with
	// content i (0 or 1).
	create, update func(i int) error
	get            func() error
}

func newMajorSide(b *testing.B, name string) (*majorSide, *kubernetes.Clientset) {
	b.Helper()
	s := &majorSide{name: name, count: &benchCounter{}, ns: cluster.Namespace(b)}
	cfg := rest.CopyConfig(cluster.Config)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { s.count.next = rt; return s.count })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return s, cs
}

func (s *majorSide) time(b *testing.B, op func() error) {
	start := time.Now()
	err := op()
	s.elapsed = append(s.elapsed, time.Since(start))
	if err != nil {
		b.Fatalf("%s: %v", s.name, err)
	}
}

// BenchmarkHelm4SideBySide gets, creates and updates one 8-chunk record with the
// Helm 4 driver and with the Helm 3 driver, each on its own counted connection
// and namespace, in turns inside one loop so that both see the same machine load.
// The two are one core behind two adapters and store the same format, so the
// ratio (helm4/helm3, of median times) measures what the Helm 4 adapter and Helm
// 4's types cost: their JSON, and the conversion to Releaser. A Helm 4 release is
// the Helm 3 one in Helm 4's types, a little longer (Helm 4 writes the chart's
// schemamodtime).
func BenchmarkHelm4SideBySide(b *testing.B) {
	const chunks = 8
	k := storage.RecordKey("write", 1)
	for _, op := range []string{"get", "create", "update"} {
		b.Run(op, func(b *testing.B) {
			revs := []*release.Release{
				benchReleaseOfChunks(b, "write", 1, chunks, 5),
				benchReleaseOfChunks(b, "write", 1, chunks, 6),
			}
			conv := &helm4Values{of: map[*release.Release]*rspb.Release{}}
			revs4 := make([]*rspb.Release, len(revs))
			for i, r := range revs {
				r4, err := conv.toHelm4(r)
				if err != nil {
					b.Fatal(err)
				}
				revs4[i] = r4
			}

			h3, cs3 := newMajorSide(b, "helm3")
			d3 := storage.NewDriver(cs3.CoreV1().Secrets(h3.ns), "bench", storage.ChunkedSecretsConfig{})
			h3.create = func(i int) error { return d3.Create(k, revs[i]) }
			// A fresh value each time, as Helm hands the driver: a value the driver
			// wrote before stands for a stale read of the record.
			h3.update = func(i int) error { v := *revs[i]; return d3.Update(k, &v) }
			h3.get = func() error { _, err := d3.Get(k); return err }

			h4, cs4 := newMajorSide(b, "helm4")
			d4 := helm4.NewDriver(cs4.CoreV1().Secrets(h4.ns), "bench", storage.ChunkedSecretsConfig{})
			h4.create = func(i int) error { return d4.Create(k, revs4[i]) }
			h4.update = func(i int) error { v := *revs4[i]; return d4.Update(k, &v) }
			h4.get = func() error { _, err := d4.Get(k); return err }

			both := []*majorSide{h3, h4}
			defer func() {
				for _, s := range both {
					benchWipe(b, s.ns)
				}
			}()
			if op != "create" {
				for _, s := range both {
					if err := s.create(0); err != nil {
						b.Fatal(err)
					}
					if err := s.get(); err != nil { // warm-up
						b.Fatal(err)
					}
				}
			}
			for _, s := range both {
				s.count.reset()
			}
			n := 0
			b.ResetTimer()
			for b.Loop() {
				order := both
				if n%2 == 1 {
					order = []*majorSide{h4, h3}
				}
				for _, s := range order {
					switch op {
					case "get":
						s.time(b, s.get)
					case "create":
						s.time(b, func() error { return s.create(n % 2) })
					case "update":
						s.time(b, func() error { return s.update((n + 1) % 2) })
					}
				}
				if op == "create" {
					b.StopTimer()
					for _, s := range both {
						reqs := s.count.reqs.Load()
						benchWipe(b, s.ns)
						s.count.reqs.Store(reqs)
					}
					b.StartTimer()
				}
				n++
			}
			b.StopTimer()
			m3, m4 := median(h3.elapsed), median(h4.elapsed)
			b.ReportMetric(float64(m3.Microseconds())/1000, "helm3-ms/"+op)
			b.ReportMetric(float64(m4.Microseconds())/1000, "helm4-ms/"+op)
			b.ReportMetric(float64(m4)/float64(m3), "ratio")
			b.ReportMetric(float64(h3.count.reqs.Load())/float64(n), "helm3-req/"+op)
			b.ReportMetric(float64(h4.count.reqs.Load())/float64(n), "helm4-req/"+op)
		})
	}
}
