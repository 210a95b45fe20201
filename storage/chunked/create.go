package chunked

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Create stores rls under key in three steps, so that the key never resolves to a
// partial release and every chunk is owned by its index from the moment it exists:
//
//  1. a pending index: the index Secret without data, labelled type=pending, which
//     no listing selects and Get reports as not found, while a create of the same
//     key by any writer fails as already existing;
//  2. the chunks, a few at a time, each created with its ownerReference to the
//     pending index; a chunk found already there with the same bytes is claimed;
//  3. the index's data and labels, in one update at the pending index's version.
//
// That is one request more than the chunks and the index, and no adoption pass.
// The pending index is written as soon as the compressed stream outgrows its first
// slice, and each chunk as soon as its slice is complete, while the rest is still
// being compressed; unless the record could outgrow MaxWriteChunks or the index's
// room for chunk names, which is then checked before anything is written. Any
// failure removes the pending index and the chunks this call created. A record of
// one slice is its index alone, created in one request.
func (c *Core[T]) Create(key string, rls *T) error {
	c.cfg.Log("create: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()
	js, err := c.encodeJSON(rls)
	if err != nil {
		return fmt.Errorf("create: %q: %w", key, err)
	}
	f := c.fields(rls)
	now, start := c.now(), time.Now()
	labels := indexLabels(c.owner, key, f)
	labels[LabelCreatedAt] = unixString(now)
	run := &createRun[T]{c: c, ctx: ctx, key: key, labels: labels, now: now, seen: map[string]bool{}}
	w := c.newSlicer(key, len(js))
	if c.streamable(key, len(js)) {
		w.started, w.next, w.stopped = run.begin, run.write, run.stopped
	}
	rec, err := c.compress(key, f, js, w)
	if err == nil && !run.begun && len(rec.names) > 0 {
		run.begin()
		names, slices := rec.unique()
		for i, n := range names {
			run.write(rec.pos(n), n, slices[i])
		}
	}
	if !run.begun {
		if err != nil {
			return fmt.Errorf("create: %q: %w", key, err)
		}
		return c.createWhole(ctx, key, rls, f, rec, now)
	}
	pending, created, reused, werr := run.wait()
	if pending == nil {
		if errors.Is(werr, c.exists) {
			return werr
		}
		return fmt.Errorf("create: %q: %w", key, werr)
	}
	if werr != nil {
		err = werr // the cause: compression stops when a write fails
	}
	var claimed []chunkRef
	if err == nil && len(reused) > 0 {
		claimed, err = c.claimReused(ctx, key, pending, rec, reused, now)
	}
	// gc spares unnamed chunks younger than its minimum age, no longer: past half
	// of it, give up rather than name chunks gc may have taken.
	if took := time.Since(start); err == nil && took > DefaultMinLeftoverAge/2 {
		err = fmt.Errorf("writing its chunks took %s, too long to name them safely; retry", took.Round(time.Second))
	}
	if err != nil {
		c.abandon(ctx, pending, created)
		return fmt.Errorf("create: %q: %w", key, err)
	}

	want := c.indexSecret(rec, f)
	want.Labels[LabelCreatedAt] = labels[LabelCreatedAt]
	want.ResourceVersion = pending.ResourceVersion
	index, err := c.completeIndex(ctx, key, pending, want, created)
	if err != nil {
		return err
	}
	c.wrote(key, rls, index, created, claimed)
	c.cfg.Log("created: %q (%d chunks)", key, len(rec.slices))
	return nil
}

// claimReused claims the chunks a create found already written, before the
// index names them, at the pending version: a delete decided before now fails,
// or lands first and the claim writes the chunk again. A chunk it cannot claim
// fails the create, as a conflict when another writer took the key meanwhile.
func (c *Core[T]) claimReused(ctx context.Context, key string, pending *corev1.Secret, rec *record, reused []*corev1.Secret, now time.Time) ([]chunkRef, error) {
	claimed := c.claim(ctx, pending, rec, reused, now)
	if len(claimed) == len(reused) {
		return claimed, nil
	}
	err := fmt.Errorf("%d of the %d chunk Secrets found already written could not be claimed", len(reused)-len(claimed), len(reused))
	if cur, gerr := c.client.Get(ctx, key, metav1.GetOptions{}); gerr == nil && cur.ResourceVersion != pending.ResourceVersion || apierrors.IsNotFound(gerr) {
		// Another writer took the key (the original driver updates an index
		// without a precondition, and deletes its chunks by label).
		err = fmt.Errorf("%w: the pending index changed: %w", ErrConflict, err)
	}
	return claimed, err
}

// completeIndex turns the pending index into the record's index. On a failed
// write it cleans up only what it knows is not named: the created chunks when
// the pending index is gone or changed, the pending index with them when the
// write did not land, nothing when the outcome cannot be read.
func (c *Core[T]) completeIndex(ctx context.Context, key string, pending, want *corev1.Secret, created []chunkRef) (*corev1.Secret, error) {
	index, err := c.client.Update(ctx, want, metav1.UpdateOptions{})
	if err == nil {
		return index, nil
	}
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		// The pending index was removed (gc of an interrupted create) or
		// changed by another writer: its chunks are no longer ours to name.
		c.removeUnreferenced(ctx, key, created)
		return nil, fmt.Errorf("create: %q: %w: the pending index changed: %w", key, ErrConflict, err)
	}
	// The request may have been applied although it failed (a timeout, a dropped
	// connection): look before removing chunks the index may now name.
	got, gerr := c.client.Get(ctx, key, metav1.GetOptions{})
	switch {
	case gerr == nil && got.UID == pending.UID && sameRecord(got, want):
		return got, nil
	case gerr == nil && got.UID == pending.UID && got.ResourceVersion == pending.ResourceVersion:
		c.abandon(ctx, pending, created)
		return nil, fmt.Errorf("create: %q: write index Secret: %w", key, err)
	case gerr == nil || apierrors.IsNotFound(gerr):
		c.removeUnreferenced(ctx, key, created)
		return nil, fmt.Errorf("create: %q: write index Secret: %w", key, err)
	default:
		return nil, fmt.Errorf("create: %q: write index Secret: %w (a pending index and its chunks may be left over: verify reports them, and gc removes the pending index 15 s after it was written, the chunks after 2 minutes)", key, err)
	}
}

// createWhole creates the index of a record of one slice, which is the whole record.
func (c *Core[T]) createWhole(ctx context.Context, key string, rls *T, f Fields, rec *record, now time.Time) error {
	want := c.indexSecret(rec, f)
	want.Labels[LabelCreatedAt] = unixString(now)
	index, err := c.createIndex(ctx, want, func(ex *corev1.Secret) bool { return !IsPending(ex) && sameRecord(ex, want) })
	if err != nil {
		if errors.Is(err, c.exists) {
			return err
		}
		return fmt.Errorf("create: %q: %w", key, err)
	}
	c.wrote(key, rls, index)
	c.cfg.Log("created: %q (1 chunk)", key)
	return nil
}

// createRun writes the pending index and the chunks of one Create, a few at a time,
// as its slices come.
type createRun[T any] struct {
	c      *Core[T]
	ctx    context.Context
	key    string
	labels map[string]string
	now    time.Time
	seen   map[string]bool

	begun   bool
	ready   chan struct{}
	pending *corev1.Secret
	perr    error
	g       *errgroup.Group
	gctx    context.Context

	mu      sync.Mutex
	created []chunkRef
	reused  []*corev1.Secret
}

// begin creates the pending index, in the background.
func (r *createRun[T]) begin() {
	r.begun = true
	r.ready = make(chan struct{})
	r.g, r.gctx = errgroup.WithContext(r.ctx)
	r.g.SetLimit(fetchWindow)
	go func() {
		defer close(r.ready)
		r.pending, r.perr = r.c.createPending(r.ctx, r.key, r.labels)
	}()
}

// write creates the chunk Secret name, slice pos of the record, once the pending
// index exists, owned by it; a name already written is skipped. It blocks while
// the window of writes is full.
func (r *createRun[T]) write(pos int, name string, slice []byte) {
	if r.seen[name] {
		return
	}
	r.seen[name] = true
	r.g.Go(func() error {
		select {
		case <-r.ready:
		case <-r.gctx.Done():
			return context.Cause(r.gctx)
		}
		if r.perr != nil {
			return r.perr
		}
		ref := ownerRefTo(r.pending)
		made, ex, err := r.c.createChunk(r.gctx, chunkSecretNamed(r.c.owner, r.key, name, slice, r.now, &ref))
		r.mu.Lock()
		defer r.mu.Unlock()
		if made != nil {
			r.created = append(r.created, chunkRef{name: name, uid: made.UID, rv: made.ResourceVersion})
		}
		if err != nil {
			return fmt.Errorf("write chunk %d, Secret %q: %w", pos, name, err)
		}
		if ex != nil {
			r.reused = append(r.reused, ex)
		}
		return nil
	})
}

// stopped reports why the run cannot succeed any more, if it cannot: compressing
// the rest is then of no use.
func (r *createRun[T]) stopped() error {
	if r.gctx == nil {
		return nil
	}
	return r.gctx.Err()
}

// wait waits for the writes begun, and returns the pending index (nil when it
// could not be written: err says why), the chunks created and those found already
// written.
func (r *createRun[T]) wait() (*corev1.Secret, []chunkRef, []*corev1.Secret, error) {
	err := r.g.Wait()
	<-r.ready
	if r.perr != nil {
		return nil, nil, nil, r.perr
	}
	return r.pending, r.created, r.reused, err
}

// createPending creates the pending index of key (see Create): the index's labels,
// with type=pending, no data, and a nonce by which this call knows its own object
// when the response is lost.
func (c *Core[T]) createPending(ctx context.Context, key string, labels map[string]string) (*corev1.Secret, error) {
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("pending index: %w", err)
	}
	lbs := make(map[string]string, len(labels))
	for k, v := range labels {
		lbs[k] = v
	}
	lbs[LabelType] = TypePending
	mark := hex.EncodeToString(nonce)
	p := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key, Labels: lbs, Annotations: map[string]string{AnnotationPendingWrite: mark}},
		Type:       SecretTypeIndex,
	}
	return c.createIndex(ctx, p, func(ex *corev1.Secret) bool { return ex.Annotations[AnnotationPendingWrite] == mark })
}

// PendingLease is how long a pending index keeps a create of its key by chunkview
// away. A create takes well under a second; one whose pending index is older was
// interrupted, most likely, and a failed write's cleanup could not remove it (the
// connection was lost). Taking it over is safe at any age: the pending index is
// deleted at the version read, so a create that completed meanwhile is kept, and
// one still in flight fails with ErrConflict when it comes to write its index.
const PendingLease = 15 * time.Second

// createIndex creates the index Secret s, or, when the response is lost, finds it
// created, by ours. A pending index older than PendingLease under its name is an
// interrupted create: it is removed, with its chunks, and the key taken over. Any
// other Secret under the name is the codec's Exists.
func (c *Core[T]) createIndex(ctx context.Context, s *corev1.Secret, ours func(*corev1.Secret) bool) (*corev1.Secret, error) {
	for attempt := 0; ; attempt++ {
		made, err := c.client.Create(ctx, s, metav1.CreateOptions{})
		if err == nil {
			return made, nil
		}
		ex, gerr := c.client.Get(ctx, s.Name, metav1.GetOptions{})
		switch {
		case gerr == nil && ours(ex):
			return ex, nil // created despite the error
		case !apierrors.IsAlreadyExists(err):
			return nil, fmt.Errorf("write index Secret: %w", err)
		case apierrors.IsNotFound(gerr) && attempt < 2:
			continue // removed between the two calls
		case gerr == nil && IsPending(ex) && c.now().Sub(ex.CreationTimestamp.Time) > PendingLease && attempt < 2:
			c.cfg.Log("create: %q: removing the pending index of a create interrupted %s ago", s.Name, c.now().Sub(ex.CreationTimestamp.Time).Round(time.Second))
			if err := c.removePending(ctx, ex); err != nil {
				return nil, fmt.Errorf("remove the pending index of an interrupted create: %w", err)
			}
			continue
		case gerr == nil && IsPending(ex):
			c.cfg.Log("create: %q: another create of it began %s ago; it is taken over after %s", s.Name, c.now().Sub(ex.CreationTimestamp.Time).Round(time.Second), PendingLease)
			return nil, c.exists
		case gerr == nil, apierrors.IsNotFound(gerr):
			return nil, c.exists
		default:
			return nil, fmt.Errorf("write index Secret: %w; then read it: %w", err, gerr)
		}
	}
}

// IsPending reports whether s is the pending index of a create in progress, or of
// one interrupted (see Create).
func IsPending(s *corev1.Secret) bool {
	return s.Labels[LabelType] == TypePending
}

// removePending deletes the pending index p at the version it was read at, then the
// chunks of its key that no index names. A pending index that has become an index
// meanwhile is kept.
func (c *Core[T]) removePending(ctx context.Context, p *corev1.Secret) error {
	refs, verr := c.allChunkVersions(ctx, p.Name)
	err := c.client.Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID, ResourceVersion: &p.ResourceVersion}})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if verr != nil {
		c.cfg.Log("create: %q: cannot read the versions of its chunks; they are left for gc: %v", p.Name, verr)
		return nil
	}
	known := make(map[string]chunkRef, len(refs))
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i], known[r.name] = r.name, r
	}
	c.deleteUnreferenced(ctx, p.Name, names, known)
	return nil
}

// abandon undoes a create that failed before its index was written: it removes the
// pending index, at the version this create left it, and the chunks it created. It
// runs on a context of its own.
func (c *Core[T]) abandon(ctx context.Context, pending *corev1.Secret, created []chunkRef) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := c.client.Delete(dctx, pending.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pending.UID, ResourceVersion: &pending.ResourceVersion}})
	if err != nil && !apierrors.IsNotFound(err) {
		c.cfg.Log("create: %q: its pending index is left for gc: %v", pending.Name, err)
	}
	c.removeUnreferenced(ctx, pending.Name, created)
}
