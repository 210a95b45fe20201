package kube

import (
	"container/list"
	"encoding/json"
	"sync"

	"helm.sh/helm/v3/pkg/release"
)

// DefaultDetailsCacheBytes bounds the decoded revisions a Client keeps, by their
// decoded size, when Config.DetailsCacheBytes is zero.
const DefaultDetailsCacheBytes = 256 << 20

// entryOverhead is what a cached entry costs beyond its payload: the row, the
// structs, the map entry. It also bounds the number of entries of failed decodes,
// which hold no release.
const entryOverhead = 1 << 10

// detailsCache keeps decoded revisions by storage namespace/key@resourceVersion,
// the least recently used going first once their decoded sizes add up to more
// than max. It is safe for concurrent use.
type detailsCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *cacheEntry, most recently used first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key  string
	d    *Details
	size int64
}

// newDetailsCache returns a cache of at most max bytes; max <= 0 keeps nothing.
func newDetailsCache(max int64) *detailsCache {
	return &detailsCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *detailsCache) get(key string) (*Details, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).d, true
}

// add keeps d under key, evicting the least recently used entries beyond the
// bound. An entry larger than the whole bound is not kept.
func (c *detailsCache) add(key string, d *Details) {
	size := detailsSize(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.remove(e)
	}
	if size > c.max {
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, d: d, size: size})
	c.size += size
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

func (c *detailsCache) remove(e *list.Element) {
	ce := e.Value.(*cacheEntry)
	c.order.Remove(e)
	delete(c.byKey, ce.key)
	c.size -= ce.size
}

// stats returns the number of entries and their size.
func (c *detailsCache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey), c.size
}

// detailsSize is what d costs in the cache: its release's decoded size, as
// recorded when known, else measured.
func detailsSize(d *Details) int64 {
	if d == nil || d.Release == nil {
		return entryOverhead
	}
	// The recorded size is an annotation anyone can write: never count less than
	// what the release measures.
	return entryOverhead + max(d.Row.Summary.DecodedBytes, releaseSize(d.Release))
}

// releaseSize measures the parts of a release that grow: manifest, notes, chart
// files and templates, and values.
func releaseSize(r *release.Release) int64 {
	n := int64(len(r.Manifest))
	if r.Info != nil {
		n += int64(len(r.Info.Notes) + len(r.Info.Description))
	}
	if ch := r.Chart; ch != nil {
		for _, f := range ch.Templates {
			n += int64(len(f.Name) + len(f.Data))
		}
		for _, f := range ch.Files {
			n += int64(len(f.Name) + len(f.Data))
		}
		if b, err := json.Marshal(ch.Values); err == nil {
			n += int64(len(b))
		}
	}
	if b, err := json.Marshal(r.Config); err == nil {
		n += int64(len(b))
	}
	for _, h := range r.Hooks {
		n += int64(len(h.Manifest))
	}
	return n
}
