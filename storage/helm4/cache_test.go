package helm4_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	helmstorage "helm.sh/helm/v4/pkg/storage"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// requestCounter counts the requests that cross a connection.
type requestCounter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// TestCacheSteadyState: Helm 4's reads through a driver with the release cache
// make no request and decode nothing once the cache holds the records, and every
// field of Helm 4's release survives, byte for byte, the copy the cache hands out.
func TestCacheSteadyState(t *testing.T) {
	ns, secrets := newNamespace(t)
	cfg := chunked.Config{ChunkSize: chunkSize}
	var written []*rspb.Release
	for v := 1; v <= 3; v++ {
		st := common.StatusSuperseded
		if v == 3 {
			st = common.StatusDeployed
		}
		r := fullRelease("steady4", v, st, 10<<10, uint64(v))
		if err := helm4.NewDriver(secrets, testOwner, cfg).Create(key("steady4", v), r); err != nil {
			t.Fatal(err)
		}
		written = append(written, r)
	}

	counter := &requestCounter{}
	rcfg := rest.CopyConfig(cluster.Config)
	rcfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	cs, err := kubernetes.NewForConfig(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := chunked.NewReleaseCache(cs.CoreV1(), chunked.ReleaseCacheOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rc.Start(ctx) }()
	if !rc.WaitForStart(ctx) {
		t.Fatal("the release cache did not start")
	}
	cfg.Cache = rc.Namespace(ns)

	reads := func() {
		h := helmstorage.Init(helm4.NewChunkedSecrets(cs.CoreV1().Secrets(ns), testOwner, cfg))
		hist, err := h.History("steady4")
		if err != nil || len(hist) != 3 {
			t.Fatalf("history: %d, %v", len(hist), err)
		}
		for _, r := range hist {
			rel := r.(*rspb.Release)
			mustSameRelease(t, "history", written[rel.Version-1], rel)
		}
		last, err := h.Last("steady4")
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "last", written[2], last)
		dep, err := h.Deployed("steady4")
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "deployed", written[2], dep)
		got, err := h.Get("steady4", 1)
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "get", written[0], got)
	}
	reads()
	counter.n.Store(0)
	before := rc.Stats()
	reads()
	if n := counter.n.Load(); n != 0 {
		t.Errorf("steady-state reads made %d requests, want 0", n)
	}
	if d := rc.Stats().Decodes - before.Decodes; d != 0 {
		t.Errorf("steady-state reads decoded %d records, want 0", d)
	}
}
