package chunked

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// Defaults of ReleaseCacheOptions.
const (
	// DefaultCacheChunkBytes bounds the slices a ReleaseCache holds.
	DefaultCacheChunkBytes = 64 << 20
	// DefaultCacheReleaseBytes bounds the decoded releases a ReleaseCache holds.
	DefaultCacheReleaseBytes = 256 << 20
	// DefaultCacheWriteWait is how long a read waits for the cache to see a write
	// made through it before it reads the API server instead.
	DefaultCacheWriteWait = 2 * time.Second
	// DefaultCacheSyncWait is how long a read waits for a new informer's first
	// list before it reads the API server instead.
	DefaultCacheSyncWait = 10 * time.Second
)

// ReleaseCacheOptions configures a ReleaseCache. Zero fields take the defaults.
type ReleaseCacheOptions struct {
	// MaxChunkBytes bounds the slices held: the chunk Secrets' data, and the first
	// slice of each index unless KeepIndexData holds them. Least recently used go
	// first. Zero means DefaultCacheChunkBytes; a negative value holds none.
	MaxChunkBytes int64
	// MaxReleaseBytes bounds the decoded releases held, by an estimate of their
	// memory. Least recently used go first. Zero means DefaultCacheReleaseBytes; a
	// negative value holds none, and every read decodes.
	MaxReleaseBytes int64
	// KeepIndexData holds the index Secrets' data (each record's first slice and
	// its chunk list) in the informers' stores, outside MaxChunkBytes. By default
	// the informers keep their metadata only and the data goes to the bounded
	// slice cache.
	KeepIndexData bool
	// WriteWait is how long a read waits for the informer to deliver a write made
	// through a driver of this cache before it reads the API server instead. Zero
	// means DefaultCacheWriteWait.
	WriteWait time.Duration
	// SyncWait is how long the first read of a namespace and owner waits for its
	// informer's first list before it reads the API server instead (RBAC may
	// forbid the watch). Zero means DefaultCacheSyncWait.
	SyncWait time.Duration
	// Log receives a line when the cache falls back to live reads, never release
	// data. Nil means no logging.
	Log func(string, ...interface{})
}

// ReleaseCache is the opt-in cached read path of chunked release drivers, shared by
// every driver built with it (Config.Cache; storage.ChunkedSecretsConfig.Cache for Helm 3), for both Helm majors.
// With it, a driver's Get, List and Query (so Helm's History, Last, Deployed and
// Get) make no request to the API server and decode nothing once it has seen the
// records they read:
//
//   - one informer per namespace and owner watches the index Secrets, selected by
//     their owner and type labels; it starts on the first read of that namespace
//     and owner;
//   - chunk Secrets are held by name, up to MaxChunkBytes, least recently used
//     first: they are immutable and named after their slice's hash, so a slice
//     held never goes stale;
//   - a decoded release is held while its index's resourceVersion is unchanged,
//     up to MaxReleaseBytes, and handed out as a deep copy, so that what Helm
//     changes in it never reaches the cache.
//
// Writes are not cached: Create, Update and Delete go to the API server with
// their preconditions, so a record another writer changed, and that the informer
// has not delivered yet, still fails the write with ErrConflict. A read after a
// write made through any driver of the cache sees that write: it waits, for up to
// WriteWait, for the informer to deliver it, and reads the API server if it has
// not. A driver held to a plan (Expect) reads the API server.
//
// Start runs the cache until its context ends; before it, and after, drivers read
// the API server. It is a controller-runtime Runnable: mgr.Add(cache). A driver
// uses the cache's view of one namespace, the namespace of its Secret client:
// Config{Cache: cache.Namespace(ns)}.
type ReleaseCache struct {
	*cacheState
	ns string
}

// cacheState is what every namespace view of a ReleaseCache shares.
type cacheState struct {
	secrets corev1client.SecretsGetter
	opts    ReleaseCacheOptions
	chunks  *byteLRU[chunkKey, heldSlice]
	decoded *byteLRU[decodedKey, any]

	mu        sync.Mutex
	ctx       context.Context // the Start context; nil until Start, done after
	started   chan struct{}   // closed by Start
	informers map[informerKey]*indexInformer

	// wrapWatch, when set, wraps the informers' sources (tests hold back their
	// events through it).
	wrapWatch func(toolscache.ListerWatcher) toolscache.ListerWatcher

	decodes   atomic.Int64
	fbMu      sync.Mutex
	fallbacks map[string]int64 // reads that went to the API server, by reason
}

// chunkKey names a slice held: a chunk Secret's, or an index's first slice at a
// resourceVersion (rv set).
type chunkKey struct{ ns, name, rv string }

// heldSlice is a slice held: a chunk Secret's, with the chunk as it was read
// (for the preconditions of a later delete), or an index's first slice with its
// extraChunks list.
type heldSlice struct {
	data, extra []byte
	ref         chunkRef
}

// decodedKey names a decoded release held: the record key's index at a version,
// decoded into a release of type typ.
type decodedKey struct {
	ns, key, rv string
	typ         reflect.Type
}

type informerKey struct{ ns, owner string }

// NewReleaseCache returns a release cache that lists and watches index Secrets
// through secrets (a clientset's CoreV1(): it needs list and watch on Secrets in
// the namespaces its drivers use, which a driver's own Secret client may not
// offer). It does nothing until Start.
func NewReleaseCache(secrets corev1client.SecretsGetter, opts ReleaseCacheOptions) *ReleaseCache {
	if opts.MaxChunkBytes == 0 {
		opts.MaxChunkBytes = DefaultCacheChunkBytes
	}
	if opts.MaxReleaseBytes == 0 {
		opts.MaxReleaseBytes = DefaultCacheReleaseBytes
	}
	if opts.WriteWait <= 0 {
		opts.WriteWait = DefaultCacheWriteWait
	}
	if opts.SyncWait <= 0 {
		opts.SyncWait = DefaultCacheSyncWait
	}
	if opts.Log == nil {
		opts.Log = func(string, ...interface{}) {}
	}
	return &ReleaseCache{cacheState: &cacheState{
		secrets:   secrets,
		opts:      opts,
		chunks:    newByteLRU[chunkKey, heldSlice](max(opts.MaxChunkBytes, 0)),
		decoded:   newByteLRU[decodedKey, any](max(opts.MaxReleaseBytes, 0)),
		informers: map[informerKey]*indexInformer{},
		fallbacks: map[string]int64{},
		started:   make(chan struct{}),
	}}
}

// Namespace returns the cache's view of namespace ns, for the drivers whose Secret
// client is in ns: Config{Cache: cache.Namespace(ns)}. Views share
// the cache's informers and bounds.
func (c *ReleaseCache) Namespace(ns string) *ReleaseCache {
	return &ReleaseCache{cacheState: c.cacheState, ns: ns}
}

// Start runs the cache's informers until ctx ends, and returns nil then. Drivers
// read the API server before Start and after ctx ends.
func (c *ReleaseCache) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.ctx != nil {
		c.mu.Unlock()
		return errors.New("release cache: already started")
	}
	c.ctx = ctx
	close(c.started)
	c.mu.Unlock()
	<-ctx.Done()
	return nil
}

// WaitForStart waits until Start runs the cache, or ctx ends, and reports
// whether it does: drivers read the API server until then. A controller whose
// manager starts the cache (mgr.Add) with its controllers need not wait.
func (c *ReleaseCache) WaitForStart(ctx context.Context) bool {
	select {
	case <-c.started:
		return true
	case <-ctx.Done():
		return false
	}
}

// NeedLeaderElection returns false: every replica of a controller reads, so
// every replica runs its cache (controller-runtime's LeaderElectionRunnable).
func (c *ReleaseCache) NeedLeaderElection() bool { return false }

// ReleaseCacheStats is what a ReleaseCache holds and how it was used.
type ReleaseCacheStats struct {
	// Running is whether Start runs the cache: drivers read through it only then.
	Running bool
	// Informers is the number of informers running, one per namespace and owner.
	Informers int
	// Indexes is the number of index Secrets the informers hold.
	Indexes int
	// ChunkEntries and ChunkBytes are the slices held; ChunkHits and ChunkMisses
	// count the reads of a slice that found it held or not.
	ChunkEntries           int
	ChunkBytes             int64
	ChunkHits, ChunkMisses int64
	ChunkEvictions         int64
	ReleaseEntries         int
	ReleaseBytes           int64
	ReleaseHits            int64
	ReleaseMisses          int64
	ReleaseEvictions       int64
	// Decodes counts the records decoded by reads through the cache.
	Decodes int64
	// Fallbacks counts the reads that went to the API server instead, by reason.
	Fallbacks map[string]int64
}

// Stats returns what the cache holds and how it was used.
func (c *ReleaseCache) Stats() ReleaseCacheStats {
	ch, de := c.chunks.stats(), c.decoded.stats()
	s := ReleaseCacheStats{
		ChunkEntries: ch.Entries, ChunkBytes: ch.Bytes, ChunkHits: ch.Hits, ChunkMisses: ch.Misses, ChunkEvictions: ch.Evictions,
		ReleaseEntries: de.Entries, ReleaseBytes: de.Bytes, ReleaseHits: de.Hits, ReleaseMisses: de.Misses, ReleaseEvictions: de.Evictions,
		Fallbacks: map[string]int64{},
	}
	c.mu.Lock()
	s.Running = c.ctx != nil && c.ctx.Err() == nil
	s.Informers = len(c.informers)
	for _, inf := range c.informers {
		s.Indexes += len(inf.informer.GetStore().ListKeys())
	}
	c.mu.Unlock()
	c.fbMu.Lock()
	maps.Copy(s.Fallbacks, c.fallbacks)
	c.fbMu.Unlock()
	s.Decodes = c.decodes.Load()
	return s
}

// fellBack counts a read that went to the API server for reason, and logs it.
func (c *cacheState) fellBack(reason, what string) {
	c.fbMu.Lock()
	c.fallbacks[reason]++
	c.fbMu.Unlock()
	c.opts.Log("release cache: %s: %s; reading the API server", what, reason)
}

// informer returns the running, synced informer of ns and owner, starting it on
// first use; nil when the cache is not running or the informer has not synced
// within SyncWait (the read then goes to the API server).
func (c *cacheState) informer(ctx context.Context, ns, owner string) *indexInformer {
	c.mu.Lock()
	run := c.ctx
	if run == nil || run.Err() != nil {
		c.mu.Unlock()
		return nil
	}
	k := informerKey{ns, owner}
	inf, ok := c.informers[k]
	if !ok {
		var err error
		inf, err = newIndexInformer(c, ns, owner)
		if err != nil {
			c.mu.Unlock()
			c.fellBack("informer not made: "+err.Error(), fmt.Sprintf("namespace %q, owner %q", ns, owner))
			return nil
		}
		c.informers[k] = inf
		go inf.run(run)
	}
	c.mu.Unlock()
	if !inf.waitSynced(ctx, c.opts.SyncWait) {
		c.fellBack("informer not synced", fmt.Sprintf("namespace %q, owner %q", ns, owner))
		return nil
	}
	return inf
}

var _ toolscache.ResourceEventHandler = (*indexInformer)(nil)
