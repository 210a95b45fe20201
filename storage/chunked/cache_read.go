package chunked

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// errNoCacheNamespace fails the reads of a driver given a ReleaseCache that is not
// a namespace's view.
var errNoCacheNamespace = errors.New("the driver configuration's Cache is not bound to a namespace: give it cache.Namespace(ns), ns being the namespace of the driver's Secret client")

// cachedRelease is a decoded release the cache holds, with the chunks its decode
// read (for the preconditions of a later update or delete).
type cachedRelease struct {
	rls  any
	refs []chunkRef
}

// cacheView returns the release cache view the core reads through, nil when it
// reads the API server: without a cache, and when held to a plan (Expect), whose
// records must be exactly the ones it names.
func (c *Core[T]) cacheView() *ReleaseCache {
	v := c.cfg.Cache
	if v == nil || v.cacheState == nil || c.reads.release != "" || c.cacheOff.Load() {
		return nil
	}
	return v
}

// cachedInformer returns the synced informer of the core's owner in its cache
// view's namespace once it has delivered every write made through the cache that
// want selects; nil when the read must go to the API server.
func (c *Core[T]) cachedInformer(ctx context.Context, v *ReleaseCache, what string, want func(string) bool) (*indexInformer, error) {
	if v.ns == "" {
		return nil, errNoCacheNamespace
	}
	inf := v.informer(ctx, v.ns, c.owner)
	if inf == nil {
		return nil, nil
	}
	if !inf.caughtUp(ctx, want) {
		v.fellBack("a write made through the cache is not delivered yet", what)
		return nil, nil
	}
	return inf, nil
}

// getCached is Get through the cache. ok is false when the read must go to the
// API server.
func (c *Core[T]) getCached(ctx context.Context, key string) (rls *T, ok bool, err error) {
	v := c.cacheView()
	if v == nil {
		return nil, false, nil
	}
	inf, err := c.cachedInformer(ctx, v, "get "+key, func(k string) bool { return k == key })
	if inf == nil {
		return nil, err != nil, err
	}
	idx := inf.get(key)
	if idx == nil {
		return nil, true, c.notFound
	}
	rls, idx, err = c.decodeCached(ctx, v, idx)
	if err != nil {
		v.fellBack(firstErrLine(err), "get "+key)
		return nil, false, nil
	}
	if err := c.reads.observe(idx, rls); err != nil {
		return nil, true, err
	}
	return rls, true, nil
}

// eachCached is decodeEach through the cache: it calls fn for every index the
// informer holds that sel selects, with its release. A record the cache cannot
// decode (a write in progress, or a chunk it no longer finds) is read from the API
// server alone, as decodeSettled reads it. ok is false when the whole read must go
// to the API server; fn has not been called then.
func (c *Core[T]) eachCached(ctx context.Context, sel labels.Selector, fn func(*corev1.Secret, *T, error) error) (seen map[string]bool, ok bool, err error) {
	v := c.cacheView()
	if v == nil {
		return nil, false, nil
	}
	release, named := sel.RequiresExactMatch(LabelName)
	want := func(key string) bool {
		name, _, _ := ParseKey(key)
		return !named || name == release
	}
	inf, err := c.cachedInformer(ctx, v, "list "+sel.String(), want)
	if inf == nil {
		return nil, err != nil, err
	}
	seen = map[string]bool{}
	for _, idx := range inf.list(sel) {
		rls, used, derr := c.decodeCached(ctx, v, idx)
		if derr != nil {
			v.fellBack(firstErrLine(derr), "read "+idx.Name)
			fresh, gerr := c.getIndex(ctx, idx.Name)
			if errors.Is(gerr, c.notFound) {
				continue // deleted meanwhile
			}
			if gerr != nil {
				return seen, true, gerr
			}
			rls, _, used, derr = c.decodeSettled(ctx, fresh, c.readDeadline())
			if errors.Is(derr, c.notFound) {
				continue
			}
		}
		seen[used.Name] = true
		if err := fn(used, rls, derr); err != nil {
			return seen, true, err
		}
	}
	return seen, true, nil
}

// decodeCached returns a copy of the release idx indexes, and the index it
// decoded: the decoded release held for idx's version, else the record decoded
// from the slices held and those fetched, then held. The index's data comes from
// the informer (KeepIndexData), the slices held, or a read of the index, which
// may find it at a later version: that one is decoded then.
func (c *Core[T]) decodeCached(ctx context.Context, v *ReleaseCache, idx *corev1.Secret) (*T, *corev1.Secret, error) {
	typ := reflect.TypeFor[T]()
	dk := decodedKey{ns: v.ns, key: idx.Name, rv: idx.ResourceVersion, typ: typ}
	if held, ok := v.decoded.get(dk); ok {
		cr := held.(cachedRelease)
		c.reads.sawChunks(idx.Name, idx.ResourceVersion, cr.refs)
		return deepCopy(cr.rls.(*T)), idx, nil
	}
	full, err := c.indexData(ctx, v, idx)
	if err != nil {
		return nil, idx, err
	}
	rls, _, refs, err := c.decodeChunks(ctx, full, nil, nil)
	if err != nil {
		return nil, full, err
	}
	v.decodes.Add(1)
	if v.opts.MaxReleaseBytes > 0 {
		dk.rv = full.ResourceVersion
		v.decoded.put(dk, cachedRelease{rls: rls, refs: refs}, heapSize(rls))
		return deepCopy(rls), full, nil
	}
	return rls, full, nil
}

// indexData returns idx with its data: as the informer holds it, from the slices
// held, or read again from the API server (at its current version).
func (c *Core[T]) indexData(ctx context.Context, v *ReleaseCache, idx *corev1.Secret) (*corev1.Secret, error) {
	if idx.Data != nil {
		return idx, nil
	}
	if held, ok := v.chunks.get(chunkKey{ns: v.ns, name: idx.Name, rv: idx.ResourceVersion}); ok {
		full := *idx
		full.Data = map[string][]byte{DataChunk: held.data, DataExtraChunks: held.extra}
		return &full, nil
	}
	fresh, err := c.getIndex(ctx, idx.Name)
	if err != nil {
		return nil, fmt.Errorf("read index %q: %w", idx.Name, err)
	}
	return fresh, nil
}

// heldChunk returns the slice of chunk name, as a cache holds it.
func (c *Core[T]) heldChunk(name string) (heldSlice, bool) {
	v := c.cfg.Cache
	if v == nil || v.cacheState == nil || v.ns == "" {
		return heldSlice{}, false
	}
	return v.chunks.get(chunkKey{ns: v.ns, name: name})
}

// holdChunk keeps the slice of a chunk just fetched and checked.
func (c *Core[T]) holdChunk(ref chunkRef, data []byte) {
	v := c.cfg.Cache
	if v == nil || v.cacheState == nil || v.ns == "" || v.opts.MaxChunkBytes <= 0 {
		return
	}
	v.chunks.put(chunkKey{ns: v.ns, name: ref.name}, heldSlice{data: data, ref: ref}, int64(len(data)))
}

// cacheWrote tells the cache about a write of key's index through this core that
// left it at rv, in namespace ns (deleted, when set), so that reads wait for the
// informer to deliver it. A write that lands in another namespace than the cache
// view's (a misconfiguration: the view must be the Secret client's namespace)
// turns the cache off for this core.
func (c *Core[T]) cacheWrote(key, ns, rv string, deleted bool) {
	v := c.cfg.Cache
	if v == nil || v.cacheState == nil || v.ns == "" {
		return
	}
	if ns != "" && ns != v.ns {
		if !c.cacheOff.Swap(true) {
			v.fellBack(fmt.Sprintf("the driver's Secret client writes to namespace %q, not the cache view's %q", ns, v.ns), "every read of this driver")
		}
		return
	}
	v.mu.Lock()
	inf := v.informers[informerKey{v.ns, c.owner}]
	v.mu.Unlock()
	if inf != nil {
		inf.wrote(key, rv, deleted)
	}
}
