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

	mu sync.Mutex
	// reading holds the decodes under way, by cacheKey: a second caller of the
	// same record (d pressed while the history's prefetch reads it) waits for
	// the first instead of reading it again.
	reading map[string]*pendingRead
}

// pendingRead is one decode under way; done is closed once d and err are set.
type pendingRead struct {
	done chan struct{}
	d    *Details
	err  error
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
		r.settle()
	}
}

// details decodes row's revision through s, or returns what it kept of it, or
// waits for the decode of it under way. A caller whose wait ends because the
// other caller's context ended reads the record itself.
func (rd *reader) details(ctx context.Context, s store, row RevisionRow) (*Details, error) {
	k := cacheKey(row)
	d, ok := rd.cache.get(k)
	if ok && row.ResourceVersion != "" {
		return d, nil
	}
	if row.ResourceVersion == "" {
		return rd.read(ctx, s, row)
	}
	for {
		rd.mu.Lock()
		p, busy := rd.reading[k]
		if !busy {
			p = &pendingRead{done: make(chan struct{})}
			if rd.reading == nil {
				rd.reading = map[string]*pendingRead{}
			}
			rd.reading[k] = p
			rd.mu.Unlock()
			p.d, p.err = rd.read(ctx, s, row)
			rd.mu.Lock()
			delete(rd.reading, k)
			rd.mu.Unlock()
			close(p.done)
			return p.d, p.err
		}
		rd.mu.Unlock()
		select {
		case <-p.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if p.err == nil || !isCancel(p.err) || ctx.Err() != nil {
			return p.d, p.err
		}
		// The other caller gave up (a prefetch cancelled): read it here.
	}
}

// isCancel reports whether err is a context's end rather than the server's answer.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// read decodes row's revision through s and keeps it when s says it may.
func (rd *reader) read(ctx context.Context, s store, row RevisionRow) (*Details, error) {
	d, keep, err := s.details(ctx, row)
	if err != nil {
		return nil, err
	}
	if keep {
		rd.keep(row, d)
	}
	return d, nil
}

// keep caches d, decoded for row, by the resourceVersion it was decoded at.
func (rd *reader) keep(row RevisionRow, d *Details) {
	k := row
	k.ResourceVersion = d.Row.ResourceVersion
	rd.cache.add(cacheKey(k), d)
}

// Details decodes one revision and caches the result by resourceVersion, so asking
// again costs nothing until the record changes. A revision that cannot be decoded
// yields Details with Row.Broken set and a nil Release, not an error; errors are for
// failures to reach the server.
func (c *Client) Details(ctx context.Context, row RevisionRow) (*Details, error) {
	return c.reader.details(ctx, c.store(row.driver()), row)
}

// Prefetch decodes rows into the details cache, side by side, so that a diff of
// them asked for next reads nothing; one asked for while they are read waits for
// these reads. A broken revision is kept as such; failures to reach the
// server are returned, joined. Cancel ctx to stop: a diff that was waiting reads
// on its own.
func (c *Client) Prefetch(ctx context.Context, rows ...RevisionRow) error {
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		wg.Go(func() { _, errs[i] = c.Details(ctx, r) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// PrefetchTogether is Prefetch with fewer requests: the records of Helm's
// stores among rows that the details cache does not hold are read in one list
// per release (selected by their version labels), not one GET each. An
// operation's plan reads the revisions it compares so. A record the list did
// not return, and every other row, is read as Prefetch reads it.
func (c *Client) PrefetchTogether(ctx context.Context, rows ...RevisionRow) error {
	type release struct{ kind, ns, name string }
	together := map[release][]RevisionRow{}
	var rest []RevisionRow
	for _, r := range rows {
		kind := r.driver()
		if _, ok := c.reader.cache.get(cacheKey(r)); (ok && r.ResourceVersion != "") || (kind != DriverSecret && kind != DriverConfigMap) {
			rest = append(rest, r)
			continue
		}
		k := release{kind, r.StorageNamespace, r.Name}
		together[k] = append(together[k], r)
	}
	for k, rs := range together {
		if len(rs) < 2 {
			rest = append(rest, rs...)
			continue
		}
		got, err := c.store(k.kind).(*helmStore).readTogether(ctx, rs)
		for _, r := range rs {
			if d, ok := got[r.Key]; ok && err == nil {
				c.reader.keep(r, d)
				continue
			}
			rest = append(rest, r)
		}
	}
	return c.Prefetch(ctx, rest...)
}

// FillDetails decodes the rows that lack a summary, or whose summary was only
// peeked (see FillSummaries), a few at a time, and updates them in place. A
// broken revision is marked in its row and does not fail the rest.
func (c *Client) FillDetails(ctx context.Context, rows []*RevisionRow) error {
	return c.cfg.fillEach(rows, func(r *RevisionRow) bool { return (!r.Known || r.Peeked) && !r.Broken }, func(r RevisionRow) (RevisionRow, error) {
		d, err := c.Details(ctx, r)
		if err != nil {
			return r, err
		}
		return filledFrom(r, d.Row), nil
	})
}
