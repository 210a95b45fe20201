package kube

import (
	"context"
	"errors"
	"sync"
)

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
