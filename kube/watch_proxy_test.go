package kube_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The watch's answers to a server that says it fell behind (410) and to one that
// will not serve watch at all (405), on the real API server: the fault proxy sits
// in front of it, chunkview connects through the proxy, and each rule is held to
// having fired.

// isWatch matches the watch requests of the index Secrets.
func isWatch(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" && strings.HasSuffix(r.URL.Path, "/secrets")
}

// lists returns the requests among reqs that list Secrets rather than watch them.
func lists(reqs []faultproxy.Request) []faultproxy.Request {
	var out []faultproxy.Request
	for _, r := range reqs {
		q, _ := url.ParseQuery(r.Query)
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/secrets") && q.Get("watch") != "true" {
			out = append(out, r)
		}
	}
	return out
}

// proxied starts a fault proxy in front of the test cluster and connects through
// it, following the chunked store of ns with owner.
func proxied(t *testing.T, ns, owner string) (*faultproxy.Proxy, *kube.Client) {
	t.Helper()
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	kc, err := p.WriteKubeconfig(t.TempDir(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return p, connect(t, kc, []string{"-n", ns, "--owner", owner, "--driver", "chunked"}, nil)
}

// TestWatchResyncsOnTheRealServer410: the watch is told its resourceVersion is
// too old, both ways the API server says it (an ERROR event carrying 410 Expired
// in the stream, and a 410 answer to the request), lists the store once more,
// says so, and follows it from there on the real server: a revision written
// afterwards arrives.
func TestWatchResyncsOnTheRealServer410(t *testing.T) {
	ns := cluster.Namespace(t)
	const owner = "gone-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, makeRelease("app", ns, 1, release.StatusDeployed, 0))
	p, c := proxied(t, ns, owner)

	for i, rule := range []faultproxy.Rule{
		{Kind: faultproxy.ExpireWatch, K: 1, Match: isWatch},
		{Kind: faultproxy.Status, Code: http.StatusGone, K: 1, Match: isWatch},
	} {
		t.Run(rule.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p.SetRule(rule)
			ch := c.Watch(ctx, kube.WatchOptions{})
			nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && ev.Initial })
			nextEvent(t, ch, "resynced after 410", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && !ev.Initial })
			if n := p.Fired(); n != 1 {
				t.Fatalf("the rule fired %d times, want once", n)
			}
			rev := 2 + i
			if err := d.Create(storage.RecordKey("app", rev), makeRelease("app", ns, rev, release.StatusPendingUpgrade, 0)); err != nil {
				t.Fatal(err)
			}
			nextEvent(t, ch, "a revision written after the resync", isRev(kube.WatchChanged, kube.DriverChunked, "app", rev, "pending-upgrade"))
			reqs := p.Requests()
			if l := lists(reqs); len(l) != 2 {
				t.Errorf("%d lists, want 2 (the first, then the resync): %v", len(l), reqs)
			}
			var watches, forwarded int
			for _, r := range reqs {
				if q, _ := url.ParseQuery(r.Query); q.Get("watch") == "true" {
					watches++
					if r.Forwarded {
						forwarded++
					}
				}
			}
			if watches != 2 || forwarded != 1 {
				t.Errorf("%d watches, %d of them reaching the server; want the one answered 410, then one from the resync's list: %v", watches, forwarded, reqs)
			}
		})
	}
}

// TestWatchPollsOnTheRealServer405: a proxy in front of the real API server that
// answers every watch with 405 Method Not Allowed makes the watch say it polls,
// and changes arrive by listing: a revision added, then one deleted. No watch
// reaches the server.
func TestWatchPollsOnTheRealServer405(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := cluster.Namespace(t)
	const owner = "noproxy-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, makeRelease("app", ns, 1, release.StatusDeployed, 0))
	p, c := proxied(t, ns, owner)

	p.SetRule(faultproxy.Rule{Kind: faultproxy.Status, Code: http.StatusMethodNotAllowed, Match: isWatch})
	ch := c.Watch(ctx, kube.WatchOptions{PollInterval: 200 * time.Millisecond})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && ev.Initial })
	ev := nextEvent(t, ch, "polling", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchMode })
	if !ev.Polling || !strings.Contains(ev.Note, "405") {
		t.Errorf("mode event %+v, want polling, saying 405", ev)
	}
	if err := d.Create(storage.RecordKey("app", 2), makeRelease("app", ns, 2, release.StatusPendingUpgrade, 0)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "revision 2 by polling", isRev(kube.WatchChanged, kube.DriverChunked, "app", 2, "pending-upgrade"))
	if _, err := d.Delete(storage.RecordKey("app", 1)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "revision 1 deleted by polling", isRev(kube.WatchDeleted, kube.DriverChunked, "app", 1, ""))
	if p.Fired() == 0 {
		t.Fatal("the 405 rule never fired")
	}
	reqs := p.Requests()
	for _, r := range reqs {
		if q, _ := url.ParseQuery(r.Query); q.Get("watch") == "true" && r.Forwarded {
			t.Errorf("a watch reached the server: %s", r)
		}
	}
	if l := lists(reqs); len(l) < 3 {
		t.Errorf("%d lists, want the first and at least two polls: %v", len(l), reqs)
	}
}
