package kube_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// expireContinues answers the continued list requests it is told to with 410
// Gone, as an API server does once etcd compacted the revision a continue token
// reads at. Everything else goes through.
type expireContinues struct {
	mu sync.Mutex
	// left is how many continued requests are still to expire.
	left, expired int
}

func (e *expireContinues) wrap(rc *rest.Config) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && strings.Contains(req.URL.RawQuery, "continue=") {
				e.mu.Lock()
				expire := e.left > 0
				if expire {
					e.left--
					e.expired++
				}
				e.mu.Unlock()
				if expire {
					body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.","reason":"Expired","code":410}`
					return &http.Response{StatusCode: http.StatusGone, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(bytes.NewBufferString(body)), Request: req}, nil
				}
			}
			return rt.RoundTrip(req)
		})
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestListRestartsOnExpiredContinue: listings come in pages; when a continue token
// has expired the listing starts over and returns every record once, and after a
// few expiries in a row it gives up saying so.
func TestListRestartsOnExpiredContinue(t *testing.T) {
	defer kube.SetMetadataPage(3)()
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const owner = "paging-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 4096})
	var rels []*release.Release
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		rels = append(rels, makeRelease(name, ns, 1, release.StatusDeployed, 10_000))
	}
	seed(t, d, rels...)

	exp := &expireContinues{left: 1}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", owner}, func(o *kube.Options) {
		o.WrapConfig = func(rc *rest.Config) { wire.install(rc); exp.wrap(rc) }
	})
	rows, err := c.Releases(ctx)
	if err != nil {
		t.Fatalf("Releases: %v", err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Latest.Name)
	}
	if got := strings.Join(names, " "); got != "a b c d e f g" || exp.expired != 1 {
		t.Fatalf("Releases after an expired continue: %q (%d expired), want every release once", got, exp.expired)
	}
	// Page 1 and, once its continuation expired, pages 1 to 3 again reached the
	// server.
	if reqs := wire.Requests(); len(reqs) != 4 || strings.Contains(reqs[1].Query, "continue=") {
		t.Errorf("%d requests at the server, want 4, the second one starting over: %v", len(reqs), reqs)
	}

	// The chunk listing pages and restarts the same way.
	exp.left = 1
	all := make([]*kube.RevisionRow, len(rows))
	for i := range rows {
		all[i] = &rows[i].Latest
	}
	if err := kube.NewChecker(c).CheckHealth(ctx, all); err != nil {
		t.Fatalf("CheckHealth: %v", err)
	}
	if exp.expired != 2 {
		t.Errorf("the chunk listing met %d expired continues, want 1: it did not page", exp.expired-1)
	}
	for _, r := range all {
		if !r.Checked || r.Broken || r.Summary.Chunks < 2 {
			t.Errorf("%s after a restarted chunk listing: checked %v broken %v (%s), %d chunks", r.Name, r.Checked, r.Broken, r.Unchecked, r.Summary.Chunks)
		}
	}

	exp.left = 100
	_, err = c.Releases(ctx)
	if err == nil || !strings.Contains(err.Error(), "restarted 3 times") || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("Releases with continue tokens that always expire: %v", err)
	}
}
