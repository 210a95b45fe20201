package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// The guarantee tests run against both adapters over the chunked core, Helm 3's
// (storage.ChunkedSecrets) and Helm 4's (helm4.ChunkedSecrets), through
// chunkedDriver: Helm 3's driver.Driver and the methods the tests hold drivers to
// plans and clocks with. The Helm 4 adapter is driven with Helm 3's releases,
// converted through Helm's own JSON both ways; storage/helm4's tests check it in
// Helm 4's types of its own.

// chunkedDriver is a chunked driver under test.
type chunkedDriver interface {
	driver.Driver
	Expect(release string, records map[string]string) chunkedDriver
	Fresh() chunkedDriver
	WithContext(ctx context.Context) chunkedDriver
	ForceDelete(key string) error
	ReadIndex(ctx context.Context, key string) (*corev1.Secret, error)
	// SetClock and CheckFirst are storage.SetClock and storage.CheckFirst.
	SetClock(now func() time.Time)
	CheckFirst()
	// Payload is the gzip stream the driver stores for rls: Helm 4's JSON of
	// a release is not Helm 3's, nor are its chunks.
	Payload(rls *release.Release) ([]byte, error)
}

// chunkedAdapter makes drivers of one adapter.
type chunkedAdapter struct {
	name string
	new  func(client corev1client.SecretInterface, owner string, cfg storage.ChunkedSecretsConfig) chunkedDriver
}

var chunkedAdapters = []chunkedAdapter{
	{"helm3", func(client corev1client.SecretInterface, owner string, cfg storage.ChunkedSecretsConfig) chunkedDriver {
		return helm3Driver{storage.NewDriver(client, owner, cfg)}
	}},
	{"helm4", func(client corev1client.SecretInterface, owner string, cfg storage.ChunkedSecretsConfig) chunkedDriver {
		return helm4Driver{d: helm4.NewDriver(client, owner, cfg), values: &helm4Values{of: map[*release.Release]*rspb.Release{}}}
	}},
}

// forEachAdapter runs fn as one subtest per adapter.
func forEachAdapter(t *testing.T, fn func(t *testing.T, ad chunkedAdapter)) {
	t.Helper()
	for _, ad := range chunkedAdapters {
		t.Run(ad.name, func(t *testing.T) { fn(t, ad) })
	}
}

// helm3Driver is storage.ChunkedSecrets as a chunkedDriver.
type helm3Driver struct{ *storage.ChunkedSecrets }

func (d helm3Driver) Expect(release string, records map[string]string) chunkedDriver {
	return helm3Driver{d.ChunkedSecrets.Expect(release, records)}
}
func (d helm3Driver) Fresh() chunkedDriver { return helm3Driver{d.ChunkedSecrets.Fresh()} }
func (d helm3Driver) WithContext(ctx context.Context) chunkedDriver {
	return helm3Driver{d.ChunkedSecrets.WithContext(ctx)}
}
func (d helm3Driver) SetClock(now func() time.Time) { storage.SetClock(d.ChunkedSecrets, now) }
func (d helm3Driver) CheckFirst()                   { storage.CheckFirst(d.ChunkedSecrets) }
func (d helm3Driver) Payload(rls *release.Release) ([]byte, error) {
	gz, _, err := storage.EncodePayload(rls)
	return gz, err
}

// helm4Driver is helm4.ChunkedSecrets as a chunkedDriver. A Helm 3 value that a
// read returned is written back as the very Helm 4 value the read returned,
// changed as the Helm 3 value was: the lost-update check follows the values reads
// hand out, as Helm writes back what it read.
type helm4Driver struct {
	d      *helm4.ChunkedSecrets
	values *helm4Values
}

// helm4Values maps each Helm 3 value the driver returned to the Helm 4 value it
// was made from. The copies a driver makes share it.
type helm4Values struct {
	mu sync.Mutex
	of map[*release.Release]*rspb.Release
}

// toHelm4 returns r in Helm 4's type: the Helm 4 value r was made from, if any,
// overwritten with r's fields.
func (v *helm4Values) toHelm4(r *release.Release) (*rspb.Release, error) {
	if r == nil {
		return nil, nil
	}
	js, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	out := v.of[r]
	v.mu.Unlock()
	if out == nil {
		out = new(rspb.Release)
	}
	*out = rspb.Release{}
	if err := json.Unmarshal(js, out); err != nil {
		return nil, fmt.Errorf("convert %s v%d to Helm 4's release: %w", r.Name, r.Version, err)
	}
	out.Labels = maps.Clone(r.Labels)
	return out, nil
}

// toHelm3 returns the Helm 4 release rls, which must be a *rspb.Release, in Helm
// 3's type, and remembers where it came from.
func (v *helm4Values) toHelm3(rls any) (*release.Release, error) {
	r4, ok := rls.(*rspb.Release)
	if !ok || r4 == nil {
		return nil, fmt.Errorf("the Helm 4 driver returned %T, not a *release/v1.Release", rls)
	}
	js, err := json.Marshal(r4)
	if err != nil {
		return nil, err
	}
	var r release.Release
	if err := json.Unmarshal(js, &r); err != nil {
		return nil, fmt.Errorf("convert %s v%d to Helm 3's release: %w", r4.Name, r4.Version, err)
	}
	r.Labels = r4.Labels
	v.mu.Lock()
	v.of[&r] = r4
	v.mu.Unlock()
	return &r, nil
}

// helm3Err gives Helm 4's fixed errors back as Helm 3's, which the tests compare
// with. Helm 3's values from the Helm 4 driver, which Helm 4 would not recognise,
// fail the test instead.
func helm3Err(err error) error {
	switch {
	case err == nil:
		return nil
	case err == driver4.ErrReleaseNotFound:
		return driver.ErrReleaseNotFound
	case err == driver4.ErrReleaseExists:
		return driver.ErrReleaseExists
	case err == driver.ErrReleaseNotFound, err == driver.ErrReleaseExists:
		return fmt.Errorf("the Helm 4 driver returned Helm 3's fixed error value: %v", err)
	case errors.Is(err, driver.ErrReleaseNotFound) && !errors.Is(err, driver4.ErrReleaseNotFound),
		errors.Is(err, driver.ErrReleaseExists) && !errors.Is(err, driver4.ErrReleaseExists):
		return fmt.Errorf("the Helm 4 driver returned an error that Helm 4's fixed errors do not match: %v", err)
	}
	return err
}

func (d helm4Driver) Name() string { return d.d.Name() }

func (d helm4Driver) Create(key string, rls *release.Release) error {
	r, err := d.values.toHelm4(rls)
	if err != nil {
		return err
	}
	return helm3Err(d.d.Create(key, r))
}

func (d helm4Driver) Update(key string, rls *release.Release) error {
	r, err := d.values.toHelm4(rls)
	if err != nil {
		return err
	}
	return helm3Err(d.d.Update(key, r))
}

func (d helm4Driver) Delete(key string) (*release.Release, error) {
	r, err := d.d.Delete(key)
	if err != nil {
		return nil, helm3Err(err)
	}
	return d.values.toHelm3(r)
}

func (d helm4Driver) Get(key string) (*release.Release, error) {
	r, err := d.d.Get(key)
	if err != nil {
		return nil, helm3Err(err)
	}
	return d.values.toHelm3(r)
}

func (d helm4Driver) List(filter func(*release.Release) bool) ([]*release.Release, error) {
	rs, err := d.d.List(nil)
	if err != nil {
		return nil, helm3Err(err)
	}
	var out []*release.Release
	for _, r := range rs {
		r3, err := d.values.toHelm3(r)
		if err != nil {
			return nil, err
		}
		if filter == nil || filter(r3) {
			out = append(out, r3)
		}
	}
	return out, nil
}

func (d helm4Driver) Query(labels map[string]string) ([]*release.Release, error) {
	rs, err := d.d.Query(labels)
	if err != nil {
		return nil, helm3Err(err)
	}
	out := make([]*release.Release, len(rs))
	for i, r := range rs {
		if out[i], err = d.values.toHelm3(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d helm4Driver) Expect(release string, records map[string]string) chunkedDriver {
	return helm4Driver{d: d.d.Expect(release, records), values: d.values}
}
func (d helm4Driver) Fresh() chunkedDriver { return helm4Driver{d: d.d.Fresh(), values: d.values} }
func (d helm4Driver) WithContext(ctx context.Context) chunkedDriver {
	return helm4Driver{d: d.d.WithContext(ctx), values: d.values}
}
func (d helm4Driver) ForceDelete(key string) error { return helm3Err(d.d.ForceDelete(key)) }
func (d helm4Driver) ReadIndex(ctx context.Context, key string) (*corev1.Secret, error) {
	idx, err := d.d.ReadIndex(ctx, key)
	return idx, helm3Err(err)
}
func (d helm4Driver) SetClock(now func() time.Time) { storage.SetCoreClock(d.d.Core, now) }
func (d helm4Driver) CheckFirst()                   { storage.CheckCoreFirst(d.d.Core) }
func (d helm4Driver) Payload(rls *release.Release) ([]byte, error) {
	r, err := (&helm4Values{of: map[*release.Release]*rspb.Release{}}).toHelm4(rls)
	if err != nil {
		return nil, err
	}
	return storage.CorePayload(d.d.Core, r)
}
