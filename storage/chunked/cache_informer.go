package chunked

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// byRelease indexes an informer's index Secrets by their release's name.
const byRelease = "release"

// indexInformer watches the index Secrets of one namespace and owner, and follows
// the writes made through the cache's drivers until it has delivered them.
type indexInformer struct {
	cache     *cacheState
	ns, owner string
	informer  toolscache.SharedIndexInformer

	mu sync.Mutex
	// changed is closed, and replaced, each time the informer delivers an event.
	changed chan struct{}
	// maxRV is the highest resourceVersion delivered, when comparable.
	maxRV string
	// pending are the writes made through the cache's drivers that the informer
	// had not delivered when last looked at, by key.
	pending map[string]*pendingWrite
	synced  bool
}

// pendingWrite is a write made through a driver of the cache: the index written
// at rv, or deleted at rv (its version when it was deleted).
type pendingWrite struct {
	rv      string
	deleted bool
	// late is set once a read gave up waiting for it: later reads do not wait,
	// and read the API server until the informer delivers it.
	late bool
}

// indexListWatch is an informer's source: the owner's index Secrets of ns.
func (c *cacheState) indexListWatch(ns, owner string) toolscache.ListerWatcher {
	client := c.secrets.Secrets(ns)
	sel := IndexSelector(owner).String()
	return &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = sel
			return client.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = sel
			return client.Watch(ctx, opts)
		},
	}
}

func newIndexInformer(c *cacheState, ns, owner string) (*indexInformer, error) {
	lw := c.indexListWatch(ns, owner)
	if c.wrapWatch != nil {
		lw = c.wrapWatch(lw)
	}
	inf := toolscache.NewSharedIndexInformerWithOptions(lw, &corev1.Secret{}, toolscache.SharedIndexInformerOptions{
		Indexers:          toolscache.Indexers{byRelease: func(obj any) ([]string, error) { return []string{releaseOf(obj.(*corev1.Secret))}, nil }},
		ObjectDescription: "chunked release index Secrets of owner " + owner,
	})
	ii := &indexInformer{cache: c, ns: ns, owner: owner, informer: inf, changed: make(chan struct{}), pending: map[string]*pendingWrite{}}
	if err := inf.SetTransform(ii.transform); err != nil {
		return nil, err
	}
	if _, err := inf.AddEventHandler(ii); err != nil {
		return nil, err
	}
	return ii, nil
}

func (ii *indexInformer) run(ctx context.Context) { ii.informer.RunWithContext(ctx) }

// transform keeps what the cache needs of an index Secret: its metadata without
// managed fields, its type, and its data only when the cache keeps index data;
// otherwise the data goes to the bounded slice cache, under the index's name and
// resourceVersion.
func (ii *indexInformer) transform(obj any) (any, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return obj, nil
	}
	s.ManagedFields = nil
	if !ii.cache.opts.KeepIndexData && s.Data != nil {
		if ii.cache.opts.MaxChunkBytes > 0 {
			first, extra := s.Data[DataChunk], s.Data[DataExtraChunks]
			ii.cache.chunks.put(chunkKey{ns: ii.ns, name: s.Name, rv: s.ResourceVersion}, heldSlice{data: first, extra: extra}, int64(len(first)+len(extra)))
		}
		s.Data = nil
	}
	return s, nil
}

// OnAdd, OnUpdate and OnDelete wake the reads that wait for a write.
func (ii *indexInformer) OnAdd(obj any, _ bool) { ii.delivered(obj) }
func (ii *indexInformer) OnUpdate(_, obj any)   { ii.delivered(obj) }
func (ii *indexInformer) OnDelete(obj any)      { ii.delivered(obj) }

func (ii *indexInformer) delivered(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	ii.mu.Lock()
	defer ii.mu.Unlock()
	if s, ok := obj.(*corev1.Secret); ok && rvAfter(s.ResourceVersion, ii.maxRV) {
		ii.maxRV = s.ResourceVersion
	}
	close(ii.changed)
	ii.changed = make(chan struct{})
}

// waitSynced waits, for up to d, for the informer's first list.
func (ii *indexInformer) waitSynced(ctx context.Context, d time.Duration) bool {
	ii.mu.Lock()
	done := ii.synced
	ii.mu.Unlock()
	if done {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if !toolscache.WaitForCacheSync(ctx.Done(), ii.informer.HasSynced) {
		return false
	}
	ii.mu.Lock()
	ii.synced = true
	ii.mu.Unlock()
	return true
}

// get returns the index Secret of key as the informer holds it, or nil.
func (ii *indexInformer) get(key string) *corev1.Secret {
	obj, ok, err := ii.informer.GetStore().GetByKey(ii.ns + "/" + key)
	if err != nil || !ok {
		return nil
	}
	return obj.(*corev1.Secret)
}

// list returns the index Secrets the informer holds that sel selects, in the
// order of their names, as the API server lists them. A selector naming a release
// reads that release's records alone.
func (ii *indexInformer) list(sel labels.Selector) []*corev1.Secret {
	var objs []any
	if name, ok := sel.RequiresExactMatch(LabelName); ok {
		objs, _ = ii.informer.GetIndexer().ByIndex(byRelease, name)
	} else {
		objs = ii.informer.GetStore().List()
	}
	out := make([]*corev1.Secret, 0, len(objs))
	for _, o := range objs {
		if s := o.(*corev1.Secret); sel.Matches(labels.Set(s.Labels)) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Secret) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// wrote follows a write of key's index that left it at rv (deleted, when set).
func (ii *indexInformer) wrote(key, rv string, deleted bool) {
	ii.mu.Lock()
	defer ii.mu.Unlock()
	ii.pending[key] = &pendingWrite{rv: rv, deleted: deleted}
}

// caughtUp waits until the informer has delivered every write made through the
// cache's drivers to the keys that want selects, for up to WriteWait for a write
// not waited for before. It returns false when one is still missing: the read
// then goes to the API server.
func (ii *indexInformer) caughtUp(ctx context.Context, want func(key string) bool) bool {
	var timeout <-chan time.Time
	for {
		ii.mu.Lock()
		missing, late := 0, 0
		for key, p := range ii.pending {
			switch {
			case ii.delivers(key, p):
				delete(ii.pending, key)
			case want(key):
				missing++
				if p.late {
					late++
				}
			}
		}
		changed := ii.changed
		ii.mu.Unlock()
		if missing == 0 {
			return true
		}
		if late == missing {
			return false
		}
		if timeout == nil {
			t := time.NewTimer(ii.cache.opts.WriteWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
		case <-timeout:
			ii.markLate(want)
			return false
		case <-ctx.Done():
			return false
		}
	}
}

func (ii *indexInformer) markLate(want func(string) bool) {
	ii.mu.Lock()
	defer ii.mu.Unlock()
	for key, p := range ii.pending {
		if want(key) {
			p.late = true
		}
	}
}

// delivers reports whether the informer's store reflects the write p of key (it
// is called with ii.mu held).
func (ii *indexInformer) delivers(key string, p *pendingWrite) bool {
	cur := ii.get(key)
	if p.deleted {
		// Gone from the store, or there again at a later version (written anew).
		return cur == nil || (cur.ResourceVersion != p.rv && rvAfter(cur.ResourceVersion, p.rv))
	}
	if cur != nil && (cur.ResourceVersion == p.rv || rvAfter(cur.ResourceVersion, p.rv)) {
		return true
	}
	// Delivered, and changed or deleted since: the informer has delivered an
	// event at or past it.
	return ii.maxRV == p.rv || rvAfter(ii.maxRV, p.rv)
}

// rvAfter reports whether resourceVersion a is later than b. Versions that are
// not comparable (a server whose versions are not integers) are never after.
func rvAfter(a, b string) bool {
	if b == "" {
		return a != ""
	}
	n, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && n > 0
}
