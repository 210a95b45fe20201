package chunked

import (
	"context"
	"io"
	"reflect"
	"sync/atomic"
	"time"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Codec is what the chunked driver needs to know of one Helm major's release type
// T. Everything else — the format (JSON plus "labels", gzip, slices, hashes), the
// writes with their pending index, claims and preconditions, the reads with their
// retries, checks and bounds, and the tracking behind Expect and ErrConflict — is
// Core's, the same for every Helm. ChunkedSecrets (Helm 3) and
// storage/helm4.ChunkedSecrets (Helm 4) are the two adapters: each is a Codec and
// the driver.Driver methods of its Helm's signatures over a Core.
type Codec[T any] interface {
	// EncodeJSON writes the format's JSON document of rls to w, as json.Encoder
	// writes it: the release's own JSON, as its Helm encodes it, with one more
	// top-level field, "labels", holding its custom labels.
	EncodeJSON(w io.Writer, rls *T) error
	// DecodeJSON decodes a document EncodeJSON (or another writer of the format)
	// wrote into a new release, and returns the document's "labels" apart. It
	// must decode as encoding/json does, and keep nothing of js, which is reused
	// once it returns: UnmarshalJSON does both, faster.
	DecodeJSON(js []byte) (rls *T, labels map[string]string, err error)
	// SetLabels sets the custom labels of rls, which Helm keeps outside its JSON.
	SetLabels(rls *T, labels map[string]string)
	// Fields returns what the format records of rls outside its payload.
	Fields(rls *T) Fields
	// NotFound and Exists return the driver.ErrReleaseNotFound and
	// driver.ErrReleaseExists of T's Helm, which the core returns unwrapped where
	// that Helm's drivers do: Helm compares them by identity in places.
	NotFound() error
	Exists() error
}

// Fields is what the chunked format records of a release outside its payload: the
// labels of its index Secret, and chunkview's summary annotation.
type Fields struct {
	// Name and Version are the release's name and revision, the index's name and
	// version labels. A read checks them against the key.
	Name    string
	Version int
	// HasInfo is whether the release has its info; one without is written with
	// the status unknown, and refused as corrupt when read.
	HasInfo bool
	// Status is the release's status, the index's status label.
	Status string
	// Labels are the release's custom labels, which Query matches.
	Labels map[string]string
	// Summary is what a listing shows of the release. The driver fills in the
	// sizes, chunk count and payload hash.
	Summary Summary
}

// Core is the chunked Secret release driver for releases of type T, given that
// type's Codec: it stores, reads, lists, queries and deletes records of the format
// with every guarantee the package documentation lists. Its Create, Get, Update,
// Delete, List and Query take and return *T; each Helm's adapter wraps them in the
// signatures of that Helm's driver.Driver (ChunkedSecrets for Helm 3,
// storage/helm4.ChunkedSecrets for Helm 4), which is what Helm is given. It is
// safe for concurrent use; the versions it has read (see Expect) are shared by the
// copies WithContext makes.
type Core[T any] struct {
	client corev1client.SecretInterface
	owner  string
	cfg    Config
	codec  Codec[T]
	// notFound and exists are the codec's fixed errors.
	notFound, exists error
	ctx              context.Context
	now              func() time.Time
	reads            *readSet[T]
	// checkFirst makes every create compress its whole record before writing, as
	// one that could outgrow a bound does (tests run both ways).
	checkFirst bool
	// walk is the payload type that DecodeStats compares a record's JSON with,
	// for the fields that type drops; nil when nobody asks.
	walk reflect.Type
	// noReuse makes a read that starts over fetch every chunk again (tests and
	// benchmarks measure reuse against it).
	noReuse bool
	// cacheOff is set once a write showed that cfg.Cache is the view of another
	// namespace than the Secret client's: the core reads the API server then.
	// Copies of the core share it.
	cacheOff *atomic.Bool
}

// NewCore returns the driver core that stores releases of type T, encoded by
// codec, of owner through client, with cfg's zero fields set to their defaults.
// Helm is given an adapter over it, not the core itself: NewDriver (Helm 3) and
// storage/helm4.NewDriver (Helm 4).
func NewCore[T any](client corev1client.SecretInterface, owner string, cfg Config, codec Codec[T]) *Core[T] {
	if cfg.ChunkSize <= 0 {
		cfg.ChunkSize = DefaultChunkSize
	}
	if cfg.MaxDecodedBytes <= 0 {
		cfg.MaxDecodedBytes = DefaultMaxDecodedBytes
	}
	if cfg.ReadRetry == 0 {
		cfg.ReadRetry = DefaultReadRetry
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...interface{}) {}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Core[T]{
		client: client, owner: owner, cfg: cfg, codec: codec, notFound: codec.NotFound(), exists: codec.Exists(),
		ctx: context.Background(), now: now, reads: newReadSet[T](), cacheOff: new(atomic.Bool),
	}
}

// WithContext returns a copy of c whose calls run under ctx, so that a caller can
// cancel them. Driver methods have no context argument of their own.
func (c *Core[T]) WithContext(ctx context.Context) *Core[T] {
	cp := *c
	cp.ctx = ctx
	return &cp
}

// Name returns the driver's name, as the original driver does.
func (c *Core[T]) Name() string { return c.owner + "/chunkedSecrets" }

// Owner returns the owner label value of the records this driver reads and writes.
func (c *Core[T]) Owner() string { return c.owner }

// Config returns the configuration in effect, defaults applied.
func (c *Core[T]) Config() Config { return c.cfg }

// Client returns the Secret client the driver uses.
func (c *Core[T]) Client() corev1client.SecretInterface { return c.client }

func (c *Core[T]) opCtx() (context.Context, context.CancelFunc) {
	if c.cfg.Timeout > 0 {
		return context.WithTimeout(c.ctx, c.cfg.Timeout)
	}
	return context.WithCancel(c.ctx)
}

// fields returns what the format records of rls outside its payload, the status
// of a release without info recorded as unknown.
func (c *Core[T]) fields(rls *T) Fields {
	f := c.codec.Fields(rls)
	if !f.HasInfo {
		f.Status = statusUnknown
	}
	return f
}

// statusUnknown is the status label of a release without info, as Helm's
// release.StatusUnknown reads in both majors.
const statusUnknown = "unknown"
