package chunked

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// AnnotationClaim is set on a chunk Secret by every write whose index names it and
// that did not create it. Its value, the resourceVersion of that index, differs
// from write to write, so the claim always changes the chunk's resourceVersion: a
// delete of the chunk that was decided before the claim, and carries the version it
// saw as a precondition, then fails instead of leaving an index that names a
// missing chunk.
const AnnotationClaim = AnnotationPrefix + "claimed-by"

// AnnotationPendingWrite is set on a pending index (see Create) to a nonce of the
// create that wrote it, by which that create knows its own object when the response
// to its request is lost. The index's last write removes it.
const AnnotationPendingWrite = AnnotationPrefix + "pending-write"

// chunkRef is a chunk Secret as a read or write of it found it.
type chunkRef struct {
	name string
	uid  types.UID
	rv   string
	// reused is set on a chunk a read took from an earlier attempt of its own
	// (verifiedSlices): uid and rv may be stale.
	reused bool
}

// writeChunks creates the chunk Secrets of rec, a few at a time, owned by the index
// ref points at when ref is set. A chunk that already exists with the right bytes
// is reused; one that exists with other bytes (a corrupt leftover under the same
// name) is replaced. It returns the chunks it created, as they were created, and
// those it found and reused.
func (c *Core[T]) writeChunks(ctx context.Context, rec *record, ref *metav1.OwnerReference, now time.Time) (created []chunkRef, reused []*corev1.Secret, err error) {
	names, slices := rec.unique()
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchWindow)
	for i, name := range names {
		s := chunkSecretNamed(c.owner, rec.key, name, slices[i], now, ref)
		g.Go(func() error {
			made, ex, err := c.createChunk(gctx, s)
			mu.Lock()
			defer mu.Unlock()
			if made != nil {
				created = append(created, chunkRef{name: name, uid: made.UID, rv: made.ResourceVersion})
			}
			if err != nil {
				return fmt.Errorf("write chunk %d of %d, Secret %q: %w", rec.pos(name), len(rec.slices), name, err)
			}
			if ex != nil {
				reused = append(reused, ex)
			}
			return nil
		})
	}
	err = g.Wait()
	return created, reused, err
}

// createChunk creates s, and returns it as created. When a Secret of that name
// exists it returns that one as reused if it holds the same bytes, or replaces it if
// it does not.
func (c *Core[T]) createChunk(ctx context.Context, s *corev1.Secret) (created, reused *corev1.Secret, err error) {
	for attempt := 0; attempt < 3; attempt++ {
		made, err := c.client.Create(ctx, s, metav1.CreateOptions{})
		if err == nil {
			return made, nil, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, nil, err
		}
		ex, err := c.client.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue // removed between the two calls: create it after all
		}
		if err != nil {
			return nil, nil, err
		}
		if ex.Type == SecretTypeChunk && bytes.Equal(ex.Data[DataChunk], s.Data[DataChunk]) {
			return nil, ex, nil
		}
		// No index can use a Secret whose bytes do not match its name: replace it,
		// unless it changed since it was read.
		c.cfg.Log("write: replacing Secret %q, whose content does not match its name", s.Name)
		err = c.client.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ex.UID, ResourceVersion: &ex.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return nil, nil, fmt.Errorf("replace mismatching chunk: %w", err)
		}
	}
	return nil, nil, fmt.Errorf("chunk Secret %q keeps being replaced by another writer", s.Name)
}

// claim runs once index, as written, names rec's chunks; chunks holds them as they
// were found (or just their names, for those this write created). Each gets its
// ownerReference to index, in one PATCH that changes its resourceVersion; one that
// has it already gets AnnotationClaim instead, whose value changes it. A chunk that
// a cleanup or gc decided to delete before the claim is then either already gone,
// and written again here, or kept, since its delete carries the version it saw as a
// precondition. Failures are logged; verify reports a chunk without owner, and a
// missing one.
func (c *Core[T]) claim(ctx context.Context, index *corev1.Secret, rec *record, chunks []*corev1.Secret, now time.Time) []chunkRef {
	if len(chunks) == 0 {
		return nil
	}
	ref := ownerRefTo(index)
	adopt, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []metav1.OwnerReference{ref}}})
	if err != nil {
		return nil
	}
	mark, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{AnnotationClaim: index.ResourceVersion}}})
	if err != nil {
		return nil
	}
	var claimed chunkRefs
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchWindow)
	for _, ch := range chunks {
		patch := adopt
		if hasRef(ch, index.UID) {
			patch = mark
		}
		g.Go(func() error {
			got, err := c.client.Patch(gctx, ch.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			// A claim not made leaves the chunk to a delete decided before the
			// write: try again before giving up on it.
			for wait := 50 * time.Millisecond; err != nil && !apierrors.IsNotFound(err) && wait < 2*time.Second && gctx.Err() == nil; wait *= 2 {
				time.Sleep(wait)
				got, err = c.client.Patch(gctx, ch.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			}
			switch {
			case err == nil:
				claimed.add(chunkRef{name: got.Name, uid: got.UID, rv: got.ResourceVersion})
			case apierrors.IsNotFound(err):
				if made := c.rewriteChunk(gctx, index, rec, ch.Name, &ref, now); made != nil {
					claimed.add(chunkRef{name: made.Name, uid: made.UID, rv: made.ResourceVersion})
				}
			default:
				c.cfg.Log("write: %q: chunk Secret %q could not be claimed: %v", rec.key, ch.Name, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	return claimed.list
}

// rewriteChunk writes again a chunk that disappeared before the write whose index
// names it could claim it, as long as that index is still the one written: once
// another writer has replaced it, the chunks are that writer's business (the
// original driver, for one, fails its update on a chunk that already exists).
func (c *Core[T]) rewriteChunk(ctx context.Context, index *corev1.Secret, rec *record, name string, ref *metav1.OwnerReference, now time.Time) *corev1.Secret {
	cur, err := c.client.Get(ctx, index.Name, metav1.GetOptions{})
	if err != nil || cur.ResourceVersion != index.ResourceVersion {
		c.cfg.Log("write: %q: chunk Secret %q disappeared, and the index has changed since: left to its writer", rec.key, name)
		return nil
	}
	c.cfg.Log("write: %q: chunk Secret %q disappeared before it was claimed; writing it again", rec.key, name)
	made, reused, err := c.createChunk(ctx, chunkSecretNamed(c.owner, rec.key, name, rec.slice(name), now, ref))
	if err != nil {
		c.cfg.Log("write: %q: chunk Secret %q could not be written again: %v", rec.key, name, err)
	}
	if made == nil {
		made = reused
	}
	return made
}

// wrote records a write of rls under key that left the index as index and its
// chunks at the versions in refs (later ones win), so that the next update or
// delete through this driver knows them without reading them again, and reads
// through a release cache wait for it.
func (c *Core[T]) wrote(key string, rls *T, index *corev1.Secret, refs ...[]chunkRef) {
	indexRV := index.ResourceVersion
	c.reads.wrote(key, indexRV, rls)
	c.cacheWrote(key, index.Namespace, indexRV, false)
	byName := map[string]chunkRef{}
	for _, rs := range refs {
		for _, r := range rs {
			byName[r.name] = r
		}
	}
	all := make([]chunkRef, 0, len(byName))
	for _, r := range byName {
		all = append(all, r)
	}
	c.reads.sawChunks(key, indexRV, all)
}

func refsOf(secrets []*corev1.Secret) []chunkRef {
	out := make([]chunkRef, len(secrets))
	for i, s := range secrets {
		out[i] = chunkRef{name: s.Name, uid: s.UID, rv: s.ResourceVersion}
	}
	return out
}

// sameRecord reports whether the stored index got holds the record want describes.
func sameRecord(got, want *corev1.Secret) bool {
	return got.Type == want.Type &&
		bytes.Equal(got.Data[DataChunk], want.Data[DataChunk]) &&
		bytes.Equal(got.Data[DataExtraChunks], want.Data[DataExtraChunks]) &&
		got.Labels[LabelStatus] == want.Labels[LabelStatus] &&
		got.Labels[LabelVersion] == want.Labels[LabelVersion]
}

// Update replaces the release stored under key. New chunks are written first, then
// the index is replaced with a precondition on the resourceVersion this driver read
// it at (or, if it never read it, the one it finds), and only then are chunks the
// new index no longer names removed. A release that has grown past MaxWriteChunks
// is refused before anything is written.
func (c *Core[T]) Update(key string, rls *T) error {
	c.cfg.Log("update: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()

	cur, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, c.notFound) {
			if _, read := c.reads.expectedFor(key, rls); read {
				return fmt.Errorf("update: %q: %w: it was deleted since it was read", key, ErrConflict)
			}
			return err
		}
		return fmt.Errorf("update: %w", err)
	}
	if want, read := c.reads.expectedFor(key, rls); read && want != cur.ResourceVersion {
		return fmt.Errorf("update: %q: %w: it was written by another writer since it was read (resourceVersion %s, read at %s)", key, ErrConflict, cur.ResourceVersion, want)
	}
	rec, err := c.encode(key, rls)
	if err != nil {
		return fmt.Errorf("update: %q: %w", key, err)
	}
	stale := c.staleChunks(ctx, key, cur, rec)

	now, start := c.now(), time.Now()
	ref := ownerRefTo(cur)
	created, reused, err := c.writeChunks(ctx, rec, &ref, now)
	if err != nil {
		c.removeUnreferenced(ctx, key, created)
		return fmt.Errorf("update: %q: %w", key, err)
	}

	// Its new chunks are not claimed after the index write: what keeps gc from them
	// meanwhile is that they are younger than its minimum age. Past half of it,
	// give up rather than name chunks gc may have taken.
	if took := time.Since(start); took > DefaultMinLeftoverAge/2 {
		c.removeUnreferenced(ctx, key, created)
		return fmt.Errorf("update: %q: writing its chunks took %s, too long to name them safely; retry", key, took.Round(time.Second))
	}

	written, err := c.updateIndex(ctx, key, c.updatedIndex(cur, rec, rls, now), created)
	if err != nil {
		return err
	}

	// Every chunk reused is claimed, even one the old index named: a deleter may
	// have read an index older than that one, one that did not name it.
	c.wrote(key, rls, written, created, refsOf(reused), c.claim(ctx, written, rec, reused, now))
	c.deleteChunks(ctx, key, stale)
	c.cfg.Log("updated: %q (%d chunks)", key, len(rec.slices))
	return nil
}

// staleChunks is the old index's chunks that the new record no longer names,
// each at the version read now, before the write: they are removed after it,
// and a write that takes one up after ours claims it (see claim), so the delete
// then fails. The old list may be unreadable when the old record is broken; the
// update then replaces it, and its chunks are left for gc, as are chunks whose
// versions cannot be read.
func (c *Core[T]) staleChunks(ctx context.Context, key string, cur *corev1.Secret, rec *record) []chunkRef {
	oldNames, _ := ParseExtraChunks(key, cur.Data[DataExtraChunks])
	var unnamed []string
	for _, n := range oldNames {
		if !slices.Contains(rec.names, n) && !slices.Contains(unnamed, n) {
			unnamed = append(unnamed, n)
		}
	}
	if len(unnamed) == 0 {
		return nil
	}
	stale, err := c.chunkVersions(ctx, key, unnamed, c.reads.chunksAt(key, cur.ResourceVersion))
	if err != nil {
		c.cfg.Log("update: %q: cannot read the versions of %d old chunk Secrets; they are left for gc: %v", key, len(unnamed), err)
		return nil
	}
	return stale
}

// updatedIndex is the index Secret that replaces cur: the new record's, at
// cur's version, keeping its owners, other writers' annotations and its
// creation time.
func (c *Core[T]) updatedIndex(cur *corev1.Secret, rec *record, rls *T, now time.Time) *corev1.Secret {
	want := c.indexSecret(rec, c.fields(rls))
	want.ResourceVersion = cur.ResourceVersion
	want.OwnerReferences = cur.OwnerReferences
	for k, v := range cur.Annotations {
		if _, ours := want.Annotations[k]; !ours && !isChunkviewAnnotation(k) {
			want.Annotations[k] = v
		}
	}
	want.Labels[LabelCreatedAt] = cur.Labels[LabelCreatedAt]
	if want.Labels[LabelCreatedAt] == "" {
		want.Labels[LabelCreatedAt] = unixString(cur.CreationTimestamp.Time)
	}
	want.Labels[LabelModifiedAt] = unixString(now)
	return want
}

// updateIndex writes the new index Secret. On a conflict, or when the write
// is known not to have landed, it removes the chunks created for it; when the
// outcome is unknown it leaves them, and says so. A write that failed but
// landed counts as written.
func (c *Core[T]) updateIndex(ctx context.Context, key string, want *corev1.Secret, created []chunkRef) (*corev1.Secret, error) {
	written, err := c.client.Update(ctx, want, metav1.UpdateOptions{})
	if err == nil {
		return written, nil
	}
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		c.removeUnreferenced(ctx, key, created)
		return nil, fmt.Errorf("update: %q: %w: %w", key, ErrConflict, err)
	}
	got, gerr := c.client.Get(ctx, key, metav1.GetOptions{})
	switch {
	case gerr == nil && sameRecord(got, want):
		return got, nil // applied despite the error
	case gerr == nil || apierrors.IsNotFound(gerr):
		c.removeUnreferenced(ctx, key, created)
		return nil, fmt.Errorf("update: %q: write index Secret: %w", key, err)
	default:
		return nil, fmt.Errorf("update: %q: write index Secret: %w (new chunks may be left over: run verify)", key, err)
	}
}

func hasRef(s *corev1.Secret, uid types.UID) bool {
	for _, r := range s.OwnerReferences {
		if r.UID == uid && uid != "" {
			return true
		}
	}
	return false
}

// removeUnreferenced deletes chunks a failed write created, unless the key's
// current index names them. It runs on a context of its own.
func (c *Core[T]) removeUnreferenced(ctx context.Context, key string, created []chunkRef) {
	if len(created) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	names := make([]string, len(created))
	known := make(map[string]chunkRef, len(created))
	for i, r := range created {
		names[i] = r.name
		known[r.name] = r
	}
	c.deleteUnreferenced(ctx, key, names, known)
}

// deleteUnreferenced deletes the named chunks of key that key's index does not
// name, each only at the version it had before that index was read: a chunk that
// some write claimed since (AnnotationClaim) is kept. known holds versions already
// seen (chunks this write created); the others are read first.
//
// The order is what makes it safe beside writers that reuse chunks: the chunk's
// version is read before the index, and every write claims the chunks it reuses
// after writing its index. Either the index read here already names the chunk, or a
// later claim changes the chunk's version and the delete fails, or the delete lands
// before the claim and the claim writes the chunk again.
func (c *Core[T]) deleteUnreferenced(ctx context.Context, key string, names []string, known map[string]chunkRef) {
	if len(names) == 0 {
		return
	}
	refs, err := c.chunkVersions(ctx, key, names, known)
	if err != nil {
		c.cfg.Log("cleanup: %q: cannot read chunk versions, leaving %d chunk Secrets for gc: %v", key, len(names), err)
		return
	}
	keep := map[string]bool{}
	idx, err := c.client.Get(ctx, key, metav1.GetOptions{})
	switch {
	case err == nil:
		named, _ := ParseExtraChunks(key, idx.Data[DataExtraChunks])
		for _, n := range named {
			keep[n] = true
		}
	case !apierrors.IsNotFound(err):
		c.cfg.Log("cleanup: %q: cannot read the index, leaving %d chunk Secrets for gc: %v", key, len(names), err)
		return
	}
	var unnamed []chunkRef
	for _, r := range refs {
		if !keep[r.name] {
			unnamed = append(unnamed, r)
		}
	}
	c.deleteChunks(ctx, key, unnamed)
}

// deleteChunks deletes chunks of key, each only at the version given: one claimed
// since by a write whose index names it is kept. The versions must have been read
// before a moment at which key's index did not name the chunks (see
// deleteUnreferenced).
func (c *Core[T]) deleteChunks(ctx context.Context, key string, refs []chunkRef) {
	for _, r := range refs {
		err := c.client.Delete(ctx, r.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &r.uid, ResourceVersion: &r.rv}})
		switch {
		case err == nil, apierrors.IsNotFound(err):
		case apierrors.IsConflict(err):
			c.cfg.Log("cleanup: %q: chunk Secret %q was claimed meanwhile; kept", key, r.name)
		default:
			c.cfg.Log("cleanup: %q: chunk Secret %q left for gc: %v", key, r.name, err)
		}
	}
}

// chunkVersions returns the current UID and resourceVersion of the named chunks of
// key that exist, taking those in known as they are. It reads metadata only when
// the driver has a metadata client, else the chunks themselves.
func (c *Core[T]) chunkVersions(ctx context.Context, key string, names []string, known map[string]chunkRef) ([]chunkRef, error) {
	return c.versionsOf(ctx, key, names, known, false)
}

// allChunkVersions is chunkVersions for every chunk Secret labelled with key.
func (c *Core[T]) allChunkVersions(ctx context.Context, key string) ([]chunkRef, error) {
	return c.versionsOf(ctx, key, nil, nil, true)
}

func (c *Core[T]) versionsOf(ctx context.Context, key string, names []string, known map[string]chunkRef, all bool) ([]chunkRef, error) {
	var out []chunkRef
	want := map[string]bool{}
	for _, n := range names {
		if r, ok := known[n]; ok {
			out = append(out, r)
		} else {
			want[n] = true
		}
	}
	if !all && len(want) == 0 {
		return out, nil
	}
	add := func(o metav1.Object) {
		if all || want[o.GetName()] {
			out = append(out, chunkRef{name: o.GetName(), uid: o.GetUID(), rv: o.GetResourceVersion()})
		}
	}
	sel := ChunkSelector(c.owner, key).String()
	switch {
	case c.cfg.Metadata != nil:
		err := listAll(ctx, sel, metadataListPage, func(ctx context.Context, opts metav1.ListOptions) ([]metav1.PartialObjectMetadata, string, error) {
			l, err := c.cfg.Metadata.List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return l.Items, l.Continue, nil
		}, func(m *metav1.PartialObjectMetadata) error { add(m); return nil })
		return out, err
	case all:
		err := listAll(ctx, sel, VerifyPage, c.listSecrets, func(s *corev1.Secret) error { add(s); return nil })
		return out, err
	}
	for _, n := range names {
		if !want[n] {
			continue
		}
		s, err := c.client.Get(ctx, n, metav1.GetOptions{})
		switch {
		case err == nil:
			add(s)
		case apierrors.IsNotFound(err):
		default:
			return nil, fmt.Errorf("read chunk Secret %s: %w", strconv.Quote(n), err)
		}
	}
	return out, nil
}
