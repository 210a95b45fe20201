package kube

import (
	"context"
	"errors"
	"sync"
)

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
