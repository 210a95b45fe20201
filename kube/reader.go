package kube

import (
	"context"
	"errors"
	"sync"

	"helm.sh/helm/v3/pkg/release"
)

// Details is what a revision's payload tells beyond its metadata.
type Details struct {
	Row     RevisionRow
	Release *release.Release
}

// reader decodes revisions through the store that holds each, and keeps what it
// decoded by resourceVersion (an LRU bounded by decoded size, see detailsCache):
// a record that has not changed is never decoded twice, whichever screen or step
// of an operation asks. A Client and its copies (WithNamespace, WithDrivers) share
// one reader.
type reader struct {
	cache *detailsCache
}

// cacheKey keys a decoded revision by store, storage namespace, key and
// resourceVersion: a ConfigMap and a Secret may share a name.
func cacheKey(r RevisionRow) string {
	return r.driver() + ":" + r.StorageNamespace + "/" + r.Key + "@" + r.ResourceVersion
}

// applyCached fills a row from what was decoded of its record at its
// resourceVersion, if anything.
func (rd *reader) applyCached(r *RevisionRow) {
	if r.Known {
		return
	}
	d, ok := rd.cache.get(cacheKey(*r))
	if ok {
		// A revision that failed to decode stays unknown: it has no summary to show.
		r.Summary, r.Known = d.Row.Summary, d.Row.Known
		r.Broken, r.Problem, r.Checked = d.Row.Broken, d.Row.Problem, d.Row.Checked
	}
}

// details decodes row's revision through s, or returns what it kept of it.
func (rd *reader) details(ctx context.Context, s store, row RevisionRow) (*Details, error) {
	d, ok := rd.cache.get(cacheKey(row))
	if ok && row.ResourceVersion != "" {
		return d, nil
	}
	d, keep, err := s.details(ctx, row)
	if err != nil {
		return nil, err
	}
	if keep {
		k := row
		k.ResourceVersion = d.Row.ResourceVersion
		rd.cache.add(cacheKey(k), d)
	}
	return d, nil
}

// Details decodes one revision and caches the result by resourceVersion, so asking
// again costs nothing until the record changes. A revision that cannot be decoded
// yields Details with Row.Broken set and a nil Release, not an error; errors are for
// failures to reach the server.
func (c *Client) Details(ctx context.Context, row RevisionRow) (*Details, error) {
	return c.reader.details(ctx, c.store(row.driver()), row)
}

// FillDetails decodes the rows that lack a summary, a few at a time, and updates
// them in place. A broken revision is marked in its row and does not fail the rest.
func (c *Client) FillDetails(ctx context.Context, rows []*RevisionRow) error {
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 4)
		mu   sync.Mutex
		errs []error
	)
	for _, r := range rows {
		if r.Known || r.Broken {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d, err := c.Details(ctx, *r)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			r.Summary, r.Known, r.Broken, r.Problem = d.Row.Summary, d.Row.Known, d.Row.Broken, d.Row.Problem
			r.Checked, r.Written = d.Row.Checked, d.Row.Written
			c.judge(r)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
