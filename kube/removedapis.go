package kube

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"

	"github.com/chunkview/chunkview/kube/apis"
)

// ServedAPIs reads what the cluster serves, in one discovery pass: the
// server's version, then its groups and their resources (two aggregated
// documents on a server that serves them, as every supported one does),
// through the connection's cached discovery, which the live views' RESTMapper
// shares: status pays one request more for it, the version. On a connection
// without live objects (the demo's) it fails with ErrNoLive. A group version
// discovery could not read (an aggregated API whose backend is down) is kept
// as unknown: nothing in it is reported removed.
func (c *Client) ServedAPIs(ctx context.Context) (*apis.Served, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.live == nil {
		// The demo's in-memory cluster serves release records only: its
		// discovery would call every object's API unserved.
		return nil, ErrNoLive
	}
	var dc discovery.DiscoveryInterface = c.cs.Discovery()
	lc, err := c.live.get()
	if err == nil && lc.Discovery != nil {
		dc = lc.Discovery
	}
	v, err := c.serverVersion(dc)
	if err != nil {
		return nil, Explain(fmt.Errorf("read the server's version: %w", err), "get", "version", "")
	}
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil && len(groups) == 0 {
		return nil, Explain(fmt.Errorf("read the API versions the server serves: %w", err), "get", "discovery", "")
	}
	if lc != nil && lc.Discovery != nil {
		c.live.warm.Store(true)
	}
	return apis.NewServed(groups, lists, err, apis.ServerVersion(v.Major, v.Minor)), nil
}

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

// APIRevision is what detection reads of a decoded release: its manifest and
// its hooks' manifests.
func APIRevision(rel *release.Release) apis.Revision {
	r := apis.Revision{Manifest: rel.Manifest}
	for _, h := range rel.Hooks {
		if h != nil {
			r.Hooks = append(r.Hooks, apis.Hook{Name: h.Name, Manifest: h.Manifest})
		}
	}
	return r
}

// CheckAPIs decodes the revision of row (through the details cache) and
// reports its objects whose API the cluster, as served describes it, does not
// serve, or that are deprecated (and removed by opts.Target).
func (c *Client) CheckAPIs(ctx context.Context, row RevisionRow, served *apis.Served, opts apis.Options) (apis.Report, error) {
	rel, err := c.Decode(ctx, row)
	if err != nil {
		return apis.Report{}, err
	}
	return apis.Check(APIRevision(rel), served, opts), nil
}

// CheckAPIsOf checks rows as CheckAPIs does, a few at a time (each decodes a
// record), and returns the reports by row (the same pointers). A row that
// cannot be decoded has no report; the first failure to reach the server is
// returned with the reports made.
func (c *Client) CheckAPIsOf(ctx context.Context, rows []*RevisionRow, served *apis.Served, opts apis.Options) (map[*RevisionRow]apis.Report, error) {
	out := make(map[*RevisionRow]apis.Report, len(rows))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fillWidth)
	for _, r := range rows {
		if r.Broken {
			continue
		}
		g.Go(func() error {
			d, err := c.Details(gctx, *r)
			if err != nil {
				return err
			}
			if d.Release == nil {
				return nil // broken: the row's health says so
			}
			rep := apis.Check(APIRevision(d.Release), served, opts)
			mu.Lock()
			out[r] = rep
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
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
	return c.serverVersion(dc)
}

// serverVersion is ServerVersion read through dc when the pass has none.
func (c *Client) serverVersion(dc discovery.DiscoveryInterface) (*version.Info, error) {
	if c.live == nil {
		return dc.ServerVersion()
	}
	return c.live.serverVersion(dc)
}
