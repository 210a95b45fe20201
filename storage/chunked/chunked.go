package chunked

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/ptr"
)

// DefaultChunkSize is the slice size used when the configuration leaves it zero:
// (1024-8) KiB, the value OLMv1 ships. It leaves 8 KiB of the API server's 1 MiB
// Secret limit for the index's extraChunks list (about 85 names of the longest
// release names Helm allows).
const DefaultChunkSize = 1_040_384

// DefaultReadRetry is how long a read rides out a write in progress (a chunk missing
// or not matching its index) before it reports the record broken.
const DefaultReadRetry = 2 * time.Second

// fetchWindow is how many chunk Secrets are requested at once, when reading and when
// writing. It bounds memory to a few slices beyond the one being decoded.
const fetchWindow = 4

// listPage is the page size of index Secret lists, which carry each record's first
// slice: it bounds the memory a page holds.
const listPage = 100

// DefaultMinLeftoverAge is the age below which an unreferenced chunk is assumed to
// belong to a write in flight: gc (RemoveLeftovers) spares younger ones, and a
// write that took more than half of it gives up before naming its chunks.
const DefaultMinLeftoverAge = 2 * time.Minute

// VerifyPage bounds how many chunk Secrets, with their data, a listing of chunks
// holds at once.
const VerifyPage = 16

// cleanupTimeout bounds the best-effort removal of chunks after a failed write; it
// runs even when the write's own context has expired.
const cleanupTimeout = 10 * time.Second

// ErrConflict is wrapped by the error of a write whose record changed or disappeared
// since this driver read it, and by reads of a driver held to a plan (Expect) that
// find the release moved on. Nothing was overwritten; read the release again.
var ErrConflict = errors.New("release record changed concurrently")

// Config configures a chunked release driver (storage.ChunkedSecretsConfig for
// Helm 3, helm4.ChunkedSecretsConfig for Helm 4). The first four fields are
// those of helm-operator-plugins' driver, with the same meaning.
type Config struct {
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
	// ReadRetry is how long a read waits, re-reading the index with backoff, for a
	// record whose chunks are missing or do not match (another writer may be
	// writing it) before reporting it broken. A read that starts again fetches
	// only the chunks it has not verified yet. Zero means DefaultReadRetry; a
	// negative value reports at once.
	ReadRetry time.Duration
	// Metadata, when set, is client-go's metadata client for Secrets in the same
	// namespace as the driver's Secret client. The driver then reads the versions of
	// chunk Secrets it is about to delete without their data; without it, it reads
	// them whole.
	Metadata metadata.ResourceInterface
	// Cache, when set, is the release cache the driver reads through: a
	// ReleaseCache's view of the namespace of the driver's Secret client
	// (cache.Namespace(ns)). Get, List and Query then read the index Secrets from
	// its informer and the releases it holds, and make no request once it holds
	// them; writes still go to the API server with their preconditions. See
	// ReleaseCache.
	Cache *ReleaseCache
	// Now is the clock of the records' createdAt and modifiedAt labels, of the
	// pending lease and of a resting index's age; nil means time.Now. The
	// demo, whose clock starts at its snapshot's moment, gives its own.
	Now func() time.Time
}

// record is a release encoded for storage.
type record struct {
	key     string
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

// slice returns the slice a chunk of r is named after.
func (r *record) slice(name string) []byte {
	for i, n := range r.names {
		if n == name {
			return r.slices[i+1]
		}
	}
	return nil
}

// pos returns the 1-based position of the first slice stored under name.
func (r *record) pos(name string) int {
	for i, n := range r.names {
		if n == name {
			return i + 2
		}
	}
	return 0
}

// encode returns the record of rls under key.
func (c *Core[T]) encode(key string, rls *T) (*record, error) {
	js, err := c.encodeJSON(rls)
	if err != nil {
		return nil, err
	}
	return c.compress(key, c.fields(rls), js, c.newSlicer(key, len(js)))
}

// compress compresses js, the JSON of the release f describes, into w, and
// returns the record it makes once checked against MaxWriteChunks and the index's
// room.
func (c *Core[T]) compress(key string, f Fields, js []byte, w *slicer) (*record, error) {
	if err := gzipInto(w, js); err != nil {
		return nil, fmt.Errorf("compress release %q: %w", f.Name, err)
	}
	w.cut()
	slices := w.slices
	if c.cfg.MaxWriteChunks > 0 && len(slices) > c.cfg.MaxWriteChunks {
		return nil, fmt.Errorf("%w: %q compresses to %d bytes, which needs %d chunks of %d bytes, over the limit of %d (MaxWriteChunks)",
			ErrTooLarge, f.Name, w.total, len(slices), c.cfg.ChunkSize, c.cfg.MaxWriteChunks)
	}
	names := w.names
	if names == nil {
		names = []string{}
	}
	extra, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	if n := len(slices[0]) + len(extra); n > MaxSecretDataBytes {
		return nil, fmt.Errorf("%w: the index Secret would hold %d bytes (a %d-byte slice and a %d-byte extraChunks list), over the API server's %d-byte limit; lower ChunkSize",
			ErrTooLarge, n, len(slices[0]), len(extra), MaxSecretDataBytes)
	}
	sum := f.Summary
	sum.StoredBytes = int64(w.total)
	sum.DecodedBytes = int64(len(js))
	sum.Chunks = len(slices)
	sum.PayloadSHA256 = hexSum(w.sum)
	return &record{key: key, slices: slices, names: names, extra: extra, summary: sum}, nil
}

// streamable reports whether a record of jsonLen bytes of JSON under key may be
// written while it is compressed: whether no compression of it can outgrow
// MaxWriteChunks or the index's room for chunk names, so that nothing is left to
// check before the first write.
func (c *Core[T]) streamable(key string, jsonLen int) bool {
	if c.checkFirst {
		return false
	}
	n := (gzipBound(jsonLen) + c.cfg.ChunkSize - 1) / c.cfg.ChunkSize
	if c.cfg.MaxWriteChunks > 0 && n > c.cfg.MaxWriteChunks {
		return false
	}
	// Each name in extraChunks: quoted, a comma, key-<13 characters>.
	extra := 2 + max(n-1, 0)*(len(key)+1+13+3)
	return c.cfg.ChunkSize+extra <= MaxSecretDataBytes
}

// gzipBound is more than the most bytes gzip can turn n bytes into: deflate grows
// incompressible data by the 5-byte header of each stored block (one per 16 KiB
// here, 0.03%), and gzip adds 18 bytes; the bound allows 0.1% and 64 bytes.
func gzipBound(n int) int { return n + n/1024 + 64 }

// slicer receives a gzip stream and cuts it into slices of at most size bytes,
// naming each after the first (ChunkName). When set, started runs once the stream
// outgrows its first slice, next receives each later slice as soon as it is
// complete (the last when the stream ends), and stopped ends the stream with the
// error it returns.
type slicer struct {
	key    string
	size   int
	grow   int // the first capacity of a slice
	slices [][]byte
	names  []string // of slices[1:]
	cur    []byte
	total  int
	sum    hash.Hash

	started func()
	next    func(pos int, name string, slice []byte)
	stopped func() error
}

func (c *Core[T]) newSlicer(key string, jsonLen int) *slicer {
	return &slicer{key: key, size: c.cfg.ChunkSize, grow: min(c.cfg.ChunkSize, max(jsonLen/4, 512)), sum: newSHA256()}
}

func (w *slicer) Write(p []byte) (int, error) {
	if w.stopped != nil {
		if err := w.stopped(); err != nil {
			return 0, err
		}
	}
	n := len(p)
	_, _ = w.sum.Write(p)
	w.total += n
	for len(p) > 0 {
		if len(w.cur) == w.size {
			w.cut()
		}
		if w.cur == nil {
			w.cur = make([]byte, 0, w.grow)
			if len(w.slices) == 1 && w.started != nil {
				w.started()
			}
		}
		k := min(w.size-len(w.cur), len(p))
		w.cur = append(w.cur, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// cut ends the slice being filled, if any.
func (w *slicer) cut() {
	if w.cur == nil {
		return
	}
	s := w.cur[:len(w.cur):len(w.cur)]
	w.cur = nil
	w.slices = append(w.slices, s)
	if pos := len(w.slices); pos > 1 {
		name := ChunkName(w.key, s)
		w.names = append(w.names, name)
		if w.next != nil {
			w.next(pos, name, s)
		}
	}
}

func (c *Core[T]) indexSecret(rec *record, f Fields) *corev1.Secret {
	annotations := rec.summary.Annotations()
	if len(rec.names) > 0 {
		hashes := make([]string, len(rec.names))
		for i, n := range rec.names {
			hashes[i] = n[len(rec.key)+1:]
		}
		annotations[AnnotationChunkHashes] = strings.Join(hashes, ",")
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:        rec.key,
			Labels:      indexLabels(c.owner, rec.key, f),
			Annotations: annotations,
		},
		Type:      SecretTypeIndex,
		Immutable: ptr.To(false),
		Data: map[string][]byte{
			DataChunk:       rec.slices[0],
			DataExtraChunks: rec.extra,
		},
	}
}

// ChunkSecret is the one constructor of a chunk Secret: slice data of key, written
// by owner at created, named after the slice's hash, immutable, and owned by the
// index ref points at when ref is set.
func ChunkSecret(owner, key string, data []byte, created time.Time, ref *metav1.OwnerReference) *corev1.Secret {
	return chunkSecretNamed(owner, key, ChunkName(key, data), data, created, ref)
}

// chunkSecretNamed is ChunkSecret for data already hashed into name.
func chunkSecretNamed(owner, key, name string, data []byte, created time.Time, ref *metav1.OwnerReference) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: chunkLabels(owner, key, created)},
		Type:       SecretTypeChunk,
		Immutable:  ptr.To(true),
		Data:       map[string][]byte{DataChunk: data},
	}
	if ref != nil {
		s.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	return s
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

func isChunkviewAnnotation(k string) bool {
	return len(k) > len(AnnotationPrefix) && k[:len(AnnotationPrefix)] == AnnotationPrefix
}
