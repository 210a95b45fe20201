package kube

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
	"helm.sh/helm/v3/pkg/release"
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
func (ch *Checker) ServedAPIs(ctx context.Context) (*apis.Served, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ch.c.live == nil {
		// The demo's in-memory cluster serves release records only: its
		// discovery would call every object's API unserved.
		return nil, ErrNoLive
	}
	var dc discovery.DiscoveryInterface = ch.c.cs.Discovery()
	lc, err := ch.c.live.get()
	if err == nil && lc.Discovery != nil {
		dc = lc.Discovery
	}
	v, err := ch.c.live.serverVersion(dc)
	if err != nil {
		return nil, Explain(fmt.Errorf("read the server's version: %w", err), "get", "version", "")
	}
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil && len(groups) == 0 {
		return nil, Explain(fmt.Errorf("read the API versions the server serves: %w", err), "get", "discovery", "")
	}
	if lc != nil && lc.Discovery != nil {
		ch.c.live.warm.Store(true)
	}
	return apis.NewServed(groups, lists, err, apis.ServerVersion(v.Major, v.Minor)), nil
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
func (ch *Checker) CheckAPIs(ctx context.Context, row RevisionRow, served *apis.Served, opts apis.Options) (apis.Report, error) {
	rel, err := ch.c.Decode(ctx, row)
	if err != nil {
		return apis.Report{}, err
	}
	return apis.Check(APIRevision(rel), served, opts), nil
}

// CheckAPIsOf checks rows as CheckAPIs does, a few at a time (each decodes a
// record), and returns the reports by row (the same pointers). A row that
// cannot be decoded has no report; the first failure to reach the server is
// returned with the reports made.
func (ch *Checker) CheckAPIsOf(ctx context.Context, rows []*RevisionRow, served *apis.Served, opts apis.Options) (map[*RevisionRow]apis.Report, error) {
	out := make(map[*RevisionRow]apis.Report, len(rows))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fillWidth)
	for _, r := range rows {
		if r.Broken {
			continue
		}
		g.Go(func() error {
			d, err := ch.c.Details(gctx, *r)
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
