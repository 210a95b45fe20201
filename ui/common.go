package ui

import (
	"context"
	"sync"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// common is what every screen carries: the client it reads through, the shared
// styles and keys, the clock, and the size of the area it draws in. Screens embed it
// by value; the root updates each screen's size on resize.
type common struct {
	ctx    context.Context
	client *kube.Client
	styles *Styles
	keys   *KeyMap
	now    func() time.Time
	// layouts remembers the chunk layouts seen, so the release list can draw the
	// largest Secret's share exactly once a layout is known.
	layouts *layoutCache
	// kubeContext is the kube context the client reaches ("" when unknown);
	// contexts, when set, are those the view may switch to.
	kubeContext string
	contexts    *kube.Contexts

	width, height int
}

func (c *common) setSize(w, h int) { c.width, c.height = w, h }

// readOnly reports whether actions are refused.
func (c *common) readOnly() bool { return c.client.ReadOnly() }

// where names the context and namespace an action on namespace ns changes, for
// the dialogs that confirm it.
func (c *common) where(ns string) string {
	if c.kubeContext == "" {
		return "namespace " + ns
	}
	return "context " + c.kubeContext + " · namespace " + ns
}

// withClient returns a copy of c reading through client.
func (c common) withClient(client *kube.Client) common {
	c.client = client
	return c
}

// layoutCache holds the largest Secret of layouts seen, by record (see rowID).
// Safe for concurrent use.
type layoutCache struct {
	mu      sync.Mutex
	largest map[string]int
}

func newLayoutCache() *layoutCache { return &layoutCache{largest: map[string]int{}} }

func (lc *layoutCache) put(row kube.RevisionRow, l *storage.Layout) {
	n := l.Index.Bytes
	for _, c := range l.Chunks {
		n = max(n, c.Bytes)
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.largest[rowID(row)] = n
}

func (lc *layoutCache) get(row kube.RevisionRow) (int, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	n, ok := lc.largest[rowID(row)]
	return n, ok
}

// rowID names one record as it is now: by store too, since a ConfigMap may share
// a Secret's name.
func rowID(r kube.RevisionRow) string {
	return storeOf(r.Driver) + ":" + r.StorageNamespace + "/" + r.Key + "@" + r.ResourceVersion
}
