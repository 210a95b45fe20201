package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage/chunked"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// RoleRecord is the Role of the one object that holds a revision of Helm's own
// Secrets or ConfigMaps store, where a chunked revision has an index and chunks
// (TypeIndex, TypeChunk).
const RoleRecord = "record"

// SecretState is the health of one Secret in a layout.
type SecretState string

// The states of a Secret in a layout.
const (
	StateOK       SecretState = "ok"
	StateMissing  SecretState = "missing"
	StateCorrupt  SecretState = "corrupt"
	StateWrongTyp SecretState = "wrong-type"
	StateOrphan   SecretState = "orphan"
)

// SecretInfo describes one Secret of a release record.
type SecretInfo struct {
	Name  string `json:"name"`
	Role  string `json:"role"` // TypeIndex, TypeChunk or RoleRecord
	Type  string `json:"type"`
	Bytes int    `json:"bytes"`
	// Share is Bytes as a fraction of the API server's 1 MiB Secret limit.
	Share   float64           `json:"share"`
	State   SecretState       `json:"state"`
	Detail  string            `json:"detail,omitempty"`
	HashOK  bool              `json:"hashOK"`
	Owned   bool              `json:"owned"`
	Created time.Time         `json:"created,omitzero"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// Layout is how one revision is stored: its index, its chunks in order, chunks of the
// same key that the index does not name, and the totals.
type Layout struct {
	Key      string       `json:"key"`
	Release  string       `json:"release"`
	Revision int          `json:"revision"`
	Status   string       `json:"status"`
	Index    SecretInfo   `json:"index"`
	Chunks   []SecretInfo `json:"chunks"`
	Orphans  []SecretInfo `json:"orphans,omitempty"`
	// StoredBytes is the gzip stream's length: all slices.
	StoredBytes int `json:"storedBytes"`
	// DecodedBytes is the JSON payload's length, when it decoded.
	DecodedBytes int `json:"decodedBytes,omitempty"`
	// HelmSecretBytes is what Helm's own Secrets driver would store for the same
	// release, and HelmSecretFits whether that fits in one Secret.
	HelmSecretBytes int    `json:"helmSecretBytes,omitempty"`
	HelmSecretFits  bool   `json:"helmSecretFits"`
	Parts           []Part `json:"parts,omitempty"`
	// DecodeError says why the release could not be read, if it could not.
	DecodeError string `json:"decodeError,omitempty"`
	// Decoded is the release, when it could be read: by Helm 3's types, since
	// Measure, which fills it, is the Helm 3 driver's.
	Decoded *release.Release `json:"-"`

	// index is the index Secret InspectSecrets read, for Measure to decode.
	index *corev1.Secret
}

// Broken reports whether the revision cannot be read.
func (l *Layout) Broken() bool { return l.DecodeError != "" }

func infoOf(s *corev1.Secret, role string) SecretInfo {
	n := dataBytes(s)
	return SecretInfo{
		Name: s.Name, Role: role, Type: string(s.Type), Bytes: n,
		Share: float64(n) / MaxSecretDataBytes, State: StateOK,
		Created: s.CreationTimestamp.Time, Labels: s.Labels,
	}
}

// Inspect returns the layout of the record stored under key: every Secret with its
// size, hash state and owner, and, when the payload decodes, its sizes and the
// breakdown of what takes the space. A broken record still yields a layout; only a
// missing index or a failed API call is an error.
func (c *ChunkedSecrets) Inspect(ctx context.Context, key string) (*Layout, error) {
	l, err := c.InspectSecrets(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.Measure(ctx, l)
}

// InspectSecrets is the first half of Inspect, from one Get and one List: every
// Secret of the record with its size, hash state and owner, and what is wrong
// with them. The payload is not decoded: Measure does that, which costs a read of
// the chunks again, a gunzip and a decode, and, for the breakdown, compressing
// each part of the release anew.
func (c *ChunkedSecrets) InspectSecrets(ctx context.Context, key string) (*Layout, error) {
	idx, err := c.Client().Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, driver.ErrReleaseNotFound
		}
		return nil, fmt.Errorf("inspect: read index Secret %q: %w", key, err)
	}
	l := &Layout{Key: key, Index: infoOf(idx, TypeIndex), Status: idx.Labels[LabelStatus], Chunks: []SecretInfo{}}
	l.Release, l.Revision, _ = ParseKey(key)
	l.Index.HashOK = true
	l.Index.Owned = true
	// Decode errors name the Secret at fault, as the driver's do: they are shown
	// away from the table that lists it.
	if idx.Type != SecretTypeIndex {
		l.Index.State, l.Index.Detail = StateWrongTyp, fmt.Sprintf("type %q, not %q", idx.Type, SecretTypeIndex)
		l.DecodeError = fmt.Sprintf("%v: Secret %s has %s: it is not a chunked release index", ErrCorrupt, chunked.SecretRef(idx), l.Index.Detail)
		return l, nil
	}
	l.StoredBytes = len(idx.Data[DataChunk])
	names, err := ParseExtraChunks(key, idx.Data[DataExtraChunks])
	if err != nil {
		l.Index.State, l.Index.Detail = StateCorrupt, err.Error()
		l.DecodeError = fmt.Sprintf("index Secret %s: %v", chunked.SecretRef(idx), err)
	}

	// Chunks of this key, named or not, from one list.
	present := map[string]*corev1.Secret{}
	err = listPages(ctx, c.Client(), ChunkSelector(c.Owner(), key).String(), verifyPage, func(s *corev1.Secret) {
		present[s.Name] = s.DeepCopy()
	})
	if err != nil {
		return nil, fmt.Errorf("inspect: list chunk Secrets of %q: %w", key, err)
	}
	named := map[string]bool{}
	for i, n := range names {
		named[n] = true
		s, ok := present[n]
		if !ok {
			// A chunk without the labels is still read by name.
			if got, gerr := c.Client().Get(ctx, n, metav1.GetOptions{}); gerr == nil {
				s, ok = got, true
			} else if !apierrors.IsNotFound(gerr) {
				return nil, fmt.Errorf("inspect: read chunk Secret %q: %w", n, gerr)
			}
		}
		if !ok {
			l.Chunks = append(l.Chunks, SecretInfo{Name: n, Role: TypeChunk, State: StateMissing, Detail: fmt.Sprintf("chunk %d of %d does not exist", i+2, len(names)+1)})
			continue
		}
		info := infoOf(s, TypeChunk)
		info.Owned = HasOwnerRef(s, idx)
		info.HashOK = SliceHash(s.Data[DataChunk]) == HashOfChunkName(key, n)
		switch {
		case s.Type != SecretTypeChunk:
			info.State, info.Detail = StateWrongTyp, fmt.Sprintf("type %q, not %q", s.Type, SecretTypeChunk)
		case !info.HashOK:
			info.State, info.Detail = StateCorrupt, "bytes do not match the hash in the name"
		}
		l.StoredBytes += len(s.Data[DataChunk])
		l.Chunks = append(l.Chunks, info)
	}
	for n, s := range present {
		if !named[n] {
			info := infoOf(s, TypeChunk)
			info.State, info.Detail = StateOrphan, "no index names this chunk"
			info.Owned = HasOwnerRef(s, idx)
			info.HashOK = SliceHash(s.Data[DataChunk]) == HashOfChunkName(key, n)
			l.Orphans = append(l.Orphans, info)
		}
	}
	if l.DecodeError == "" {
		l.index = idx
	}
	return l, nil
}

// Measured reports whether l is complete: Measure has nothing to add to it.
func (l *Layout) Measured() bool { return l.index == nil }

// Measure is the second half of Inspect: it decodes the payload of the record
// InspectSecrets read and returns a copy of l with the decoded sizes and the
// breakdown, or with why the payload cannot be read. l itself is not changed,
// so that it may be drawn meanwhile. A layout already measured, or whose Secrets
// already say it cannot be read, comes back as it is.
func (c *ChunkedSecrets) Measure(ctx context.Context, l *Layout) (*Layout, error) {
	if l.Measured() {
		return l, nil
	}
	out := *l
	out.index = nil
	rls, err := c.Decode(ctx, l.index)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
			return nil, fmt.Errorf("inspect: %w", err)
		}
		out.DecodeError = err.Error()
		return &out, nil
	}
	out.Decoded = rls
	// The two compress the release anew, part by part and whole: side by side.
	var wg sync.WaitGroup
	wg.Go(func() { out.Parts = Breakdown(rls) })
	if n, err := HelmSecretBytes(rls); err == nil {
		out.HelmSecretBytes = n
		out.HelmSecretFits = n <= MaxSecretDataBytes
	}
	if n, err := payloadJSONLen(rls); err == nil {
		out.DecodedBytes = n
	}
	wg.Wait()
	return &out, nil
}
