package chunked

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Get returns the release stored under key.
func (c *Core[T]) Get(key string) (*T, error) {
	c.cfg.Log("get: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()
	if rls, ok, err := c.getCached(ctx, key); ok {
		return rls, err
	}
	idx, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, c.notFound) {
			return nil, err
		}
		return nil, fmt.Errorf("get: %w", err)
	}
	rls, _, idx, err := c.decodeSettled(ctx, idx, c.readDeadline())
	if err != nil {
		if errors.Is(err, c.notFound) {
			return nil, err
		}
		return nil, fmt.Errorf("get: %w", err)
	}
	if err := c.reads.observe(idx, rls); err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	return rls, nil
}

// ReadIndex returns the index Secret of key, checked to be one.
func (c *Core[T]) ReadIndex(ctx context.Context, key string) (*corev1.Secret, error) {
	return c.getIndex(ctx, key)
}

// Decode reads the release an index Secret describes, fetching and checking its
// chunks. When a chunk is missing or does not match, it re-reads the index and
// tries again for up to ReadRetry (a write may be in progress).
func (c *Core[T]) Decode(ctx context.Context, index *corev1.Secret) (*T, error) {
	rls, _, _, err := c.decodeSettled(ctx, index, c.readDeadline())
	return rls, err
}

func (c *Core[T]) getIndex(ctx context.Context, key string) (*corev1.Secret, error) {
	s, err := c.client.Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, c.notFound
		}
		return nil, fmt.Errorf("read index Secret %q: %w", key, err)
	}
	if s.Type != SecretTypeIndex {
		return nil, fmt.Errorf("%w: Secret %s has type %q, not %q: it is not a chunked release index (is this Helm's own storage?)",
			ErrCorrupt, secretRef(s), s.Type, SecretTypeIndex)
	}
	if IsPending(s) {
		// A create in progress: the record does not exist until it completes.
		return nil, c.notFound
	}
	return s, nil
}

func secretRef(s *corev1.Secret) string {
	if s.Namespace == "" {
		return strconv.Quote(s.Name)
	}
	return strconv.Quote(s.Namespace + "/" + s.Name)
}

// readDeadline is when a read that started now stops waiting for a write in
// progress to complete.
func (c *Core[T]) readDeadline() time.Time {
	if c.cfg.ReadRetry < 0 {
		return time.Time{}
	}
	return time.Now().Add(c.cfg.ReadRetry)
}

// settling reports whether err may come from reading a record while another writer
// writes it: the original driver writes an index before the chunks it names, and
// any writer removes chunks an index no longer names.
func settling(err error) bool {
	return errors.Is(err, ErrChunkMissing) || errors.Is(err, ErrChunkMismatch)
}

// decodeSettled decodes idx; while it fails for a reason a write in progress
// explains, it waits with backoff, reads the index again and retries, until
// deadline. It returns the index it finally decoded. A record deleted meanwhile
// yields the codec's NotFound.
func (c *Core[T]) decodeSettled(ctx context.Context, idx *corev1.Secret, deadline time.Time) (*T, int64, *corev1.Secret, error) {
	rls, n, _, idx, err := c.decodeSettledChunks(ctx, idx, deadline, nil)
	return rls, n, idx, err
}

// decodeSettledChunks is decodeSettled that also returns the chunks it read, and
// fills info, when not nil, as decodeRecord does.
// Each attempt fetches only the chunks the earlier ones have not verified (see
// verifiedSlices).
func (c *Core[T]) decodeSettledChunks(ctx context.Context, idx *corev1.Secret, deadline time.Time, info *DecodeInfo) (*T, int64, []chunkRef, *corev1.Secret, error) {
	wait := 20 * time.Millisecond
	kept := c.newVerifiedSlices()
	for first := true; ; first = false {
		rls, n, refs, err := c.decodeChunks(ctx, idx, info, kept)
		if first && err != nil && settling(err) && time.Now().Before(deadline) {
			// An index at rest is not being written (settle.go): a damaged
			// record is reported without the ride-out.
			var done bool
			if rls, n, refs, idx, err, done = c.restingDamage(ctx, idx, err, refs, info); done {
				return rls, n, refs, idx, err
			}
		}
		if err == nil || !settling(err) || !time.Now().Before(deadline) {
			return rls, n, refs, idx, err
		}
		c.cfg.Log("read: %q: %v; reading again, %d verified chunks kept", idx.Name, firstErrLine(err), kept.count())
		sleep := min(wait, time.Until(deadline))
		wait = min(2*wait, 400*time.Millisecond)
		if err := c.awaitMissing(ctx, idx, kept, sleep); err != nil {
			return nil, 0, nil, idx, fmt.Errorf("waiting for %q to settle: %w", idx.Name, err)
		}
		fresh, gerr := c.getIndex(ctx, idx.Name)
		if gerr != nil {
			// Not found: deleted meanwhile. Anything else is a failure to read,
			// not a broken record.
			return nil, 0, nil, idx, gerr
		}
		idx = fresh
	}
}

func firstErrLine(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// List returns the releases for which filter returns true. Records that cannot be
// decoded are logged by key and skipped, as Helm's own drivers do.
func (c *Core[T]) List(filter func(*T) bool) ([]*T, error) {
	c.cfg.Log("list")
	ctx, cancel := c.opCtx()
	defer cancel()
	var out []*T
	seen, err := c.decodeEach(ctx, IndexSelector(c.owner), func(idx *corev1.Secret, rls *T, err error) error {
		if err := c.reads.observe(idx, rls); err != nil {
			return err
		}
		if err != nil {
			return skipBroken("list", idx, err, c.cfg.Log)
		}
		if filter == nil || filter(rls) {
			out = append(out, rls)
		}
		return nil
	})
	if err == nil {
		err = c.reads.checkComplete("", seen)
	}
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return out, nil
}

// decodeEach decodes every index matching sel and calls fn with each record's
// index, as finally read, and its release or the error that decoding it met. A
// record that fails for a reason a write in progress explains is set aside, and
// those set aside are read again together, with backoff, for up to ReadRetry after
// the first of them failed: one record that stays broken does not use up the wait
// of the others. A record deleted meanwhile is left out. It returns the keys
// handed to fn.
func (c *Core[T]) decodeEach(ctx context.Context, sel labels.Selector, fn func(*corev1.Secret, *T, error) error) (map[string]bool, error) {
	if seen, ok, err := c.eachCached(ctx, sel, fn); ok {
		return seen, err
	}
	seen := map[string]bool{}
	var pending []*corev1.Secret
	pendingErr := map[string]error{}
	// The slices a decode verifies are kept for its record's next attempt. Each
	// decode lets go of those of the record before, so they hold one record's at
	// most: a record being rewritten, set aside alone, is read again from what
	// its last attempt verified.
	kept := c.newVerifiedSlices()
	err := c.eachIndex(ctx, sel, func(idx *corev1.Secret) error {
		rls, _, refs, err := c.decodeChunks(ctx, idx, nil, kept)
		if settling(err) && c.cfg.ReadRetry >= 0 {
			// An index at rest is not being written (settle.go).
			var done bool
			if rls, _, _, idx, err, done = c.restingDamage(ctx, idx, err, refs, nil); done {
				kept.forget(idx)
				seen[idx.Name] = true
				return fn(idx, rls, err)
			}
		}
		if settling(err) && c.cfg.ReadRetry >= 0 {
			pending = append(pending, idx)
			pendingErr[idx.Name] = err
			return nil
		}
		kept.forget(idx)
		seen[idx.Name] = true
		return fn(idx, rls, err)
	})
	if err != nil || len(pending) == 0 {
		return seen, err
	}
	deadline := time.Now().Add(c.cfg.ReadRetry)
	wait := 20 * time.Millisecond
	for len(pending) > 0 && time.Now().Before(deadline) {
		// With one record left to wait for, the chunks noted missing are its own
		// (each decode starts by letting go of those of the one before).
		var polled *verifiedSlices
		if len(pending) == 1 {
			polled = kept
		}
		if err := c.awaitMissing(ctx, pending[0], polled, min(wait, time.Until(deadline))); err != nil {
			return seen, fmt.Errorf("waiting for %d records to settle: %w", len(pending), err)
		}
		wait = min(2*wait, 400*time.Millisecond)
		var still []*corev1.Secret
		for _, idx := range pending {
			fresh, err := c.getIndex(ctx, idx.Name)
			if errors.Is(err, c.notFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return seen, err
			}
			rls, _, _, err := c.decodeChunks(ctx, fresh, nil, kept)
			if settling(err) {
				still = append(still, fresh)
				pendingErr[fresh.Name] = err
				continue
			}
			kept.forget(fresh)
			seen[fresh.Name] = true
			if err := fn(fresh, rls, err); err != nil {
				return seen, err
			}
		}
		pending = still
	}
	for _, idx := range pending {
		seen[idx.Name] = true
		if err := fn(idx, nil, pendingErr[idx.Name]); err != nil {
			return seen, err
		}
	}
	return seen, nil
}

// skipBroken decides what a listing does with a record that did not decode. A record
// that is broken (corrupt or over a bound) is logged and skipped, as Helm's own
// drivers skip what they cannot decode. Any other failure (the server or the
// connection failed while its chunks were read) fails the listing: skipping would
// hand Helm a history without that revision, and Helm would then act on the wrong
// latest revision (an uninstall that purges all but the skipped one and reports
// success, a rollback that numbers its revision after the wrong one).
func skipBroken(op string, idx *corev1.Secret, err error, log func(string, ...interface{})) error {
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge) {
		log("%s: skipping %q: %v", op, idx.Name, err)
		return nil
	}
	return fmt.Errorf("read %q: %w", idx.Name, err)
}

// Query returns the releases whose labels match all of lbs. owner=helm, which Helm
// hard-codes, means this driver's owner. System labels are matched by the API server,
// the others against the custom labels in the payload. It returns the
// driver.ErrReleaseNotFound of the codec's Helm when nothing matches.
func (c *Core[T]) Query(lbs map[string]string) ([]*T, error) {
	c.cfg.Log("query: %d labels", len(lbs))
	ctx, cancel := c.opCtx()
	defer cancel()
	server := labels.Set{LabelOwner: c.owner, LabelType: TypeIndex}
	custom := labels.Set{}
	for k, v := range lbs {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("query: invalid label value %q for %q: %v", v, k, errs)
		}
		if k == LabelOwner && v == "helm" {
			v = c.owner
		}
		switch {
		case !IsSystemLabel(k):
			custom[k] = v
		case server[k] != "" && server[k] != v:
			return nil, c.notFound // e.g. another owner
		default:
			server[k] = v
		}
	}
	sel := labels.SelectorFromSet(custom)
	var out []*T
	seen, err := c.decodeEach(ctx, labels.SelectorFromSet(server), func(idx *corev1.Secret, rls *T, err error) error {
		if err := c.reads.observe(idx, rls); err != nil {
			return err
		}
		if err != nil {
			return skipBroken("query", idx, err, c.cfg.Log)
		}
		if sel.Matches(labels.Set(c.codec.Fields(rls).Labels)) {
			out = append(out, rls)
		}
		return nil
	})
	// A query of a release's whole history (its name, nothing narrower) must find
	// every record a plan was made from.
	if err == nil && server[LabelName] != "" && len(server) == 3 && len(custom) == 0 {
		err = c.reads.checkComplete(server[LabelName], seen)
	}
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if len(out) == 0 {
		return nil, c.notFound
	}
	return out, nil
}

// eachIndex calls fn for every index Secret matching sel, a page at a time.
func (c *Core[T]) eachIndex(ctx context.Context, sel labels.Selector, fn func(*corev1.Secret) error) error {
	return listAll(ctx, sel.String(), listPage, c.listSecrets, fn)
}

// decodeChunks reads the release an index describes: it checks the index, fetches
// the chunks a few at a time, checks each against its name, and decodes the stream
// under the decompressed-size bound. Errors name the Secret at fault. It also
// returns the stream's length and the chunk Secrets it read, at the versions it
// read them: a delete of the record deletes them at those versions. It takes the
// slices kept holds instead of fetching them, and keeps those it fetches there
// (kept may be nil).
func (c *Core[T]) decodeChunks(ctx context.Context, idx *corev1.Secret, info *DecodeInfo, kept *verifiedSlices) (*T, int64, []chunkRef, error) {
	rls, n, refs, err := c.decodeRecord(ctx, idx, info, kept)
	if err == nil {
		c.reads.sawChunks(idx.Name, idx.ResourceVersion, readNow(refs))
	}
	return rls, n, refs, err
}

// decodeRecord decodes the record idx indexes, taking from kept (when not nil) the
// slices an earlier attempt verified and keeping there those it fetches. When info
// is not nil, it also walks the payload for what the driver's walk type (Helm 3's)
// drops and fills info.
func (c *Core[T]) decodeRecord(ctx context.Context, idx *corev1.Secret, info *DecodeInfo, kept *verifiedSlices) (*T, int64, []chunkRef, error) {
	if idx.Type != SecretTypeIndex {
		return nil, 0, nil, fmt.Errorf("%w: Secret %s has type %q, not %q", ErrCorrupt, secretRef(idx), idx.Type, SecretTypeIndex)
	}
	names, err := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	if err != nil {
		return nil, 0, nil, fmt.Errorf("index Secret %s: %w", secretRef(idx), err)
	}
	total := 1 + len(names)
	if c.cfg.MaxReadChunks > 0 && total > c.cfg.MaxReadChunks {
		return nil, 0, nil, fmt.Errorf("%w: index Secret %s names %d chunks, over the limit of %d (MaxReadChunks)", ErrTooLarge, secretRef(idx), total, c.cfg.MaxReadChunks)
	}
	first, ok := idx.Data[DataChunk]
	if !ok || len(first) == 0 {
		return nil, 0, nil, fmt.Errorf("%w: index Secret %s has no data.chunk", ErrCorrupt, secretRef(idx))
	}
	kept.retain(names)
	refs := &chunkRefs{}
	cs := newChunkStream(ctx, first, names, func(ctx context.Context, i int, name string) ([]byte, error) {
		if v, ok := kept.get(name); ok {
			refs.add(v.ref)
			return v.data, nil
		}
		if h, ok := c.heldChunk(name); ok {
			refs.add(h.ref)
			kept.put(h.ref, h.data)
			return h.data, nil
		}
		s, data, err := c.fetchChunk(ctx, idx, i, total, name)
		switch {
		case err == nil:
			ref := chunkRef{name: name, uid: s.UID, rv: s.ResourceVersion}
			refs.add(ref)
			kept.put(ref, data)
			c.holdChunk(ref, data)
		case errors.Is(err, ErrChunkMissing):
			kept.missed(name)
		}
		return data, err
	})
	defer cs.Close()
	var r io.Reader = cs
	want := idx.Annotations[AnnotationPayloadSHA256]
	h := newSHA256()
	if want != "" {
		r = io.TeeReader(cs, h)
	}
	var walk reflect.Type
	if info != nil {
		walk = c.walk
	}
	rls, f, found, err := decodePayloadInfo(c.codec, r, c.cfg.MaxDecodedBytes, recordJSONSize(idx, first, total, cs), walk)
	if err != nil {
		if cs.err != nil {
			// The chunks read before the failure tell a damaged record from
			// one being written (restingDamage).
			return nil, 0, refs.snapshot(), cs.err
		}
		return nil, 0, nil, fmt.Errorf("release record %s: %w", secretRef(idx), err)
	}
	if want != "" {
		if got := hexSum(h); got != want {
			return nil, 0, nil, fmt.Errorf("%w: release record %s: payload SHA-256 %s does not match %s recorded on the index", ErrCorrupt, secretRef(idx), got, want)
		}
	}
	// Helm builds the key from the release's name and revision, so a payload that
	// names another release is not this record, whatever it holds (for instance a
	// JSON object with "name" twice, of which decoders keep different ones). Handing
	// it out would make Helm act on the wrong release.
	if name, rev, ok := ParseKey(idx.Name); ok && (f.Name != name || f.Version != rev) {
		return nil, 0, nil, fmt.Errorf("%w: release record %s holds release %q revision %d, not the %q revision %d its name says", ErrCorrupt, secretRef(idx), f.Name, f.Version, name, rev)
	}
	if info != nil {
		*info = found
	}
	return rls, cs.n, refs.list, nil
}

// recordJSONSize returns the length the record idx indexes claims for its JSON:
// chunkview's summary annotation says it when the writer set one; otherwise the
// gzip trailer, which every writer's stream ends with, does once the last slice is
// in (the chunk stream fetches it first). Every slice but the last is as long as
// the first, so the record stores at most len(first)*total bytes.
//
// A trailer is believed as far as an annotation is (decodePayloadInfo drops a
// claim past the bound, readAll grows towards it by four times at most), and
// only when it is in proportion to the stored bytes: where trustedHint would cut
// an annotation's claim down, a trailer's is dropped. The trailer of a bomb
// (JSON longer than the bound, its length modulo 2^32) is thus no claim at all,
// and the bomb costs what it cost without one.
func recordJSONSize(idx *corev1.Secret, first []byte, total int, cs *chunkStream) sizeClaim {
	stored := int64(len(first)) * int64(total)
	if sum, ok := SummaryFromMeta(idx); ok && sum.DecodedBytes > 0 {
		return fixedSize(trustedHint(sum.DecodedBytes, stored))
	}
	return func() int64 {
		if n := cs.trailerSize(); trustedHint(n, stored) == n {
			return n
		}
		return 0
	}
}
