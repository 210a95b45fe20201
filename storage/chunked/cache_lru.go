package chunked

import (
	"container/list"
	"sync"
)

// byteLRU holds values up to a bound on the bytes they are counted at, and lets go
// of the least recently used first. A value larger than the whole bound is not
// held. It is safe for concurrent use.
type byteLRU[K comparable, V any] struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // of *lruEntry[K, V], most recent first
	items map[K]*list.Element

	hits, misses, evictions int64
}

type lruEntry[K comparable, V any] struct {
	key  K
	val  V
	size int64
}

func newByteLRU[K comparable, V any](max int64) *byteLRU[K, V] {
	return &byteLRU[K, V]{max: max, order: list.New(), items: map[K]*list.Element{}}
}

// get returns the value held under k, and makes it the most recently used.
func (l *byteLRU[K, V]) get(k K) (V, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.items[k]
	if !ok {
		l.misses++
		var zero V
		return zero, false
	}
	l.hits++
	l.order.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).val, true
}

// put holds v under k, counted at size bytes, and lets go of the least recently
// used values until the bound holds again.
func (l *byteLRU[K, V]) put(k K, v V, size int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.items[k]; ok {
		l.remove(e)
	}
	if size > l.max {
		return
	}
	l.items[k] = l.order.PushFront(&lruEntry[K, V]{key: k, val: v, size: size})
	l.used += size
	for l.used > l.max {
		l.remove(l.order.Back())
		l.evictions++
	}
}

// drop lets go of the value held under k, if any.
func (l *byteLRU[K, V]) drop(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.items[k]; ok {
		l.remove(e)
	}
}

func (l *byteLRU[K, V]) remove(e *list.Element) {
	ent := e.Value.(*lruEntry[K, V])
	l.order.Remove(e)
	delete(l.items, ent.key)
	l.used -= ent.size
}

// lruStats is what a byteLRU holds and how it was used.
type lruStats struct {
	Entries                 int
	Bytes                   int64
	Hits, Misses, Evictions int64
}

func (l *byteLRU[K, V]) stats() lruStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return lruStats{Entries: len(l.items), Bytes: l.used, Hits: l.hits, Misses: l.misses, Evictions: l.evictions}
}
