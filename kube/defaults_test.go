package kube_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The defaults that ls, the TUI and the operations run with: every one of them
// builds its client with Options.Connect, which sets neither the read retry nor
// the details cache's bound. These tests connect that way and leave both unset.

// onRequest is a round tripper that calls hook before it sends each request.
type onRequest struct {
	next http.RoundTripper
	hook func(*http.Request)
}

func (o *onRequest) RoundTrip(req *http.Request) (*http.Response, error) {
	o.hook(req)
	return o.next.RoundTrip(req)
}

// TestDefaultReadRetryRidesOutAWrite: a record whose index names a chunk that
// does not exist yet (helm-operator-plugins writes the index before its chunks)
// reads whole once the chunk appears, with the read retry chunkview connects with
// by default: the read finds the chunk missing, reads the index again, and finds
// the chunk there. With no retry the read reports the record broken. The chunk is
// put back at the moment the read asks for the index again, so the outcome does
// not depend on timing. Details (the TUI, get, diff) and the driver the
// operations run Helm on are both checked.
func TestDefaultReadRetryRidesOutAWrite(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const owner = "retry-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, makeRelease("app", ns, 1, release.StatusDeployed, 40_000))
	key := storage.RecordKey("app", 1)
	indexPath := "/api/v1/namespaces/" + ns + "/secrets/" + key

	var (
		mu      sync.Mutex
		missing *corev1.Secret // the chunk taken away, until it is put back
		reads   atomic.Int32   // GETs of the index
		putBack atomic.Int32
	)
	hook := func(req *http.Request) {
		if req.Method != http.MethodGet || req.URL.Path != indexPath {
			return
		}
		reads.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if missing == nil || reads.Load() < 2 {
			return
		}
		// The read looks at the index again: the writer has stored the chunk by now.
		if _, err := secrets(ns).Create(req.Context(), missing, metav1.CreateOptions{}); err != nil {
			t.Errorf("put chunk %s back: %v", missing.Name, err)
		}
		missing = nil
		putBack.Add(1)
	}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", owner, "--driver", "chunked"}, func(o *kube.Options) {
		o.WrapConfig = func(rc *rest.Config) {
			rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &onRequest{next: rt, hook: hook} })
		}
	})
	if got := c.Config().Driver.ReadRetry; got != 0 {
		t.Fatalf("Connect set ReadRetry %v; this test is about the default it leaves to the driver", got)
	}
	rows, err := c.History(ctx, ns, "app")
	if err != nil || len(rows) != 1 {
		t.Fatalf("History: %v, %d rows", err, len(rows))
	}

	for _, tc := range []struct {
		what string
		read func() (*release.Release, error)
	}{
		{"Details", func() (*release.Release, error) {
			det, err := c.Details(ctx, rows[0])
			if err != nil {
				return nil, err
			}
			if det.Row.Broken {
				return nil, fmt.Errorf("broken: %s", det.Row.Problem)
			}
			return det.Release, nil
		}},
		{"the operations' driver", func() (*release.Release, error) {
			return storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), c.Config().Owner, kube.ChunkedConfig(c.Config().Driver, c.Metadata(), ns)).Get(key)
		}},
	} {
		mu.Lock()
		missing = takeChunk(t, ns, key)
		mu.Unlock()
		reads.Store(0)
		putBack.Store(0)
		rls, err := tc.read()
		if err != nil || rls == nil || rls.Version != 1 || !strings.Contains(rls.Manifest, "app-blob") {
			t.Errorf("%s of a record whose chunk appears when the read looks again: %v, %v; want revision 1 whole", tc.what, rls != nil, err)
		}
		if putBack.Load() != 1 {
			t.Errorf("%s read the index %d times: the chunk was put back %d times, want once (on the second read)", tc.what, reads.Load(), putBack.Load())
		}
	}
}

// TestDetailsCacheBoundByDefault: the cache of decoded revisions a client keeps
// when nothing sets its bound (Config.DetailsCacheBytes zero, as Connect leaves
// it) holds 256 MiB of decoded size, least recently used out first. Three records
// whose summaries claim 100 MiB decoded each (an annotation anyone may write; the
// cache counts the larger of it and what the release measures) fill it: after A
// and B, both are kept (A is read again for nothing, which makes B the least
// recently used); C then pushes B out, and keeps A and C.
func TestDetailsCacheBoundByDefault(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const owner = "cache-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	const claimed = 100 << 20
	for _, name := range []string{"a", "b", "c"} {
		seed(t, d, makeRelease(name, ns, 1, release.StatusDeployed, 0))
		claimDecoded(t, ns, storage.RecordKey(name, 1), claimed)
	}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", owner, "--driver", "chunked"}, func(o *kube.Options) { o.WrapConfig = wire.install })
	if got := c.Config().DetailsCacheBytes; got != 0 {
		t.Fatalf("Connect set DetailsCacheBytes %d; this test is about the default", got)
	}
	rows := map[string]kube.RevisionRow{}
	for _, name := range []string{"a", "b", "c"} {
		h, err := c.History(ctx, ns, name)
		if err != nil || len(h) != 1 {
			t.Fatalf("History %s: %v, %d rows", name, err, len(h))
		}
		if h[0].Summary.DecodedBytes != claimed {
			t.Fatalf("%s: the row's decoded size is %d, want the %d its annotation claims", name, h[0].Summary.DecodedBytes, claimed)
		}
		rows[name] = h[0]
	}
	// requests returns how many requests reading name's details sent.
	requests := func(name string) int {
		t.Helper()
		wire.Reset()
		det, err := c.Details(ctx, rows[name])
		if err != nil || det.Release == nil {
			t.Fatalf("Details %s: %v", name, err)
		}
		return len(wire.Requests())
	}
	steps := []struct {
		name   string
		cached bool
	}{
		{"a", false}, {"b", false},
		{"a", true}, // 200 MiB kept: under the bound
		{"c", false},
		{"c", true}, {"a", true},
		{"b", false}, // pushed out by c: 300 MiB is over the bound
	}
	for i, s := range steps {
		n := requests(s.name)
		if s.cached && n != 0 {
			t.Errorf("step %d: %s sent %d requests, want none: it should still be cached", i+1, s.name, n)
		}
		if !s.cached && n == 0 {
			t.Errorf("step %d: %s sent no request: it should not be cached (the default bound is %d MiB)", i+1, s.name, kube.DefaultDetailsCacheBytes>>20)
		}
	}
}

// claimDecoded rewrites the summary annotation of the index of key to claim
// decoded bytes of JSON.
func claimDecoded(t *testing.T, ns, key string, decoded int64) {
	t.Helper()
	idx, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(idx.Annotations[storage.AnnotationSummary]), &sum); err != nil {
		t.Fatalf("summary annotation of %s: %v", key, err)
	}
	sum["decodedBytes"] = decoded
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{storage.AnnotationSummary: string(js)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := secrets(ns).Patch(t.Context(), key, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch %s: %v", key, err)
	}
}
