package fakeapi

import (
	"fmt"
	"maps"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The hooks tests use to look into the cluster and to break it: request counts,
// injected failures, and the store's clock and compaction for seeding.

// Requests returns how many requests reached the cluster, by verb (see the Verb
// constants), failed ones included. The map is a copy.
func (c *Cluster) Requests() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.requests)
}

// Writes returns how many requests with one of WriteVerbs reached the cluster.
func (c *Cluster) Writes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range WriteVerbs {
		n += c.requests[v]
	}
	return n
}

// ResetRequests sets every count of Requests back to zero.
func (c *Cluster) ResetRequests() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.requests)
}

// FailRequest makes the n-th request from now with the given verb fail with err
// instead of being served (n = 1 is the next one). An empty verb matches every
// verb; a nil err becomes an internal server error. Each call arms one failure,
// which fires once.
func (c *Cluster) FailRequest(verb string, n int, err error) {
	if err == nil {
		err = apierrors.NewInternalError(fmt.Errorf("injected failure of %s request %d", verbOrAny(verb), n))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, &fault{verb: verb, left: max(n, 1), err: err})
}

func verbOrAny(v string) string {
	if v == "" {
		return "any"
	}
	return v
}

// Compact forgets the events kept for watches, as etcd's compaction does: a
// watch from an earlier resourceVersion gets 410 Gone.
func (c *Cluster) Compact() { c.store.compact() }

// Clock returns the function the cluster reads the time from (see SetClock).
func (c *Cluster) Clock() func() time.Time {
	c.store.mu.Lock()
	defer c.store.mu.Unlock()
	return c.store.now
}
