package chunked

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fetchChunk reads and checks chunk i (0-based among the extra chunks) of idx.
func (c *Core[T]) fetchChunk(ctx context.Context, idx *corev1.Secret, i, total int, name string) (*corev1.Secret, []byte, error) {
	ref := strconv.Quote(name)
	if idx.Namespace != "" {
		ref = strconv.Quote(idx.Namespace + "/" + name)
	}
	pos := fmt.Sprintf("chunk %d of %d, Secret %s", i+2, total, ref)
	// A chunk is immutable and named by its slice's hash, so every copy of it the
	// API server holds is the slice its name promises, or fails checkChunk. The first
	// read takes the server's cached copy (resourceVersion "0": served from its watch
	// cache, without a read from etcd, which is most of the server's work for a
	// chunk). A chunk the cache has not seen yet, a copy that fails a check, or a
	// failed request is read again from etcd, and that read decides.
	s, err := c.client.Get(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
	if err == nil {
		if data, err := checkChunk(s, idx, pos, name); err == nil {
			return s, data, nil
		}
	}
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("read %s: %w", pos, context.Cause(ctx))
	}
	s, err = c.client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, fmt.Errorf("%w: %s, named by index %s, does not exist", ErrChunkMissing, pos, secretRef(idx))
		}
		return nil, nil, fmt.Errorf("read %s: %w", pos, err)
	}
	data, err := checkChunk(s, idx, pos, name)
	return s, data, err
}

// chunkRefs collects the chunks a decode read, from its fetching goroutines.
type chunkRefs struct {
	mu   sync.Mutex
	list []chunkRef
}

func (r *chunkRefs) add(ref chunkRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, ref)
}

// checkChunk returns the slice chunk Secret s holds, checked against its name.
func checkChunk(s, idx *corev1.Secret, pos, name string) ([]byte, error) {
	if s.Type != SecretTypeChunk {
		return nil, fmt.Errorf("%w: %s has type %q, not %q", ErrChunkMismatch, pos, s.Type, SecretTypeChunk)
	}
	data, ok := s.Data[DataChunk]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("%w: %s has no data.chunk", ErrChunkMismatch, pos)
	}
	if len(data) > MaxSecretDataBytes {
		return nil, fmt.Errorf("%w: %s holds %d bytes, more than a Secret can", ErrChunkMismatch, pos, len(data))
	}
	if got, want := SliceHash(data), name[len(idx.Name)+1:]; got != want {
		return nil, fmt.Errorf("%w: %s: its %d bytes hash to %s, not %s as its name says", ErrChunkMismatch, pos, len(data), got, want)
	}
	return data, nil
}
