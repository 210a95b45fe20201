package demo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// Where the sample releases are stored and under which owner label: outside
// OLMNamespace, storage.HelmOwner (helm-operator-plugins' default, and the owner
// label Helm's own drivers always write).
const (
	// OLMOwner is operator-controller's owner label (kube's olmv1 profile).
	OLMOwner = "operator-controller"
	// OLMNamespace is OLMv1's system namespace, where its records live while the
	// releases' resources live in namespaces of their own.
	OLMNamespace = "olmv1-system"
)

// StorageNamespaces are the namespaces that hold the sample records, in the order
// Seed fills them: the chunked samples' first, then those of Helm's own drivers
// (see HelmStoreSamples), which hold nothing in the chunked format.
var StorageNamespaces = []string{"demo", "payments", OLMNamespace, WebNamespace, IngressNamespace, LoggingNamespace}

// ChunkSize is the slice size the samples are written with: 64 KiB, so the large
// ones span several chunks without megabytes of data.
const ChunkSize = 64 << 10

// MaxChunks is the read and write limit of DriverConfig: OLMv1's. Every sample fits.
const MaxChunks = 11

// DriverConfig returns the driver configuration Seed writes with by default, which
// a demo session should also use so that its own writes look like the samples.
func DriverConfig() storage.ChunkedSecretsConfig {
	return storage.ChunkedSecretsConfig{ChunkSize: ChunkSize, MaxReadChunks: MaxChunks, MaxWriteChunks: MaxChunks}
}

// SeedOptions adjusts Seed.
type SeedOptions struct {
	// Now is the moment the sample histories lead up to; release timestamps are
	// this long before it. Zero means time.Now().
	Now time.Time
	// Driver is the driver configuration to write with. When ChunkSize,
	// MaxReadChunks and MaxWriteChunks are all zero, DriverConfig's are used (Log
	// and Timeout are kept).
	Driver storage.ChunkedSecretsConfig
	// Intact leaves out the damage: no missing or corrupt chunk, no orphan.
	Intact bool
	// Only, when not nil, names the samples to write (by release name), none
	// when empty; the others are left out, with their damage.
	Only []string
	// Live, when set, holds the samples' live objects back until its Start;
	// nil writes them with the records.
	Live *Live
	// replay sends every write of each history to the drivers as Helm sends
	// them, rather than each revision once (see history): the tests' oracle.
	replay bool
}

// Damage is what Seed broke in a revision on purpose.
type Damage string

// The kinds of damage.
const (
	Undamaged    Damage = ""
	MissingChunk Damage = "missing-chunk" // a chunk Secret the index names was deleted
	CorruptChunk Damage = "corrupt-chunk" // a chunk's bytes no longer match the hash in its name
)

// Fleet is what Seed wrote.
type Fleet struct {
	// Now is the moment the histories lead up to.
	Now time.Time
	// Driver is the configuration the records were written with.
	Driver   storage.ChunkedSecretsConfig
	Releases []SampleRelease
	// Orphans are chunk Secrets no index names.
	Orphans []Orphan
}

// SampleRelease is one release Seed wrote, with its revisions in order.
type SampleRelease struct {
	Name string
	// Namespace holds the records; ReleaseNamespace is the release's own namespace
	// (they differ under OLMv1).
	Namespace        string
	ReleaseNamespace string
	Owner            string
	// Store is the driver that wrote the records.
	Store     Store
	Revisions []SampleRevision
}

// SampleRevision is one stored revision.
type SampleRevision struct {
	Revision int
	// Key is the record key, which is also the name of the index Secret, or of
	// the one Secret or ConfigMap in Helm's own stores.
	Key    string
	Status release.Status
	// Chunks is the number of Secrets the record spans, index included (1 in
	// Helm's own stores). StoredBytes is what the record holds against
	// MaxSecretBytes: the length of its gzip stream in the chunked format, the
	// length of data[HelmReleaseKey] (base64 of the gzip stream) in Helm's stores.
	Chunks      int
	StoredBytes int64
	Damage      Damage
	// DamagedSecret is the chunk Secret that is missing or corrupt.
	DamagedSecret string
	// Release is the release as last written, which an undamaged record reads
	// back as.
	Release *release.Release
}

// Orphan is a chunk Secret whose key has no index: what an interrupted write
// leaves behind.
type Orphan struct {
	Namespace, Name, Owner, Key string
}

// Release returns the sample release name stored in namespace.
func (f *Fleet) Release(namespace, name string) (*SampleRelease, bool) {
	for i := range f.Releases {
		if r := &f.Releases[i]; r.Namespace == namespace && r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Latest returns the last revision of r.
func (r *SampleRelease) Latest() *SampleRevision { return &r.Revisions[len(r.Revisions)-1] }

// Seed writes the sample releases onto c as Helm would have left their histories
// (a pending revision created, then updated to its outcome, the previous one
// superseded: each revision is written once as its history ends, see history),
// most through the chunked driver and a few through Helm's own
// Secrets and ConfigMaps drivers, then damages some of the chunked ones on
// purpose. With DriverConfig the chunked records are (chunks per revision in
// brackets):
//
//	demo/podinfo                  superseded, superseded, failed, deployed (rollback to 2) [1 1 1 1]
//	demo/web-frontend             superseded, superseded, deployed, growing [1 2 3]
//	demo/grafana-dashboards       superseded, deployed; release namespace monitoring [4 6]
//	payments/payments-api         3 superseded, deployed, then pending-upgrade since 47
//	                              minutes before Now with its migration hook running;
//	                              database.password and a Stripe key in values [1 1 1 1 1]
//	payments/ledger               superseded, superseded, deployed; the deployed one has
//	                              a chunk missing [5 5 5]
//	payments/fraud-model          superseded, deployed; the superseded one has a corrupt chunk [5 5]
//	olmv1-system/cert-manager     superseded, superseded, deployed [4 3 3]
//	olmv1-system/argocd-operator  superseded, deployed [1 1]
//
// The olmv1-system ones are owned by OLMOwner, the others by storage.HelmOwner. An
// orphan chunk is left in olmv1-system: key sh.helm.release.v1.cert-manager.v4, the
// trace of an upgrade interrupted two days before Now.
//
// Helm's own drivers write, in namespaces that hold nothing else (stored bytes per
// revision in brackets, about):
//
//	web/redis             Helm Secrets: 3 superseded, deployed [8.5 KB each]
//	ingress/ingress-nginx Helm ConfigMaps: 2 superseded, deployed; hooks [10 KB each]
//	logging/loki-stack    Helm Secrets: 4 superseded, deployed, growing by about
//	                      LokiStackGrowth a revision to about 90% of MaxSecretBytes
//	                      [829 857 886 914 943 KB]
//
// Namespaces that do not exist yet are created. Everything goes through c's API, so
// it shows in c.Requests. When done, Seed compacts c's watch history as etcd does,
// so that it does not hold every superseded copy of every record: a watch from a
// resourceVersion older than Seed's return gets 410 Gone. The releases depend only
// on Now; the objects' uids, creationTimestamps and createdAt or modifiedAt labels
// come from the clock at the time of writing.
func Seed(ctx context.Context, c *fakeapi.Cluster, opts SeedOptions) (*Fleet, error) {
	sd, err := newSeeding(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	defer c.Compact()
	for _, s := range sd.samples {
		if err := sd.write(s); err != nil {
			return nil, err
		}
	}
	return sd.fleet(), nil
}

// seeding is one Seed: the samples to write, what was written so far.
type seeding struct {
	ctx     context.Context
	c       *fakeapi.Cluster
	opts    SeedOptions
	cfg     storage.ChunkedSecretsConfig
	samples []sample

	mu      sync.Mutex
	written map[string]*SampleRelease
	orphans []Orphan
}

// newSeeding prepares a Seed: the driver configuration, the samples opts selects
// and the namespaces they need, created.
func newSeeding(ctx context.Context, c *fakeapi.Cluster, opts SeedOptions) (*seeding, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	cfg := opts.Driver
	if cfg.ChunkSize == 0 && cfg.MaxReadChunks == 0 && cfg.MaxWriteChunks == 0 {
		cfg = DriverConfig()
		cfg.Log, cfg.Timeout, cfg.MaxDecodedBytes, cfg.Now = opts.Driver.Log, opts.Driver.Timeout, opts.Driver.MaxDecodedBytes, opts.Driver.Now
	}
	if cfg.Now == nil {
		// The records' createdAt and modifiedAt labels are dated as their
		// Secrets' creationTimestamps are: by the cluster's clock (a demo's
		// Clock), taken now, as the live objects' writes set it for a moment.
		cfg.Now = c.Clock()
	}
	all := samples()
	if opts.Only != nil {
		all = slices.DeleteFunc(all, func(s sample) bool { return !slices.Contains(opts.Only, s.name) })
	}
	sd := &seeding{ctx: ctx, c: c, opts: opts, cfg: cfg, samples: all, written: map[string]*SampleRelease{}}
	// The controllers' kinds are served before any client reads discovery.
	c.ServeResources(controllerResources...)
	nss := slices.Clone(StorageNamespaces)
	for _, s := range all {
		for _, ns := range []string{s.storageNamespace, s.namespace} {
			if !slices.Contains(nss, ns) {
				nss = append(nss, ns)
			}
		}
	}
	for _, ns := range nss {
		_, err := c.Clientset().CoreV1().Namespaces().Create(ctx, fakeapi.Namespace(ns), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("seed: create namespace %s: %w", ns, err)
		}
	}
	return sd, nil
}

// sampleDamage is the damage Seed does to a sample once it is written.
var sampleDamage = map[string]struct {
	ns       string
	revision int
	d        Damage
}{
	"ledger":      {"payments", 3, MissingChunk},
	"fraud-model": {"payments", 1, CorruptChunk},
}

// write writes sample s and, unless opts.Intact, the damage that belongs to it:
// ledger's missing chunk, fraud-model's corrupt one, and beside cert-manager the
// orphan of its interrupted upgrade.
func (sd *seeding) write(s sample) error {
	sr, err := writeSample(sd.ctx, sd.c, sd.cfg, sd.opts.Now, s, sd.opts.replay)
	if err != nil {
		return fmt.Errorf("seed: release %s/%s: %w", s.storageNamespace, s.name, err)
	}
	if dm, ok := sampleDamage[s.name]; ok && !sd.opts.Intact {
		if err := damage(sd.ctx, sd.c, sr, dm.revision, dm.d); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	// Dated after the damage: a screen that read a record before it was
	// damaged reads it again when its index changes.
	for _, rev := range sr.Revisions {
		if err := backdateRecord(sd.ctx, sd.c, s, rev.Key, rev.Release.Info.LastDeployed.Time); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	w := &liveWriter{ctx: sd.ctx, c: sd.c, now: sd.opts.Now}
	if err := writeControllers(w, s, sr); err != nil {
		return fmt.Errorf("seed: the controller of %s: %w", s.name, err)
	}
	if err := sd.opts.Live.add(func() error { return writeLive(sd.ctx, sd.c, sr, sd.opts.Now, sd.opts.Intact) }); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	var orphan *Orphan
	if s.name == "cert-manager" && !sd.opts.Intact {
		if orphan, err = leaveOrphan(sd.ctx, sd.c, sd.cfg, sd.opts.Now); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	sd.mu.Lock()
	defer sd.mu.Unlock()
	sd.written[s.name] = sr
	if orphan != nil {
		sd.orphans = append(sd.orphans, *orphan)
	}
	return nil
}

// fleet is what was written so far, the samples in Seed's order.
func (sd *seeding) fleet() *Fleet {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	f := &Fleet{Now: sd.opts.Now, Driver: sd.cfg, Orphans: slices.Clone(sd.orphans)}
	for _, s := range sd.samples {
		if sr, ok := sd.written[s.name]; ok {
			f.Releases = append(f.Releases, *sr)
		}
	}
	return f
}
