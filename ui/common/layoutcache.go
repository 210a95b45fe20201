package common

import (
	"sync"

	"github.com/chunkview/chunkview/kube"
)

// LayoutCache holds the largest Secret of layouts seen, by record (see RowID).
// Safe for concurrent use.
type LayoutCache struct {
	mu      sync.Mutex
	largest map[string]int
}

// NewLayoutCache returns an empty cache.
func NewLayoutCache() *LayoutCache { return &LayoutCache{largest: map[string]int{}} }

// Put remembers n, the size of the largest Secret of row's layout.
func (lc *LayoutCache) Put(row kube.RevisionRow, n int) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.largest[RowID(row)] = n
}

func (lc *LayoutCache) get(row kube.RevisionRow) (int, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	n, ok := lc.largest[RowID(row)]
	return n, ok
}

// RowID names one record as it is now: by store too, since a ConfigMap may share
// a Secret's name.
func RowID(r kube.RevisionRow) string {
	return StoreOf(r.Driver) + ":" + r.StorageNamespace + "/" + r.Key + "@" + r.ResourceVersion
}
