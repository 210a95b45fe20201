package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
)

var _ driver.Driver = (*ChunkedSecrets)(nil)

// DefaultChunkSize is the slice size used when the configuration leaves it zero:
// (1024-8) KiB, the value OLMv1 ships. It leaves 8 KiB of the API server's 1 MiB
// Secret limit for the index's extraChunks list (about 85 names of the longest
// release names Helm allows).
const DefaultChunkSize = 1_040_384

// fetchWindow is how many chunk Secrets are requested at once, when reading and when
// writing. It bounds memory to a few slices beyond the one being decoded.
const fetchWindow = 4

// listPage is the page size of index Secret lists.
const listPage = 100

// cleanupTimeout bounds the best-effort removal of chunks after a failed write; it
// runs even when the write's own context has expired.
const cleanupTimeout = 10 * time.Second

// ErrConflict is wrapped by the error of a write whose index Secret changed or
// disappeared between being read and being written. Nothing was overwritten; read
// the release again and retry.
var ErrConflict = errors.New("release record changed concurrently")

// ChunkedSecretsConfig configures a ChunkedSecrets driver. The first four fields are
// those of helm-operator-plugins' driver, with the same meaning.
type ChunkedSecretsConfig struct {
	// ChunkSize is the largest slice of the gzip stream stored in one Secret.
	// Zero means DefaultChunkSize.
	ChunkSize int
	// MaxReadChunks refuses to read a release of more chunks. Zero means no limit.
	MaxReadChunks int
	// MaxWriteChunks refuses to write a release of more chunks. Zero means no limit.
	MaxWriteChunks int
	// Log receives one line per operation. It is never given release data.
	Log func(string, ...interface{})

	// Timeout bounds each driver call with all its API requests. Zero means none.
	Timeout time.Duration
	// MaxDecodedBytes bounds the JSON a payload may decompress to.
	// Zero means DefaultMaxDecodedBytes.
	MaxDecodedBytes int64
}

// ChunkedSecrets is the chunked Secret release driver. See the package documentation
// for the format and its guarantees. It is safe for concurrent use.
type ChunkedSecrets struct {
	client corev1client.SecretInterface
	owner  string
	cfg    ChunkedSecretsConfig
	ctx    context.Context
	now    func() time.Time
}

// NewChunkedSecrets returns a chunked release driver that stores releases of owner
// through client. It is a drop-in for helm-operator-plugins' storage.NewChunkedSecrets.
func NewChunkedSecrets(client corev1client.SecretInterface, owner string, cfg ChunkedSecretsConfig) driver.Driver {
	return NewDriver(client, owner, cfg)
}

// NewDriver is NewChunkedSecrets returning the concrete type, for callers that also
// use its inspection and repair methods.
func NewDriver(client corev1client.SecretInterface, owner string, cfg ChunkedSecretsConfig) *ChunkedSecrets {
	if cfg.ChunkSize <= 0 {
		cfg.ChunkSize = DefaultChunkSize
	}
	if cfg.MaxDecodedBytes <= 0 {
		cfg.MaxDecodedBytes = DefaultMaxDecodedBytes
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...interface{}) {}
	}
	return &ChunkedSecrets{client: client, owner: owner, cfg: cfg, ctx: context.Background(), now: time.Now}
}

// WithContext returns a copy of c whose calls run under ctx, so that a caller can
// cancel them. Driver methods have no context argument of their own.
func (c *ChunkedSecrets) WithContext(ctx context.Context) *ChunkedSecrets {
	cp := *c
	cp.ctx = ctx
	return &cp
}

// Name returns the driver's name, as the original driver does.
func (c *ChunkedSecrets) Name() string { return c.owner + "/chunkedSecrets" }

// Owner returns the owner label value of the records this driver reads and writes.
func (c *ChunkedSecrets) Owner() string { return c.owner }

// Config returns the configuration in effect, defaults applied.
func (c *ChunkedSecrets) Config() ChunkedSecretsConfig { return c.cfg }

// Client returns the Secret client the driver uses.
func (c *ChunkedSecrets) Client() corev1client.SecretInterface { return c.client }

func (c *ChunkedSecrets) opCtx() (context.Context, context.CancelFunc) {
	if c.cfg.Timeout > 0 {
		return context.WithTimeout(c.ctx, c.cfg.Timeout)
	}
	return context.WithCancel(c.ctx)
}

// record is a release encoded for storage.
type record struct {
	key     string
	gz      []byte
	slices  [][]byte
	names   []string // chunk Secret names of slices[1:], in order; may repeat
	extra   []byte   // names as the JSON stored in extraChunks
	summary Summary
}

// unique returns the chunk names without repeats, with the slice each holds.
func (r *record) unique() (names []string, slices [][]byte) {
	seen := make(map[string]bool, len(r.names))
	for i, n := range r.names {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
			slices = append(slices, r.slices[i+1])
		}
	}
	return names, slices
}

func (c *ChunkedSecrets) encode(key string, rls *release.Release) (*record, error) {
	gz, jsonLen, err := EncodePayload(rls)
	if err != nil {
		return nil, err
	}
	slices := Split(gz, c.cfg.ChunkSize)
	if c.cfg.MaxWriteChunks > 0 && len(slices) > c.cfg.MaxWriteChunks {
		return nil, fmt.Errorf("%w: %q compresses to %d bytes, which needs %d chunks of %d bytes, over the limit of %d (MaxWriteChunks)",
			ErrTooLarge, rls.Name, len(gz), len(slices), c.cfg.ChunkSize, c.cfg.MaxWriteChunks)
	}
	names := make([]string, 0, len(slices)-1)
	for _, s := range slices[1:] {
		names = append(names, ChunkName(key, s))
	}
	extra, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	if n := len(slices[0]) + len(extra); n > MaxSecretDataBytes {
		return nil, fmt.Errorf("%w: the index Secret would hold %d bytes (a %d-byte slice and a %d-byte extraChunks list), over the API server's %d-byte limit; lower ChunkSize",
			ErrTooLarge, n, len(slices[0]), len(extra), MaxSecretDataBytes)
	}
	sum := SummaryOf(rls)
	sum.StoredBytes = int64(len(gz))
	sum.DecodedBytes = int64(jsonLen)
	sum.Chunks = len(slices)
	sum.PayloadSHA256 = sha256Hex(gz)
	return &record{key: key, gz: gz, slices: slices, names: names, extra: extra, summary: sum}, nil
}

func (c *ChunkedSecrets) indexSecret(rec *record, rls *release.Release) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:        rec.key,
			Labels:      indexLabels(c.owner, rec.key, rls),
			Annotations: rec.summary.Annotations(),
		},
		Type:      SecretTypeIndex,
		Immutable: ptr.To(false),
		Data: map[string][]byte{
			DataChunk:       rec.slices[0],
			DataExtraChunks: rec.extra,
		},
	}
}

func ownerRefTo(index *corev1.Secret) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         "v1",
		Kind:               "Secret",
		Name:               index.Name,
		UID:                index.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(false),
	}
}

// HasOwnerRef reports whether chunk carries the format's ownerReference to index.
func HasOwnerRef(chunk metav1.Object, index metav1.Object) bool {
	for _, r := range chunk.GetOwnerReferences() {
		if r.Kind == "Secret" && r.Name == index.GetName() && (index.GetUID() == "" || r.UID == index.GetUID()) {
			return true
		}
	}
	return false
}

// Create stores rls under key. Chunks are written first and the index last, so the
// key never resolves to a partial release. The chunks receive their ownerReference
// once the index exists and has a UID: one PATCH per chunk.
func (c *ChunkedSecrets) Create(key string, rls *release.Release) error {
	c.cfg.Log("create: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()

	rec, err := c.encode(key, rls)
	if err != nil {
		return fmt.Errorf("create: %q: %w", key, err)
	}
	now := c.now()
	created, toAdopt, reused, err := c.writeChunks(ctx, rec, nil, now)
	if err != nil {
		c.removeUnreferenced(ctx, key, created)
		return fmt.Errorf("create: %q: %w", key, err)
	}

	want := c.indexSecret(rec, rls)
	want.Labels[LabelCreatedAt] = unixString(now)
	index, err := c.client.Create(ctx, want, metav1.CreateOptions{})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			c.removeUnreferenced(ctx, key, created)
			return driver.ErrReleaseExists
		}
		// The request may have been applied although it failed (a timeout, a dropped
		// connection): look before removing chunks an index may now name.
		got, gerr := c.client.Get(ctx, key, metav1.GetOptions{})
		switch {
		case gerr == nil && sameRecord(got, want):
			index = got
		case gerr == nil || apierrors.IsNotFound(gerr):
			c.removeUnreferenced(ctx, key, created)
			return fmt.Errorf("create: %q: write index Secret: %w", key, err)
		default:
			return fmt.Errorf("create: %q: write index Secret: %w (its chunks may be left over: run verify)", key, err)
		}
	}
	c.adopt(ctx, index, append(created, toAdopt...))
	c.ensureChunks(ctx, index, rec, reused, now)
	c.cfg.Log("created: %q (%d chunks)", key, len(rec.slices))
	return nil
}

// writeChunks creates the chunk Secrets of rec, a few at a time. A chunk that already
// exists with the right bytes is reused; one that exists with other bytes (a corrupt
// leftover under the same name) is replaced. It returns the chunks it created and the
// existing ones that lack an ownerReference to ref, and all the existing ones it
// reused.
func (c *ChunkedSecrets) writeChunks(ctx context.Context, rec *record, ref *metav1.OwnerReference, now time.Time) (created, toAdopt, reused []string, err error) {
	names, slices := rec.unique()
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchWindow)
	for i, name := range names {
		data := slices[i]
		g.Go(func() error {
			s := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: chunkLabels(c.owner, rec.key, now)},
				Type:       SecretTypeChunk,
				Immutable:  ptr.To(true),
				Data:       map[string][]byte{DataChunk: data},
			}
			if ref != nil {
				s.OwnerReferences = []metav1.OwnerReference{*ref}
			}
			ex, err := c.createChunk(gctx, s)
			if err != nil {
				return fmt.Errorf("write chunk %d of %d, Secret %q: %w", slices2pos(rec, name), len(rec.slices), name, err)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ex == nil:
				created = append(created, name)
			case ref == nil || !hasRef(ex, ref.UID):
				toAdopt = append(toAdopt, name)
			}
			if ex != nil {
				reused = append(reused, name)
			}
			return nil
		})
	}
	err = g.Wait()
	return created, toAdopt, reused, err
}

// ensureChunks runs after an index naming rec's chunks was written, and recreates
// any of the given reused chunks that has disappeared since it was found. A chunk
// found already there may belong to another write of the same content that has
// since failed and removed what it created (it read the index before this write
// named the chunk), or be a leftover that gc removed: without this, the index
// would name a chunk that no longer exists. Failures are logged; verify reports a
// missing chunk.
func (c *ChunkedSecrets) ensureChunks(ctx context.Context, index *corev1.Secret, rec *record, names []string, now time.Time) {
	if len(names) == 0 {
		return
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all, slices := rec.unique()
	ref := ownerRefTo(index)
	for i, name := range all {
		if !want[name] {
			continue
		}
		_, err := c.client.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			c.cfg.Log("write: %q: cannot check reused chunk Secret %q: %v", rec.key, name, err)
			continue
		}
		c.cfg.Log("write: %q: reused chunk Secret %q disappeared; writing it again", rec.key, name)
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: chunkLabels(c.owner, rec.key, now), OwnerReferences: []metav1.OwnerReference{ref}},
			Type:       SecretTypeChunk,
			Immutable:  ptr.To(true),
			Data:       map[string][]byte{DataChunk: slices[i]},
		}
		if _, err := c.createChunk(ctx, s); err != nil {
			c.cfg.Log("write: %q: chunk Secret %q could not be written again: %v", rec.key, name, err)
		}
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

// slices2pos returns the 1-based position of the first slice stored under name.
func slices2pos(rec *record, name string) int {
	for i, n := range rec.names {
		if n == name {
			return i + 2
		}
	}
	return 0
}

// createChunk creates s. When a Secret of that name exists it returns it if it holds
// the same bytes (reused), or replaces it if it does not.
func (c *ChunkedSecrets) createChunk(ctx context.Context, s *corev1.Secret) (reused *corev1.Secret, err error) {
	_, err = c.client.Create(ctx, s, metav1.CreateOptions{})
	if err == nil || !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	ex, err := c.client.Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// Removed between the two calls (a concurrent write's cleanup, or gc):
		// create it after all.
		_, err = c.client.Create(ctx, s, metav1.CreateOptions{})
		if err == nil || !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		ex, err = c.client.Get(ctx, s.Name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, err
	}
	if ex.Type == SecretTypeChunk && bytes.Equal(ex.Data[DataChunk], s.Data[DataChunk]) {
		return ex, nil
	}
	c.cfg.Log("write: replacing Secret %q, whose content does not match its name", s.Name)
	err = c.client.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ex.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("replace mismatching chunk: %w", err)
	}
	_, err = c.client.Create(ctx, s, metav1.CreateOptions{})
	return nil, err
}

// adopt gives the named chunks their ownerReference to index. Failure is logged, not
// returned: the release is complete and readable either way, and verify reports a
// chunk without owner.
func (c *ChunkedSecrets) adopt(ctx context.Context, index *corev1.Secret, names []string) {
	if len(names) == 0 {
		return
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []metav1.OwnerReference{ownerRefTo(index)}}})
	if err != nil {
		return
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchWindow)
	for _, n := range names {
		g.Go(func() error {
			if _, err := c.client.Patch(gctx, n, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				c.cfg.Log("create: chunk Secret %q left without ownerReference: %v", n, err)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// sameRecord reports whether the stored index got holds the record want describes.
func sameRecord(got, want *corev1.Secret) bool {
	return got.Type == want.Type &&
		bytes.Equal(got.Data[DataChunk], want.Data[DataChunk]) &&
		bytes.Equal(got.Data[DataExtraChunks], want.Data[DataExtraChunks]) &&
		got.Labels[LabelStatus] == want.Labels[LabelStatus] &&
		got.Labels[LabelVersion] == want.Labels[LabelVersion]
}

// removeUnreferenced deletes the given chunks of key unless the key's current index
// names them. It runs after a failed write, on a context of its own.
func (c *ChunkedSecrets) removeUnreferenced(ctx context.Context, key string, names []string) {
	if len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	keep := map[string]bool{}
	idx, err := c.client.Get(ctx, key, metav1.GetOptions{})
	switch {
	case err == nil:
		refs, _ := ParseExtraChunks(key, idx.Data[DataExtraChunks])
		for _, n := range refs {
			keep[n] = true
		}
	case !apierrors.IsNotFound(err):
		c.cfg.Log("cleanup: %q: cannot read the index, leaving %d chunk Secrets for gc: %v", key, len(names), err)
		return
	}
	for _, n := range names {
		if keep[n] {
			continue
		}
		if err := c.client.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.cfg.Log("cleanup: %q: chunk Secret %q left for gc: %v", key, n, err)
		}
	}
}

// Update replaces the release stored under key. New chunks are written first, then
// the index is replaced with a precondition on the resourceVersion it was read at, and
// only then are chunks the new index no longer names removed. A release that has grown
// past MaxWriteChunks is refused before anything is written.
func (c *ChunkedSecrets) Update(key string, rls *release.Release) error {
	c.cfg.Log("update: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()

	cur, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return err
		}
		return fmt.Errorf("update: %w", err)
	}
	rec, err := c.encode(key, rls)
	if err != nil {
		return fmt.Errorf("update: %q: %w", key, err)
	}
	// The old list may be unreadable when the old record is broken; the update then
	// replaces it, and its chunks are left for gc.
	oldNames, _ := ParseExtraChunks(key, cur.Data[DataExtraChunks])

	now := c.now()
	ref := ownerRefTo(cur)
	created, toAdopt, reused, err := c.writeChunks(ctx, rec, &ref, now)
	if err != nil {
		c.removeUnreferenced(ctx, key, created)
		return fmt.Errorf("update: %q: %w", key, err)
	}

	want := c.indexSecret(rec, rls)
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

	if _, err := c.client.Update(ctx, want, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			c.removeUnreferenced(ctx, key, created)
			return fmt.Errorf("update: %q: %w: %w", key, ErrConflict, err)
		}
		got, gerr := c.client.Get(ctx, key, metav1.GetOptions{})
		switch {
		case gerr == nil && sameRecord(got, want):
			// Applied despite the error.
		case gerr == nil || apierrors.IsNotFound(gerr):
			c.removeUnreferenced(ctx, key, created)
			return fmt.Errorf("update: %q: write index Secret: %w", key, err)
		default:
			return fmt.Errorf("update: %q: write index Secret: %w (new chunks may be left over: run verify)", key, err)
		}
	}
	c.adopt(ctx, cur, toAdopt)
	// Chunks the old index named were safe to reuse: a writer that removes what it
	// created never created those. Only the others need checking.
	var atRisk []string
	for _, n := range reused {
		if !contains(oldNames, n) {
			atRisk = append(atRisk, n)
		}
	}
	c.ensureChunks(ctx, cur, rec, atRisk, now)

	keep := make(map[string]bool, len(rec.names))
	for _, n := range rec.names {
		keep[n] = true
	}
	for _, n := range oldNames {
		if keep[n] {
			continue
		}
		keep[n] = true // delete once even if listed twice
		if err := c.client.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.cfg.Log("update: %q: old chunk Secret %q left for gc: %v", key, n, err)
		}
	}
	c.cfg.Log("updated: %q (%d chunks)", key, len(rec.slices))
	return nil
}

func isChunkviewAnnotation(k string) bool {
	return len(k) > len(AnnotationPrefix) && k[:len(AnnotationPrefix)] == AnnotationPrefix
}

// Delete removes the release stored under key and returns it. The index goes first,
// with preconditions on its UID and resourceVersion, then the chunks; a failure in
// between leaves chunks that FindLeftovers reports, never a partial release.
func (c *ChunkedSecrets) Delete(key string) (*release.Release, error) {
	c.cfg.Log("delete: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()

	idx, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("delete: %w", err)
	}
	rls, err := c.decode(ctx, idx)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	if err := c.deleteRecord(ctx, idx); err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
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
func (c *ChunkedSecrets) ForceDelete(key string) error {
	c.cfg.Log("force delete: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()
	idx, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return err
		}
		return fmt.Errorf("force delete: %w", err)
	}
	if err := c.deleteRecord(ctx, idx); err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return err
		}
		return fmt.Errorf("force delete: %q: %w", key, err)
	}
	return nil
}

func (c *ChunkedSecrets) deleteRecord(ctx context.Context, idx *corev1.Secret) error {
	err := c.client.Delete(ctx, idx.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &idx.UID, ResourceVersion: &idx.ResourceVersion}})
	switch {
	case err == nil:
	case apierrors.IsNotFound(err):
		return driver.ErrReleaseNotFound
	case apierrors.IsConflict(err):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	default:
		// Applied despite the error?
		if _, gerr := c.client.Get(ctx, idx.Name, metav1.GetOptions{}); !apierrors.IsNotFound(gerr) {
			return fmt.Errorf("delete index Secret: %w", err)
		}
	}
	// The chunks go by the names the deleted index gave them, each once. A
	// label-wide sweep would also take the chunks of a new record that a concurrent
	// writer is creating under the same key; chunks the index did not name (leftovers
	// of an interrupted write) stay for gc, or for the garbage collector through
	// their ownerReference.
	names, err := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	if err != nil {
		// A forced delete of a record whose list is unreadable: its chunks can only
		// be found by their labels.
		sel := ChunkSelector(c.owner, idx.Name).String()
		if err := c.client.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel}); err != nil {
			c.cfg.Log("delete: %q: chunk Secrets left for gc: %v", idx.Name, err)
		}
		return nil
	}
	done := map[string]bool{}
	for _, n := range names {
		if done[n] {
			continue
		}
		done[n] = true
		if err := c.client.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.cfg.Log("delete: %q: chunk Secret %q left for gc: %v", idx.Name, n, err)
		}
	}
	return nil
}

// Get returns the release stored under key.
func (c *ChunkedSecrets) Get(key string) (*release.Release, error) {
	c.cfg.Log("get: %q", key)
	ctx, cancel := c.opCtx()
	defer cancel()
	idx, err := c.getIndex(ctx, key)
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("get: %w", err)
	}
	rls, err := c.decode(ctx, idx)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	return rls, nil
}

// ReadIndex returns the index Secret of key, checked to be one.
func (c *ChunkedSecrets) ReadIndex(ctx context.Context, key string) (*corev1.Secret, error) {
	return c.getIndex(ctx, key)
}

// Decode reads the release an index Secret describes, fetching and checking its
// chunks.
func (c *ChunkedSecrets) Decode(ctx context.Context, index *corev1.Secret) (*release.Release, error) {
	return c.decode(ctx, index)
}

func (c *ChunkedSecrets) getIndex(ctx context.Context, key string) (*corev1.Secret, error) {
	s, err := c.client.Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, driver.ErrReleaseNotFound
		}
		return nil, fmt.Errorf("read index Secret %q: %w", key, err)
	}
	if s.Type != SecretTypeIndex {
		return nil, fmt.Errorf("%w: Secret %s has type %q, not %q: it is not a chunked release index (is this Helm's own storage?)",
			ErrCorrupt, secretRef(s), s.Type, SecretTypeIndex)
	}
	return s, nil
}

func secretRef(s *corev1.Secret) string {
	if s.Namespace == "" {
		return strconv.Quote(s.Name)
	}
	return strconv.Quote(s.Namespace + "/" + s.Name)
}

// List returns the releases for which filter returns true. Records that cannot be
// decoded are logged by key and skipped, as Helm's own drivers do.
func (c *ChunkedSecrets) List(filter func(*release.Release) bool) ([]*release.Release, error) {
	c.cfg.Log("list")
	ctx, cancel := c.opCtx()
	defer cancel()
	var out []*release.Release
	err := c.eachIndex(ctx, IndexSelector(c.owner), func(idx *corev1.Secret) error {
		rls, err := c.decode(ctx, idx)
		if err != nil {
			return skipBroken("list", idx, err, c.cfg.Log)
		}
		if filter == nil || filter(rls) {
			out = append(out, rls)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return out, nil
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
// the others against the custom labels in the payload. It returns
// driver.ErrReleaseNotFound when nothing matches.
func (c *ChunkedSecrets) Query(lbs map[string]string) ([]*release.Release, error) {
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
			return nil, driver.ErrReleaseNotFound // e.g. another owner
		default:
			server[k] = v
		}
	}
	sel := labels.SelectorFromSet(custom)
	var out []*release.Release
	err := c.eachIndex(ctx, labels.SelectorFromSet(server), func(idx *corev1.Secret) error {
		rls, err := c.decode(ctx, idx)
		if err != nil {
			return skipBroken("query", idx, err, c.cfg.Log)
		}
		if sel.Matches(labels.Set(rls.Labels)) {
			out = append(out, rls)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if len(out) == 0 {
		return nil, driver.ErrReleaseNotFound
	}
	return out, nil
}

// eachIndex calls fn for every index Secret matching sel, a page at a time.
func (c *ChunkedSecrets) eachIndex(ctx context.Context, sel labels.Selector, fn func(*corev1.Secret) error) error {
	opts := metav1.ListOptions{LabelSelector: sel.String(), Limit: listPage}
	for {
		list, err := c.client.List(ctx, opts)
		if err != nil {
			return err
		}
		for i := range list.Items {
			if err := fn(&list.Items[i]); err != nil {
				return err
			}
		}
		if list.Continue == "" {
			return nil
		}
		opts.Continue = list.Continue
	}
}

// decode reads the release an index describes: it checks the index, fetches the
// chunks a few at a time, checks each against its name, and decodes the stream under
// the decompressed-size bound. Errors name the Secret at fault.
func (c *ChunkedSecrets) decode(ctx context.Context, idx *corev1.Secret) (*release.Release, error) {
	rls, _, err := c.decodeStats(ctx, idx)
	return rls, err
}

// DecodeStats is Decode that also returns the record's summary: the release's chart
// and versions, its stored (gzip) size and its chunk count.
func (c *ChunkedSecrets) DecodeStats(ctx context.Context, idx *corev1.Secret) (*release.Release, Summary, error) {
	rls, stored, err := c.decodeStats(ctx, idx)
	if err != nil {
		return nil, Summary{}, err
	}
	sum := SummaryOf(rls)
	sum.StoredBytes = stored
	names, _ := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	sum.Chunks = 1 + len(names)
	return rls, sum, nil
}

func (c *ChunkedSecrets) decodeStats(ctx context.Context, idx *corev1.Secret) (*release.Release, int64, error) {
	if idx.Type != SecretTypeIndex {
		return nil, 0, fmt.Errorf("%w: Secret %s has type %q, not %q", ErrCorrupt, secretRef(idx), idx.Type, SecretTypeIndex)
	}
	names, err := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	if err != nil {
		return nil, 0, fmt.Errorf("index Secret %s: %w", secretRef(idx), err)
	}
	total := 1 + len(names)
	if c.cfg.MaxReadChunks > 0 && total > c.cfg.MaxReadChunks {
		return nil, 0, fmt.Errorf("%w: index Secret %s names %d chunks, over the limit of %d (MaxReadChunks)", ErrTooLarge, secretRef(idx), total, c.cfg.MaxReadChunks)
	}
	first, ok := idx.Data[DataChunk]
	if !ok || len(first) == 0 {
		return nil, 0, fmt.Errorf("%w: index Secret %s has no data.chunk", ErrCorrupt, secretRef(idx))
	}
	cs := newChunkStream(ctx, first, names, func(ctx context.Context, i int, name string) ([]byte, error) {
		return c.fetchChunk(ctx, idx, i, total, name)
	})
	defer cs.Close()
	var r io.Reader = cs
	want := idx.Annotations[AnnotationPayloadSHA256]
	h := newSHA256()
	if want != "" {
		r = io.TeeReader(cs, h)
	}
	var hint int64
	if sum, ok := SummaryFromMeta(idx); ok {
		// The annotation is only a hint: one that claims more than the stored
		// slices can hold must not make a tiny record allocate a huge buffer.
		hint = min(sum.DecodedBytes, maxRatio*int64(len(first))*int64(total))
	}
	rls, err := decodePayload(r, c.cfg.MaxDecodedBytes, hint)
	if err != nil {
		if cs.err != nil {
			return nil, 0, cs.err
		}
		return nil, 0, fmt.Errorf("release record %s: %w", secretRef(idx), err)
	}
	if want != "" {
		if got := hexSum(h); got != want {
			return nil, 0, fmt.Errorf("%w: release record %s: payload SHA-256 %s does not match %s recorded on the index", ErrCorrupt, secretRef(idx), got, want)
		}
	}
	// Helm builds the key from the release's name and revision, so a payload that
	// names another release is not this record, whatever it holds (for instance a
	// JSON object with "name" twice, of which decoders keep different ones). Handing
	// it out would make Helm act on the wrong release.
	if name, rev, ok := ParseKey(idx.Name); ok && (rls.Name != name || rls.Version != rev) {
		return nil, 0, fmt.Errorf("%w: release record %s holds release %q revision %d, not the %q revision %d its name says", ErrCorrupt, secretRef(idx), rls.Name, rls.Version, name, rev)
	}
	return rls, cs.n, nil
}

// fetchChunk reads and checks chunk i (0-based among the extra chunks) of idx.
func (c *ChunkedSecrets) fetchChunk(ctx context.Context, idx *corev1.Secret, i, total int, name string) ([]byte, error) {
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
			return data, nil
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read %s: %w", pos, context.Cause(ctx))
	}
	s, err = c.client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: %s, named by index %s, does not exist", ErrChunkMissing, pos, secretRef(idx))
		}
		return nil, fmt.Errorf("read %s: %w", pos, err)
	}
	return checkChunk(s, idx, pos, name)
}

// checkChunk returns the slice chunk Secret s holds, checked against its name.
func checkChunk(s, idx *corev1.Secret, pos, name string) ([]byte, error) {
	if s.Type != SecretTypeChunk {
		return nil, fmt.Errorf("%w: %s has type %q, not %q", ErrCorrupt, pos, s.Type, SecretTypeChunk)
	}
	data, ok := s.Data[DataChunk]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("%w: %s has no data.chunk", ErrCorrupt, pos)
	}
	if len(data) > MaxSecretDataBytes {
		return nil, fmt.Errorf("%w: %s holds %d bytes, more than a Secret can", ErrCorrupt, pos, len(data))
	}
	if got, want := SliceHash(data), name[len(idx.Name)+1:]; got != want {
		return nil, fmt.Errorf("%w: %s: its %d bytes hash to %s, not %s as its name says", ErrCorrupt, pos, len(data), got, want)
	}
	return data, nil
}
