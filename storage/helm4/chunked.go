package helm4

import (
	"context"
	"errors"
	"fmt"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v4/pkg/release"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage/chunked"
)

var _ driver.Driver = (*ChunkedSecrets)(nil)

// ChunkedSecrets is the chunked Secret release driver for Helm 4: Helm 4's
// driver.Driver over the chunked.Core that the Helm 3 driver runs on too. It reads
// and writes the format of storage.ChunkedSecrets and helm-operator-plugins, with
// the same guarantees. Besides the driver.Driver methods, the core's are at hand
// through the embedded Core: ForceDelete, ReadIndex, ReadIndexes, ReadVersion,
// Decode, InspectSecrets, Owner, Config, Client, and typed reads (Core.Get
// returns *rspb.Release). Every one of them returns Helm 4's
// driver.ErrReleaseNotFound and driver.ErrReleaseExists, unwrapped, where Helm 4's
// drivers return them. It is safe for concurrent use; the versions it has read (see
// Expect) are shared by the copies WithContext makes.
type ChunkedSecrets struct {
	*chunked.Core[rspb.Release]
	log *logHolder
}

// NewChunkedSecrets returns a chunked release driver for Helm 4 that stores the
// releases of owner through client, as storage.NewChunkedSecrets does for Helm 3
// and helm-operator-plugins' storage.NewChunkedSecrets does: the same records,
// readable by all three. Helm 4's actions take it as cfg.Releases =
// helmstorage.Init(d) (Helm's helm.sh/helm/v4/pkg/storage), set after
// action.Configuration's Init.
func NewChunkedSecrets(client corev1client.SecretInterface, owner string, cfg chunked.Config) driver.Driver {
	return NewDriver(client, owner, cfg)
}

// NewDriver is NewChunkedSecrets returning the concrete type, for callers that also
// hold it to a plan (Expect), cancel its calls (WithContext) or repair records
// (ForceDelete). When cfg.Log is nil, the driver's log lines (keys and counts,
// never release data) go to its slog logger at debug level: slog.Default(), or the
// handler SetLogger gives it.
func NewDriver(client corev1client.SecretInterface, owner string, cfg chunked.Config) *ChunkedSecrets {
	log := &logHolder{}
	if cfg.Log == nil {
		cfg.Log = log.debugf
	}
	return &ChunkedSecrets{Core: chunked.NewCore[rspb.Release](client, owner, cfg, codec{}), log: log}
}

// WithContext returns a copy of c whose calls run under ctx, so that a caller can
// cancel them. Driver methods have no context argument of their own.
func (c *ChunkedSecrets) WithContext(ctx context.Context) *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.WithContext(ctx), log: c.log}
}

// Expect returns a copy of c whose reads and writes hold release's records to the
// given resourceVersions (key -> index resourceVersion): a read that sees another
// resourceVersion for one of them, a record of release that is not among them, or
// (for a whole-history List/Query) one of them missing, fails with an error
// wrapping chunked.ErrConflict; Update and Delete of those keys use them as
// preconditions. Records it creates or writes itself are followed, so its own
// successive writes never conflict. It is storage.ChunkedSecrets.Expect, for Helm 4.
func (c *ChunkedSecrets) Expect(release string, records map[string]string) *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.Expect(release, records), log: c.log}
}

// Fresh returns a copy of c that has read nothing yet: its writes take their
// preconditions from the record as they find it.
func (c *ChunkedSecrets) Fresh() *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.Fresh(), log: c.log}
}

// Create stores rls, a *rspb.Release (or an rspb.Release), under key. It returns
// driver.ErrReleaseExists when the key holds a record already.
func (c *ChunkedSecrets) Create(key string, rls release.Releaser) error {
	r, err := v1Release(rls)
	if err != nil {
		return fmt.Errorf("create: %q: %w", key, err)
	}
	return c.Core.Create(key, r)
}

// Update replaces the release stored under key with rls, a *rspb.Release (or an
// rspb.Release). It returns driver.ErrReleaseNotFound when there is none, and an
// error wrapping chunked.ErrConflict when another writer changed the record since
// this driver read it.
func (c *ChunkedSecrets) Update(key string, rls release.Releaser) error {
	r, err := v1Release(rls)
	if err != nil {
		return fmt.Errorf("update: %q: %w", key, err)
	}
	return c.Core.Update(key, r)
}

// Delete removes the release stored under key, its index and its chunks, and
// returns it as a *rspb.Release. It returns driver.ErrReleaseNotFound when there
// is none.
func (c *ChunkedSecrets) Delete(key string) (release.Releaser, error) {
	r, err := c.Core.Delete(key)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Get returns the release stored under key, a *rspb.Release. It returns
// driver.ErrReleaseNotFound when there is none.
func (c *ChunkedSecrets) Get(key string) (release.Releaser, error) {
	r, err := c.Core.Get(key)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// List returns the releases, each a *rspb.Release, for which filter returns true
// (all of them when filter is nil). Records that cannot be decoded are logged by
// key and skipped, as Helm's own drivers do.
func (c *ChunkedSecrets) List(filter func(release.Releaser) bool) ([]release.Releaser, error) {
	var keep func(*rspb.Release) bool
	if filter != nil {
		keep = func(r *rspb.Release) bool { return filter(r) }
	}
	rs, err := c.Core.List(keep)
	if err != nil {
		return nil, err
	}
	return releasers(rs), nil
}

// Query returns the releases, each a *rspb.Release, whose labels match all of
// labels. owner=helm, which Helm asks for, means this driver's owner. It returns
// driver.ErrReleaseNotFound when nothing matches.
func (c *ChunkedSecrets) Query(labels map[string]string) ([]release.Releaser, error) {
	rs, err := c.Core.Query(labels)
	if err != nil {
		return nil, err
	}
	return releasers(rs), nil
}

func releasers(rs []*rspb.Release) []release.Releaser {
	out := make([]release.Releaser, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// errNilRelease is the error of a write given no release.
var errNilRelease = errors.New("no release given (nil)")

// v1Release returns the release rls holds: Helm 4's drivers store
// *rspb.Release, and take an rspb.Release value as well. A value's copy has no
// identity of its own, so a write of it is checked against the key's latest
// read rather than the read that returned it.
func v1Release(rls release.Releaser) (*rspb.Release, error) {
	switch r := rls.(type) {
	case *rspb.Release:
		if r == nil {
			return nil, errNilRelease
		}
		return r, nil
	case rspb.Release:
		return &r, nil
	case nil:
		return nil, errNilRelease
	}
	return nil, fmt.Errorf("unsupported release type %T: the Helm 4 chunked driver stores *release/v1.Release", rls)
}
