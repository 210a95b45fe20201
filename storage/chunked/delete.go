package chunked

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Delete removes the release stored under key and returns it. The index goes first,
// with preconditions on its UID and on the resourceVersion this driver read it at
// (or finds it at), then the chunks; a failure in between leaves chunks that
// FindLeftovers reports, never a partial release.
func (c *Core[T]) Delete(key string) (*T, error) {
	c.cfg.Log("delete: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()

	idx, err := c.indexToChange(ctx, key)
	if err != nil {
		if errors.Is(err, c.notFound) {
			return nil, err
		}
		return nil, fmt.Errorf("delete: %w", err)
	}
	rls, _, refs, settled, err := c.decodeSettledChunks(ctx, idx, c.readDeadline(), nil)
	if err != nil {
		if errors.Is(err, c.notFound) {
			return nil, err
		}
		return nil, fmt.Errorf("delete: %w", err)
	}
	if settled.ResourceVersion != idx.ResourceVersion {
		// Another writer was writing it: delete what it wrote only if this driver
		// had not read the record before.
		if want, read := c.reads.expected(key); read && want != settled.ResourceVersion {
			return nil, fmt.Errorf("delete: %q: %w: it was written by another writer since it was read", key, ErrConflict)
		}
		idx = settled
	}
	if refs, err = c.freshRefs(ctx, key, refs); err != nil {
		return nil, fmt.Errorf("delete: %q: read the versions of its chunk Secrets: %w", key, err)
	}
	if err := c.deleteRecord(ctx, idx, refs); err != nil {
		if errors.Is(err, c.notFound) {
			return nil, err
		}
		return nil, fmt.Errorf("delete: %q: %w", key, err)
	}
	c.cfg.Log("deleted: %q", key)
	return rls, nil
}

// ForceDelete removes the record stored under key, index and chunks, without
// decoding it: the way out for a revision that cannot be read. It refuses a Secret
// that is not an index of this driver's owner.
func (c *Core[T]) ForceDelete(key string) error {
	c.cfg.Log("force delete: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()
	idx, err := c.indexToChange(ctx, key)
	if err != nil {
		if errors.Is(err, c.notFound) {
			return err
		}
		return fmt.Errorf("force delete: %w", err)
	}
	// The record cannot be read, so its chunks' versions come from a read of their
	// own: by the names the index gives, or, when its list is unreadable, by the
	// key's label.
	var refs []chunkRef
	if names, perr := ParseExtraChunks(key, idx.Data[DataExtraChunks]); perr == nil {
		refs, err = c.chunkVersions(ctx, key, names, c.reads.chunksAt(key, idx.ResourceVersion))
	} else {
		refs, err = c.allChunkVersions(ctx, key)
	}
	if err != nil {
		c.cfg.Log("force delete: %q: cannot read the versions of its chunk Secrets; they are left for gc: %v", key, err)
		refs = nil
	}
	if err := c.deleteRecord(ctx, idx, refs); err != nil {
		if errors.Is(err, c.notFound) {
			return err
		}
		return fmt.Errorf("force delete: %q: %w", key, err)
	}
	return nil
}

// indexToChange reads the index of key for a write, and fails with ErrConflict when
// it is not at the version this driver read it at.
func (c *Core[T]) indexToChange(ctx context.Context, key string) (*corev1.Secret, error) {
	idx, err := c.getIndex(ctx, key)
	want, read := c.reads.expected(key)
	if err != nil {
		if read && errors.Is(err, c.notFound) {
			return nil, fmt.Errorf("%q: %w: it was deleted since it was read", key, ErrConflict)
		}
		return nil, err
	}
	if read && want != idx.ResourceVersion {
		return nil, fmt.Errorf("%q: %w: it was written by another writer since it was read (resourceVersion %s, read at %s)", key, ErrConflict, idx.ResourceVersion, want)
	}
	return idx, nil
}

// deleteRecord deletes the index idx, at the version read, then the chunks refs,
// each at the version read before the index was deleted: a writer that creates a
// new record under the same key afterwards and reuses one of them claims it, and
// it is kept. Chunks the index did not name (leftovers of an interrupted write)
// stay for gc, or for the garbage collector through their ownerReference.
func (c *Core[T]) deleteRecord(ctx context.Context, idx *corev1.Secret, refs []chunkRef) error {
	err := c.client.Delete(ctx, idx.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &idx.UID, ResourceVersion: &idx.ResourceVersion}})
	switch {
	case err == nil:
	case apierrors.IsNotFound(err):
		return c.notFound
	case apierrors.IsConflict(err):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	default:
		// Applied despite the error?
		if _, gerr := c.client.Get(ctx, idx.Name, metav1.GetOptions{}); !apierrors.IsNotFound(gerr) {
			return fmt.Errorf("delete index Secret: %w", err)
		}
	}
	c.reads.deleted(idx.Name)
	c.cacheWrote(idx.Name, idx.Namespace, idx.ResourceVersion, true)
	seen := map[string]bool{}
	var uniq []chunkRef
	for _, r := range refs {
		if !seen[r.name] {
			seen[r.name] = true
			uniq = append(uniq, r)
		}
	}
	c.deleteChunks(ctx, idx.Name, uniq)
	return nil
}
