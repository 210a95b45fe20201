package chunked

import (
	"context"
	"errors"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A read that meets a chunk missing or not matching rides out ReadRetry, because
// another writer may be in the middle of a write (see decodeSettledChunks). An
// index that has not been written for a long while, and some of whose chunks are
// still there, is not being written: a damaged record, reported without the wait.
// The write paths that leave an index naming chunks that are not there are:
//
//   - helm-operator-plugins' create writes the index, then its chunks: the index is
//     fresh;
//   - its update deletes every chunk of the key, then rewrites the index, then
//     creates the new chunks: the index is old while none of its chunks is there,
//     then fresh;
//   - chunkview writes chunks before any index that names them.
//
// So only an index at rest (restingIndexAge) with some of its named chunks still
// there (or a chunk that does not match its name, which no writer leaves) is
// damage. A read that lands while helm-operator-plugins' DeleteCollection is
// part-way through sees some chunks gone and others not yet: the read looks
// again once, after settleConfirm, and reports the record only when nothing
// moved in between (the same index, and the server holding the same of its
// chunks); otherwise it rides out ReadRetry as before.
const (
	// restingIndexAge is how long ago an index must have been last written, by
	// every clock that says (its createdAt and modifiedAt labels, the writer's;
	// its managedFields, the API server's), to be at rest: far more than a
	// writer takes between writing an index and creating its chunks, and room
	// for skewed clocks.
	restingIndexAge = time.Minute
	// settleConfirm is how long a read waits before it looks a second time at a
	// damaged-looking record at rest.
	settleConfirm = 200 * time.Millisecond
)

// lastWritten returns the latest time idx says it was written: its createdAt and
// modifiedAt labels (unix seconds, by the writer's clock) and the times of its
// managedFields entries (by the API server's clock, on every write). It is zero
// when none is there (a fake server keeps no managedFields; a writer may set no
// labels): not known to be at rest.
func lastWritten(idx *corev1.Secret) time.Time {
	var last time.Time
	for _, l := range []string{LabelCreatedAt, LabelModifiedAt} {
		if sec, err := strconv.ParseInt(idx.Labels[l], 10, 64); err == nil && sec > 0 {
			if t := time.Unix(sec, 0); t.After(last) {
				last = t
			}
		}
	}
	for _, mf := range idx.ManagedFields {
		if mf.Time != nil && mf.Time.After(last) {
			last = mf.Time.Time
		}
	}
	return last
}

// atRest reports whether idx was last written restingIndexAge ago or more.
func (c *Core[T]) atRest(idx *corev1.Secret) bool {
	last := lastWritten(idx)
	return !last.IsZero() && c.now().Sub(last) >= restingIndexAge
}

// restingDamage decides, for a record whose decode failed with err (a settling
// error) having read the chunks in refs, whether it is damage that no write in
// progress explains (see above). When it may be, it looks once more after
// settleConfirm and returns what that decode found, with done set when the record
// is to be reported as it is now; done false leaves the caller to ride out
// ReadRetry from the index it returns.
//
// What it compares between the two looks is which of the index's chunks the
// server holds (presentChunks), asked of the server each time, not what either
// decode fetched: the decodes fetch concurrently and stop at the first chunk
// missing, so how many chunks each had in hand by then is a matter of timing.
func (c *Core[T]) restingDamage(ctx context.Context, idx *corev1.Secret, err error, refs []chunkRef, info *DecodeInfo) (rls *T, n int64, got []chunkRef, cur *corev1.Secret, derr error, done bool) {
	if !c.atRest(idx) {
		return nil, 0, refs, idx, err, false
	}
	if errors.Is(err, ErrChunkMismatch) {
		// A chunk whose bytes do not match its name was read again from etcd
		// (fetchChunk): no writer leaves one.
		return nil, 0, refs, idx, err, true
	}
	before, perr := c.presentChunks(ctx, idx)
	if perr != nil || len(before) == 0 {
		// None of its chunks is there: helm-operator-plugins' update between
		// its DeleteCollection and its new index looks so. (Or the server
		// could not say: the ride-out decides.)
		return nil, 0, refs, idx, err, false
	}
	t := time.NewTimer(settleConfirm)
	select {
	case <-ctx.Done():
		t.Stop()
		return nil, 0, refs, idx, err, false
	case <-t.C:
	}
	fresh, gerr := c.getIndex(ctx, idx.Name)
	if gerr != nil {
		// Deleted meanwhile, or not readable: the ride-out decides.
		return nil, 0, refs, idx, err, false
	}
	rls, n, got, derr = c.decodeChunks(ctx, fresh, info, nil)
	switch {
	case derr == nil, !settling(derr):
		return rls, n, got, fresh, derr, true
	case fresh.ResourceVersion != idx.ResourceVersion || !c.atRest(fresh):
		return nil, 0, got, fresh, derr, false
	}
	after, perr := c.presentChunks(ctx, fresh)
	if perr == nil && sameChunks(before, after) {
		// Nothing moved: the same index, the same chunks there.
		return nil, 0, got, fresh, derr, true
	}
	return nil, 0, got, fresh, derr, false
}

// presentChunks returns the chunk Secrets that idx names and the server holds
// now, at the versions it holds them: one metadata list with a metadata client,
// otherwise a read of each (a record at rest that looks damaged is rare).
func (c *Core[T]) presentChunks(ctx context.Context, idx *corev1.Secret) ([]chunkRef, error) {
	names, err := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	if err != nil {
		return nil, err
	}
	return c.chunkVersions(ctx, idx.Name, names, nil)
}

// sameChunks reports whether a and b hold the same chunk Secrets: the same names,
// each the same object (UID) at the same resourceVersion, in any order.
func sameChunks(a, b []chunkRef) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[string]chunkRef, len(a))
	for _, r := range a {
		in[r.name] = chunkRef{name: r.name, uid: r.uid, rv: r.rv}
	}
	for _, r := range b {
		if in[r.name] != (chunkRef{name: r.name, uid: r.uid, rv: r.rv}) {
			return false
		}
	}
	return true
}

// snapshot returns the chunks read so far, while fetches may still be adding.
func (r *chunkRefs) snapshot() []chunkRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]chunkRef(nil), r.list...)
}
