package storage_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// cacheChunk is the chunk size of the cache tests: small, so that each record has a
// few chunks.
const cacheChunk = 16 << 10

// countedClient returns a clientset of the test cluster whose requests are counted.
func countedClient(t *testing.T) (kubernetes.Interface, *benchCounter) {
	t.Helper()
	counter := &benchCounter{}
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, counter
}

// startCache starts a release cache over cs until the test ends.
func startCache(t *testing.T, cs kubernetes.Interface, opts storage.ReleaseCacheOptions, wrap func(toolscache.ListerWatcher) toolscache.ListerWatcher) *storage.ReleaseCache {
	t.Helper()
	rc := storage.NewReleaseCache(cs.CoreV1(), opts)
	if wrap != nil {
		storage.WrapCacheWatch(rc, wrap)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rc.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cache Start: %v", err)
		}
	})
	if !rc.WaitForStart(ctx) {
		t.Fatal("the release cache did not start")
	}
	return rc
}

// seedHistory writes revisions 1..n of name through a driver without a cache; the
// last is deployed, the others superseded. Each compresses to about payload bytes.
func seedHistory(t *testing.T, d *storage.ChunkedSecrets, name string, n, payload int) []*release.Release {
	t.Helper()
	var out []*release.Release
	for v := 1; v <= n; v++ {
		st := release.StatusSuperseded
		if v == n {
			st = release.StatusDeployed
		}
		r := testRelease(name, v, st, payload)
		if err := d.Create(key(name, v), r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestCacheSteadyStateReadsNothing: once the cache has read a release's records,
// Helm's reads (History, Get, Last, Deployed, a Query of custom labels) make no
// request to the API server and decode nothing, and return what was written, as
// helm-operator-plugins' driver reads it from the API server.
func TestCacheSteadyStateReadsNothing(t *testing.T) {
	ns, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: cacheChunk}
	written := seedHistory(t, storage.NewDriver(secrets, testOwner, cfg), "steady", 3, 40<<10)

	cs, counter := countedClient(t)
	rc := startCache(t, cs, storage.ReleaseCacheOptions{}, nil)
	cfg.Cache = rc.Namespace(ns)
	reads := func() []*release.Release {
		// A fresh driver per pass, as operator-controller builds one per action.
		h := helmstorage.Init(storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), testOwner, cfg))
		hist, err := h.History("steady")
		if err != nil {
			t.Fatal(err)
		}
		last, err := h.Last("steady")
		if err != nil {
			t.Fatal(err)
		}
		dep, err := h.Deployed("steady")
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Get("steady", 2)
		if err != nil {
			t.Fatal(err)
		}
		team, err := h.Driver.Query(map[string]string{"name": "steady", "owner": "helm", "team": "payments"})
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 3 || len(team) != 3 || last.Version != 3 || dep.Version != 3 || got.Version != 2 {
			t.Fatalf("history %d, team query %d, last v%d, deployed v%d, get v%d", len(hist), len(team), last.Version, dep.Version, got.Version)
		}
		return hist
	}
	reads() // the cache reads the records once
	counter.reset()
	before := rc.Stats()
	hist := reads()
	after := rc.Stats()
	if n := counter.reqs.Load(); n != 0 {
		t.Errorf("steady-state reads made %d requests, want 0", n)
	}
	if d := after.Decodes - before.Decodes; d != 0 {
		t.Errorf("steady-state reads decoded %d records, want 0", d)
	}
	if after.ReleaseHits <= before.ReleaseHits {
		t.Errorf("no decoded release was reused: %+v", after)
	}

	// The oracle: helm-operator-plugins' driver, reading the API server.
	ref := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{})
	for _, r := range hist {
		want, err := ref.Get(key(r.Name, r.Version))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, want, r)
		mustEqualRelease(t, written[r.Version-1], r)
	}
}

// watchGate holds back the events of the watches it wraps while it is closed, as
// an informer that has not delivered a write yet.
type watchGate struct {
	mu      sync.Mutex
	closed  bool
	opened  chan struct{}
	watches int
}

func newWatchGate() *watchGate { return &watchGate{opened: make(chan struct{})} }

func (g *watchGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.closed, g.opened = true, make(chan struct{})
	}
}

func (g *watchGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.closed = false
		close(g.opened)
	}
}

// wait returns once the gate is open.
func (g *watchGate) wait(stop <-chan struct{}) bool {
	g.mu.Lock()
	ch, closed := g.opened, g.closed
	g.mu.Unlock()
	if !closed {
		return true
	}
	select {
	case <-ch:
		return true
	case <-stop:
		return false
	}
}

func (g *watchGate) wrap(lw toolscache.ListerWatcher) toolscache.ListerWatcher {
	return &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return lw.(toolscache.ListerWatcherWithContext).ListWithContext(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := lw.(toolscache.ListerWatcherWithContext).WatchWithContext(ctx, opts)
			if err != nil {
				return nil, err
			}
			g.mu.Lock()
			g.watches++
			g.mu.Unlock()
			return g.hold(w), nil
		},
	}
}

// hold forwards w's events, each once the gate is open.
func (g *watchGate) hold(w watch.Interface) watch.Interface {
	out := make(chan watch.Event)
	stop := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range w.ResultChan() {
			if !g.wait(stop) {
				return
			}
			select {
			case out <- ev:
			case <-stop:
				return
			}
		}
	}()
	return &heldWatch{Interface: w, out: out, stop: stop}
}

type heldWatch struct {
	watch.Interface
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

func (h *heldWatch) ResultChan() <-chan watch.Event { return h.out }
func (h *heldWatch) Stop() {
	h.once.Do(func() { close(h.stop) })
	h.Interface.Stop()
}

// TestCacheReadsItsOwnWrites: a read through the cache after a create, an update
// or a delete made through a driver of the cache sees it, also while the informer
// holds the write back: the read waits for it, then reads the API server.
func TestCacheReadsItsOwnWrites(t *testing.T) {
	ns, _ := newNamespace(t)
	cs, _ := countedClient(t)
	gate := newWatchGate()
	rc := startCache(t, cs, storage.ReleaseCacheOptions{WriteWait: 200 * time.Millisecond}, gate.wrap)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: cacheChunk, Cache: rc.Namespace(ns)}
	newDriver := func() *storage.ChunkedSecrets {
		return storage.NewDriver(cs.CoreV1().Secrets(ns), testOwner, cfg)
	}
	// The informer starts, and syncs, on the first read.
	if _, err := newDriver().Query(map[string]string{"name": "ryw", "owner": "helm"}); !errors.Is(err, driver.ErrReleaseNotFound) {
		t.Fatalf("query of no records: %v", err)
	}

	gate.close()
	r1 := testRelease("ryw", 1, release.StatusDeployed, 40<<10)
	if err := newDriver().Create(key("ryw", 1), r1); err != nil {
		t.Fatal(err)
	}
	got, err := newDriver().Get(key("ryw", 1))
	if err != nil {
		t.Fatalf("get after create, the informer held back: %v", err)
	}
	mustEqualRelease(t, r1, got)
	hist, err := helmstorage.Init(newDriver()).History("ryw")
	if err != nil || len(hist) != 1 {
		t.Fatalf("history after create: %d records, %v", len(hist), err)
	}
	late := rc.Stats().Fallbacks["a write made through the cache is not delivered yet"]
	if late == 0 {
		t.Fatalf("the reads did not wait for the held-back create: %+v", rc.Stats())
	}

	// Update: Helm marks the release it read superseded and writes it back.
	got.Info.Status = release.StatusSuperseded
	if err := newDriver().Update(key("ryw", 1), got); err != nil {
		t.Fatal(err)
	}
	again, err := newDriver().Get(key("ryw", 1))
	if err != nil || again.Info.Status != release.StatusSuperseded {
		t.Fatalf("get after update: %v, %v", again, err)
	}

	// The informer delivers everything: the reads come from the cache again.
	gate.open()
	cached := func() bool {
		before := rc.Stats()
		r, err := newDriver().Get(key("ryw", 1))
		after := rc.Stats()
		return err == nil && r.Info.Status == release.StatusSuperseded && after.ReleaseHits+after.ReleaseMisses > before.ReleaseHits+before.ReleaseMisses
	}
	for i := 0; !cached(); i++ {
		if i == 100 {
			t.Fatalf("reads never came from the cache once the informer had delivered the writes: %+v", rc.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}

	gate.close()
	if _, err := newDriver().Delete(key("ryw", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := newDriver().Get(key("ryw", 1)); !errors.Is(err, driver.ErrReleaseNotFound) {
		t.Fatalf("get after delete, the informer held back: %v, want not found", err)
	}
	if _, err := newDriver().Query(map[string]string{"name": "ryw", "owner": "helm"}); !errors.Is(err, driver.ErrReleaseNotFound) {
		t.Fatalf("history after delete, the informer held back: %v, want not found", err)
	}
	gate.open()
}

// TestCacheNoLostUpdate: another writer (helm-operator-plugins' driver) updates a
// record, and the informer has not delivered it when a driver of the cache reads
// the record and writes it back: the write fails with ErrConflict, and the other
// writer's record stands.
func TestCacheNoLostUpdate(t *testing.T) {
	ns, secrets := newNamespace(t)
	cs, _ := countedClient(t)
	gate := newWatchGate()
	rc := startCache(t, cs, storage.ReleaseCacheOptions{}, gate.wrap)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: cacheChunk, Cache: rc.Namespace(ns)}
	seedHistory(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: cacheChunk}), "lost", 1, 40<<10)
	ours := storage.NewDriver(cs.CoreV1().Secrets(ns), testOwner, cfg)
	if _, err := ours.Get(key("lost", 1)); err != nil { // the cache holds it now
		t.Fatal(err)
	}

	gate.close()
	other := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: cacheChunk})
	theirs := testRelease("lost", 1, release.StatusFailed, 40<<10)
	theirs.Info.Description = "written by the other writer"
	if err := other.Update(key("lost", 1), theirs); err != nil {
		t.Fatal(err)
	}
	d := storage.NewDriver(cs.CoreV1().Secrets(ns), testOwner, cfg)
	stale, err := d.Get(key("lost", 1))
	if err != nil {
		t.Fatal(err)
	}
	if stale.Info.Status != release.StatusDeployed {
		t.Fatalf("the read saw the other writer's update (%s): the informer did not hold it back, nothing raced", stale.Info.Status)
	}
	stale.Info.Status = release.StatusSuperseded
	err = d.Update(key("lost", 1), stale)
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update of a stale read: %v, want ErrConflict", err)
	}
	gate.open()
	got, err := other.Get(key("lost", 1))
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != release.StatusFailed || got.Info.Description != "written by the other writer" {
		t.Fatalf("the other writer's update was lost: %s %q", got.Info.Status, got.Info.Description)
	}
}

// TestCacheHandsOutCopies: what Helm changes in a release it read through the cache
// never reaches the release the cache holds.
func TestCacheHandsOutCopies(t *testing.T) {
	ns, secrets := newNamespace(t)
	seedHistory(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: cacheChunk}), "copies", 1, 40<<10)
	cs, _ := countedClient(t)
	rc := startCache(t, cs, storage.ReleaseCacheOptions{}, nil)
	d := storage.NewDriver(cs.CoreV1().Secrets(ns), testOwner, storage.ChunkedSecretsConfig{ChunkSize: cacheChunk, Cache: rc.Namespace(ns)})
	want := testRelease("copies", 1, release.StatusDeployed, 40<<10)
	// The first read decodes and holds the release, the second is handed the one
	// held: both must be copies.
	for i := 0; i < 2; i++ {
		if _, err := d.Get(key("copies", 1)); err != nil {
			t.Fatal(err)
		}
		changeRelease(t, d)
	}
	before := rc.Stats()
	second, err := d.Get(key("copies", 1))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Stats().Decodes != before.Decodes || rc.Stats().ReleaseHits == before.ReleaseHits {
		t.Fatal("the read decoded the record again: it did not come from the cache")
	}
	mustEqualRelease(t, want, second)
	if second.Config["replicas"] != float64(1) || second.Labels["team"] != "payments" || second.Chart.Metadata.Version != "1.2.3" {
		t.Fatalf("a change to a release read reached the cache: replicas %v, team %q, chart %s", second.Config["replicas"], second.Labels["team"], second.Chart.Metadata.Version)
	}
}

// changeRelease reads a release and changes it as Helm may: its status, its
// values, its labels, its chart and its manifest.
func changeRelease(t *testing.T, d *storage.ChunkedSecrets) {
	t.Helper()
	first, err := d.Get(key("copies", 1))
	if err != nil {
		t.Fatal(err)
	}
	first.Info.Status = release.StatusSuperseded
	first.Config["replicas"] = float64(99)
	first.Labels["team"] = "changed"
	first.Chart.Metadata.Version = "9.9.9"
	first.Manifest = "changed"
}

// TestCacheBounds: the slices and the decoded releases the cache holds stay under
// their bounds whatever is read, the least recently used going first, and reads
// stay right.
func TestCacheBounds(t *testing.T) {
	ns, secrets := newNamespace(t)
	live := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: cacheChunk})
	var written []*release.Release
	for _, name := range []string{"b1", "b2", "b3", "b4"} {
		written = append(written, seedHistory(t, live, name, 2, 40<<10)...)
	}
	const maxChunks, maxReleases = 5 * cacheChunk, 300 << 10
	cs, _ := countedClient(t)
	rc := startCache(t, cs, storage.ReleaseCacheOptions{MaxChunkBytes: maxChunks, MaxReleaseBytes: maxReleases}, nil)
	d := storage.NewDriver(cs.CoreV1().Secrets(ns), testOwner, storage.ChunkedSecretsConfig{ChunkSize: cacheChunk, Cache: rc.Namespace(ns)})
	for pass := 0; pass < 2; pass++ {
		for _, w := range written {
			got, err := d.Get(key(w.Name, w.Version))
			if err != nil {
				t.Fatal(err)
			}
			mustEqualRelease(t, w, got)
			s := rc.Stats()
			if s.ChunkBytes > maxChunks || s.ReleaseBytes > maxReleases {
				t.Fatalf("the cache holds %d bytes of slices (bound %d) and %d of releases (bound %d)", s.ChunkBytes, maxChunks, s.ReleaseBytes, maxReleases)
			}
		}
	}
	s := rc.Stats()
	if s.ChunkEvictions == 0 || s.ReleaseEvictions == 0 || s.ChunkEntries == 0 || s.ReleaseEntries == 0 {
		t.Fatalf("the reads did not fill the cache past its bounds: %+v", s)
	}
}
