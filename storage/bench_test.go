package storage_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// The benchmarks below guard the codec and the driver paths against regressions. The
// fleet-scale comparison with Helm and helm-operator-plugins lives in hack/bench
// (`make bench`); these run with `go test -bench . -run '^$' ./storage`.
//
// Driver benchmarks report, besides time, the API requests (req/op), the response
// bytes received (recvB/op) and the request bytes sent (sentB/op) per operation.

// benchSizes are gzip sizes of payloads: a small, a medium and a large release.
var benchSizes = []struct {
	name string
	gz   int
}{
	{"10KB", 10 << 10},
	{"300KB", 300 << 10},
	{"3MB", 3 << 20},
}

// benchRelease returns a release whose payload compresses to about gz bytes: a few
// ordinary manifests plus a ConfigMap of base64-like text that gzip cannot shrink
// below 3/4 of its length.
func benchRelease(name string, version int, gz int, seed uint64) *release.Release {
	r := rand.New(rand.NewPCG(seed, uint64(version)))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	n := max(gz*4/3-2048, 16)
	blob := make([]byte, n)
	for i := range blob {
		blob[i] = alphabet[r.IntN(len(alphabet))]
	}
	var m strings.Builder
	for i := range 5 {
		fmt.Fprintf(&m, "---\n# Source: bench/templates/deploy-%d.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s-%d\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n      - name: app\n        image: example.com/app:%d.0.%d\n", i, name, i, version%5+1, i, version)
	}
	fmt.Fprintf(&m, "---\n# Source: bench/templates/blob.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-blob\ndata:\n  blob: %s\n", name, blob)
	ts := helmtime.Time{Time: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(version) * time.Hour)}
	return &release.Release{
		Name:      name,
		Namespace: "bench",
		Version:   version,
		Manifest:  m.String(),
		Info: &release.Info{
			FirstDeployed: ts, LastDeployed: ts,
			Status:      release.StatusDeployed,
			Description: "Upgrade complete",
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{Name: "bench", Version: "1.0.0", AppVersion: "2.0.0", APIVersion: "v2"},
			Values:   map[string]interface{}{"replicas": float64(1)},
		},
		Config: map[string]interface{}{"replicas": float64(version%5 + 1), "tag": fmt.Sprintf("1.0.%d", version)},
		Labels: map[string]string{"team": "bench"},
	}
}

// benchReleaseOfChunks returns a release that needs exactly chunks slices of
// storage.DefaultChunkSize.
func benchReleaseOfChunks(b *testing.B, name string, version, chunks int, seed uint64) *release.Release {
	b.Helper()
	target := storage.DefaultChunkSize*(chunks-1) + storage.DefaultChunkSize/2
	if chunks == 1 {
		target = 50 << 10
	}
	rls := benchRelease(name, version, target, seed)
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		b.Fatal(err)
	}
	if got := len(storage.Split(gz, storage.DefaultChunkSize)); got != chunks {
		b.Fatalf("release of %d gzip bytes needs %d chunks, want %d", len(gz), got, chunks)
	}
	return rls
}

func BenchmarkEncodePayload(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			rls := benchRelease("enc", 1, sz.gz, 1)
			_, jsonLen, err := storage.EncodePayload(rls)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(jsonLen))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := storage.EncodePayload(rls); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodePayload(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			gz, jsonLen, err := storage.EncodePayload(benchRelease("dec", 1, sz.gz, 2))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(jsonLen))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := storage.DecodePayload(bytes.NewReader(gz), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	for _, n := range []int{64 << 10, 1 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("%dKB", n>>10), func(b *testing.B) {
			data := make([]byte, n)
			b.ReportAllocs()
			for b.Loop() {
				if len(storage.Split(data, storage.DefaultChunkSize)) == 0 {
					b.Fatal("no slices")
				}
			}
		})
	}
}

func BenchmarkSliceHash(b *testing.B) {
	for _, n := range []int{1 << 10, 64 << 10, storage.DefaultChunkSize} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i * 31)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				_ = storage.SliceHash(data)
			}
		})
	}
}

// benchCounter counts the requests that cross a connection and the bytes each way.
type benchCounter struct {
	next           http.RoundTripper
	reqs           atomic.Int64
	sent, received atomic.Int64
}

func (c *benchCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.reqs.Add(1)
	if req.ContentLength > 0 {
		c.sent.Add(req.ContentLength)
	}
	resp, err := c.next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &benchBody{ReadCloser: resp.Body, n: &c.received}
	}
	return resp, err
}

func (c *benchCounter) reset() { c.reqs.Store(0); c.sent.Store(0); c.received.Store(0) }

// report puts the counts per operation next to the time.
func (c *benchCounter) report(b *testing.B, ops int) {
	if ops == 0 {
		return
	}
	b.ReportMetric(float64(c.reqs.Load())/float64(ops), "req/op")
	b.ReportMetric(float64(c.received.Load())/float64(ops), "recvB/op")
	b.ReportMetric(float64(c.sent.Load())/float64(ops), "sentB/op")
}

type benchBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *benchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// benchDriver returns a chunked driver with default settings on a fresh namespace of
// the test cluster, whose connection counts requests and bytes.
func benchDriver(b *testing.B) (*storage.ChunkedSecrets, *benchCounter, string) {
	b.Helper()
	ns := cluster.Namespace(b)
	counter := &benchCounter{}
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return storage.NewDriver(cs.CoreV1().Secrets(ns), "bench", storage.ChunkedSecretsConfig{}), counter, ns
}

// benchChunks are the record sizes of the driver benchmarks, in slices of
// storage.DefaultChunkSize.
var benchChunks = []int{1, 3, 8}

// benchWipe removes every Secret of namespace ns, outside the timed section.
func benchWipe(b *testing.B, ns string) {
	b.Helper()
	err := cluster.Client.CoreV1().Secrets(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkDriverCreate(b *testing.B) {
	for _, chunks := range benchChunks {
		b.Run(fmt.Sprintf("chunks=%d", chunks), func(b *testing.B) {
			d, counter, ns := benchDriver(b)
			defer benchWipe(b, ns)
			rls := benchReleaseOfChunks(b, "create", 1, chunks, 3)
			counter.reset()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rls.Version = i + 1
				if err := d.Create(storage.RecordKey(rls.Name, rls.Version), rls); err != nil {
					b.Fatal(err)
				}
				if i%4 == 3 { // keep etcd small; deletion is not what is measured
					b.StopTimer()
					n := counter.reqs.Load()
					r, s := counter.received.Load(), counter.sent.Load()
					benchWipe(b, ns)
					counter.reqs.Store(n)
					counter.received.Store(r)
					counter.sent.Store(s)
					b.StartTimer()
				}
			}
			b.StopTimer()
			counter.report(b, b.N)
		})
	}
}

func BenchmarkDriverGet(b *testing.B) {
	for _, chunks := range benchChunks {
		b.Run(fmt.Sprintf("chunks=%d", chunks), func(b *testing.B) {
			d, counter, ns := benchDriver(b)
			defer benchWipe(b, ns)
			rls := benchReleaseOfChunks(b, "get", 1, chunks, 4)
			k := storage.RecordKey(rls.Name, rls.Version)
			if err := d.Create(k, rls); err != nil {
				b.Fatal(err)
			}
			counter.reset()
			b.ResetTimer()
			for b.Loop() {
				if _, err := d.Get(k); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			counter.report(b, b.N)
		})
	}
}

// BenchmarkGetSideBySide reads one 8-chunk record with chunkview's Get and with the
// original driver's (helm-operator-plugins v0.9.1), each on its own counted
// connection, in turns inside one loop so that both see the same machine load. The
// record is written by chunkview (with its size hint) and, in turn, by the original
// driver (without). It reports each driver's mean time per Get and their ratio
// (chunkview/original); ns/op is the pair.
func BenchmarkGetSideBySide(b *testing.B) {
	for _, writer := range []string{"chunkview", "original"} {
		b.Run("written-by="+writer, func(b *testing.B) { benchGetSideBySide(b, writer) })
	}
}

func benchGetSideBySide(b *testing.B, writer string) {
	ns := cluster.Namespace(b)
	defer benchWipe(b, ns)
	conn := func() (*benchCounter, *kubernetes.Clientset) {
		counter := &benchCounter{}
		cfg := rest.CopyConfig(cluster.Config)
		cfg.QPS, cfg.Burst = 50, 100
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		return counter, cs
	}
	cvCount, cvCS := conn()
	origCount, origCS := conn()
	cv := storage.NewDriver(cvCS.CoreV1().Secrets(ns), "bench", storage.ChunkedSecretsConfig{})
	orig := hopstorage.NewChunkedSecrets(origCS.CoreV1().Secrets(ns), "bench", hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
	rls := benchReleaseOfChunks(b, "side", 1, 8, 4)
	k := storage.RecordKey(rls.Name, rls.Version)
	w := driver.Driver(cv)
	if writer == "original" {
		w = orig
	}
	if err := w.Create(k, rls); err != nil {
		b.Fatal(err)
	}
	var cvTime, origTime time.Duration
	get := func(name string, d interface {
		Get(string) (*release.Release, error)
	}, total *time.Duration) {
		start := time.Now()
		got, err := d.Get(k)
		*total += time.Since(start)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		if got.Manifest != rls.Manifest {
			b.Fatalf("%s returned another manifest", name)
		}
	}
	get("warm-up", cv, new(time.Duration))
	get("warm-up", orig, new(time.Duration))
	cvCount.reset()
	origCount.reset()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			get("chunkview", cv, &cvTime)
			get("original", orig, &origTime)
		} else {
			get("original", orig, &origTime)
			get("chunkview", cv, &cvTime)
		}
		n++
	}
	b.StopTimer()
	b.ReportMetric(float64(cvTime.Milliseconds())/float64(n), "chunkview-ms/get")
	b.ReportMetric(float64(origTime.Milliseconds())/float64(n), "original-ms/get")
	b.ReportMetric(float64(cvTime)/float64(origTime), "ratio")
	b.ReportMetric(float64(cvCount.reqs.Load())/float64(n), "chunkview-req/get")
	b.ReportMetric(float64(origCount.reqs.Load())/float64(n), "original-req/get")
}

func BenchmarkDriverUpdate(b *testing.B) {
	for _, chunks := range benchChunks {
		b.Run(fmt.Sprintf("chunks=%d", chunks), func(b *testing.B) {
			d, counter, ns := benchDriver(b)
			defer benchWipe(b, ns)
			// Two contents that differ throughout, written in turn, so that every
			// update replaces every chunk.
			revs := []*release.Release{
				benchReleaseOfChunks(b, "update", 1, chunks, 5),
				benchReleaseOfChunks(b, "update", 1, chunks, 6),
			}
			k := storage.RecordKey("update", 1)
			if err := d.Create(k, revs[0]); err != nil {
				b.Fatal(err)
			}
			counter.reset()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := d.Update(k, revs[(i+1)%2]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			counter.report(b, b.N)
		})
	}
}

// BenchmarkDriverList lists 10 revisions of the given size: List decodes them all,
// as Helm's drivers do.
func BenchmarkDriverList(b *testing.B) {
	const records = 10
	for _, chunks := range benchChunks {
		b.Run(fmt.Sprintf("chunks=%d", chunks), func(b *testing.B) {
			d, counter, ns := benchDriver(b)
			defer benchWipe(b, ns)
			rls := benchReleaseOfChunks(b, "list", 1, chunks, 7)
			for v := 1; v <= records; v++ {
				rls.Version = v
				if err := d.Create(storage.RecordKey(rls.Name, v), rls); err != nil {
					b.Fatal(err)
				}
			}
			counter.reset()
			b.ResetTimer()
			for b.Loop() {
				got, err := d.List(func(*release.Release) bool { return true })
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != records {
					b.Fatalf("listed %d releases, want %d", len(got), records)
				}
			}
			b.StopTimer()
			counter.report(b, b.N)
		})
	}
}
