package kube

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
)

// Discovery is what reads of the APIs the cluster serves go through (the
// controllers' discovery in kube/owner): the cached discovery ServedAPIs
// filled, while it holds that pass, so that a command that checks APIs makes
// one discovery pass and not two; else the clientset's own, which asks the
// server each time (a session that lasts sees an API installed since).
func (c *Client) Discovery() discovery.DiscoveryInterface {
	if c.live != nil && c.live.warm.Load() {
		if lc, err := c.live.get(); err == nil && lc.Discovery != nil {
			return lc.Discovery
		}
	}
	return c.cs.Discovery()
}

// InvalidateDiscovery forgets what discovery said, for the live views'
// RESTMapper and ServedAPIs alike: a session that lasts (the TUI) calls it
// when it reads again, so that a CRD that dropped a version since is seen.
// The mapper keeps its own mapping, built from the cache once: invalidating
// the cache alone would leave it mapping a version no longer served (it
// re-discovers only on a miss), so it is reset too, which invalidates the
// cache under the mapper's own lock.
func (c *Client) InvalidateDiscovery() {
	if c.live == nil {
		return
	}
	c.live.warm.Store(false)
	c.live.forgetVersion()
	lc, err := c.live.get()
	if err != nil {
		return
	}
	if m, ok := lc.Mapper.(meta.ResettableRESTMapper); ok {
		m.Reset()
		return
	}
	if lc.Discovery != nil {
		lc.Discovery.Invalidate()
	}
}

// FreshDiscovery forgets what discovery said (InvalidateDiscovery), then
// answers every later read of the APIs served (Discovery, ServedAPIs, the
// server's version, the live views' RESTMapper) from one new pass, until the
// next InvalidateDiscovery: an operation calls it once, so that its controller
// checks, its removed-APIs warning and Helm's kube clients read discovery once
// between them, and afresh.
func (c *Client) FreshDiscovery() {
	if c.live == nil {
		return
	}
	c.InvalidateDiscovery()
	c.live.warm.Store(true)
}

// ServerVersion returns the API server's version, read once per discovery pass
// (until InvalidateDiscovery): ServedAPIs and Helm's kube clients under an
// operation share it. On a connection without live objects it asks the
// clientset each time.
func (c *Client) ServerVersion() (*version.Info, error) {
	if c.live == nil {
		return c.cs.Discovery().ServerVersion()
	}
	dc := c.Discovery()
	return c.live.serverVersion(dc)
}
