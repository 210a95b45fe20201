package kube_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The benchmarks below guard the listing paths of kube.Client against regressions:
// time, API requests (req/op) and response bytes (recvB/op) per call. The fleet-scale
// comparison with Helm lives in hack/bench (`make bench`).

// benchOwner is the owner label of the records the benchmarks write.
const benchOwner = "bench-owner"

// benchCounter counts requests and response bytes on a connection.
type benchCounter struct {
	next     http.RoundTripper
	reqs     atomic.Int64
	received atomic.Int64
}

func (c *benchCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.reqs.Add(1)
	resp, err := c.next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &benchBody{ReadCloser: resp.Body, n: &c.received}
	}
	return resp, err
}

func (c *benchCounter) reset() { c.reqs.Store(0); c.received.Store(0) }

func (c *benchCounter) report(b *testing.B, ops int) {
	if ops == 0 {
		return
	}
	b.ReportMetric(float64(c.reqs.Load())/float64(ops), "req/op")
	b.ReportMetric(float64(c.received.Load())/float64(ops), "recvB/op")
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

// benchClients returns a clientset and a metadata client on the test cluster whose
// requests counter counts.
func benchClients(b *testing.B, counter *benchCounter) (kubernetes.Interface, metadata.Interface) {
	b.Helper()
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return cs, md
}

// benchRelease returns revision rev of a small release (a few KB of manifests).
func benchRelease(name, ns string, rev, revisions int) *release.Release {
	st := release.StatusSuperseded
	if rev == revisions {
		st = release.StatusDeployed
	}
	ts := helmtime.Time{Time: time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(rev) * time.Hour)}
	var manifest string
	for i := range 4 {
		manifest += fmt.Sprintf("---\n# Source: web/templates/deploy-%d.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s-%d\n  namespace: %s\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n      - name: app\n        image: ghcr.io/example/web:v1.%d.%d\n", i, name, i, ns, rev%3+1, rev, i)
	}
	return &release.Release{
		Name: name, Namespace: ns, Version: rev, Manifest: manifest,
		Info: &release.Info{FirstDeployed: ts, LastDeployed: ts, Status: st, Description: "Upgrade complete"},
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "web", Version: fmt.Sprintf("1.%d.0", rev), AppVersion: "3.1", APIVersion: "v2"},
			Values: map[string]interface{}{"replicas": float64(1)}},
		Config: map[string]interface{}{"replicas": float64(rev%3 + 1)},
		Labels: map[string]string{"team": "bench"},
	}
}

// benchSeed stores releases × revisions records in ns through d, a few at a time.
func benchSeed(b *testing.B, d driver.Driver, ns string, releases, revisions int) {
	b.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for i := range releases {
		for rev := 1; rev <= revisions; rev++ {
			g.Go(func() error {
				r := benchRelease(fmt.Sprintf("rel-%04d", i), ns, rev, revisions)
				return d.Create(storage.RecordKey(r.Name, rev), r)
			})
		}
	}
	if err := g.Wait(); err != nil {
		b.Fatalf("seed %s: %v", ns, err)
	}
}

// BenchmarkReleases lists the releases of a namespace holding N index Secrets (N/10
// releases of 10 revisions), all written by chunkview: metadata only, no decoding.
func BenchmarkReleases(b *testing.B) {
	for _, n := range []int{100, 1000, 2000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			ns := cluster.Namespace(b)
			benchSeed(b, storage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), benchOwner, storage.ChunkedSecretsConfig{}), ns, n/10, 10)
			counter := &benchCounter{}
			cs, md := benchClients(b, counter)
			c := kube.New(cs, md, nil, kube.Config{Owner: benchOwner, Namespace: ns})
			ctx := context.Background()
			counter.reset()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rows, err := c.Releases(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if len(rows) != n/10 || !rows[0].Latest.Known {
					b.Fatalf("got %d rows (first known: %v), want %d known rows", len(rows), len(rows) > 0 && rows[0].Latest.Known, n/10)
				}
			}
			b.StopTimer()
			counter.report(b, b.N)
		})
	}
}

// BenchmarkHistory lists the 10 revisions of one release among 50.
func BenchmarkHistory(b *testing.B) {
	ns := cluster.Namespace(b)
	benchSeed(b, storage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), benchOwner, storage.ChunkedSecretsConfig{}), ns, 50, 10)
	counter := &benchCounter{}
	cs, md := benchClients(b, counter)
	c := kube.New(cs, md, nil, kube.Config{Owner: benchOwner, Namespace: ns})
	ctx := context.Background()
	counter.reset()
	b.ResetTimer()
	for b.Loop() {
		rows, err := c.History(ctx, ns, "rel-0007")
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) != 10 {
			b.Fatalf("got %d revisions, want 10", len(rows))
		}
	}
	b.StopTimer()
	counter.report(b, b.N)
}

// BenchmarkReleasesOriginalDriver lists 20 releases of 5 revisions written by
// helm-operator-plugins' driver, which records no summary: Releases plus FillDetails
// of the latest rows, as `chunkview ls` does, on a fresh client each time (the
// details cache starts empty). It must decode one payload per release, no more.
func BenchmarkReleasesOriginalDriver(b *testing.B) {
	const releases, revisions = 20, 5
	ns := cluster.Namespace(b)
	orig := hopstorage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), benchOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
	benchSeed(b, orig, ns, releases, revisions)
	counter := &benchCounter{}
	cs, md := benchClients(b, counter)
	ctx := context.Background()
	counter.reset()
	b.ResetTimer()
	for b.Loop() {
		c := kube.New(cs, md, nil, kube.Config{Owner: benchOwner, Namespace: ns})
		rows, err := c.Releases(ctx)
		if err != nil {
			b.Fatal(err)
		}
		todo := make([]*kube.RevisionRow, len(rows))
		for i := range rows {
			todo[i] = &rows[i].Latest
		}
		if err := c.FillDetails(ctx, todo); err != nil {
			b.Fatal(err)
		}
		if len(rows) != releases || !rows[0].Latest.Known {
			b.Fatalf("got %d rows, want %d known rows", len(rows), releases)
		}
	}
	b.StopTimer()
	counter.report(b, b.N)
}
