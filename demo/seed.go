package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

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

// Seed writes the sample releases onto c, the way Helm would have written their
// histories (a pending revision created, then updated to its outcome, the previous
// one superseded), most through the chunked driver and a few through Helm's own
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
		cfg.Log, cfg.Timeout, cfg.MaxDecodedBytes = opts.Driver.Log, opts.Driver.Timeout, opts.Driver.MaxDecodedBytes
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
	sr, err := writeSample(sd.ctx, sd.c, sd.cfg, sd.opts.Now, s)
	if err != nil {
		return fmt.Errorf("seed: release %s/%s: %w", s.storageNamespace, s.name, err)
	}
	if dm, ok := sampleDamage[s.name]; ok && !sd.opts.Intact {
		if err := damage(sd.ctx, sd.c, sr, dm.revision, dm.d); err != nil {
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

// history replays one sample's Helm commands against the driver.
type history struct {
	s      sample
	drv    driver.Driver
	now    time.Time
	charts map[string]*chart.Chart
	revs   []*release.Release
}

func writeSample(ctx context.Context, c *fakeapi.Cluster, cfg storage.ChunkedSecretsConfig, now time.Time, s sample) (*SampleRelease, error) {
	h := &history{
		s:      s,
		drv:    sampleDriver(ctx, c, cfg, s),
		now:    now,
		charts: map[string]*chart.Chart{},
	}
	for _, st := range s.steps {
		if err := h.run(st); err != nil {
			return nil, err
		}
	}
	out := &SampleRelease{Name: s.name, Namespace: s.storageNamespace, ReleaseNamespace: s.namespace, Owner: s.owner, Store: s.store}
	for _, rls := range h.revs {
		key := storage.RecordKey(rls.Name, rls.Version)
		if s.owner == OLMOwner {
			if err := markOLMv1(ctx, c, s, key, rls.Chart.Metadata.Version); err != nil {
				return nil, err
			}
		}
		chunks, stored, err := readBackSize(ctx, c, s, key)
		if err != nil {
			return nil, err
		}
		out.Revisions = append(out.Revisions, SampleRevision{
			Revision: rls.Version, Key: key, Status: rls.Info.Status,
			Chunks: chunks, StoredBytes: stored, Release: rls,
		})
	}
	return out, nil
}

func (h *history) chart(version string) (*chart.Chart, error) {
	if ch, ok := h.charts[version]; ok {
		return ch, nil
	}
	ch, err := h.s.chart(version).build()
	if err != nil {
		return nil, err
	}
	h.charts[version] = ch
	return ch, nil
}

// at is a moment d before now, as Helm stores times.
func (h *history) at(d time.Duration) helmtime.Time { return helmtime.Time{Time: h.now.Add(-d).UTC()} }

func (h *history) write(create bool, rls *release.Release) error {
	key := storage.RecordKey(rls.Name, rls.Version)
	if create {
		return h.drv.Create(key, rls)
	}
	return h.drv.Update(key, rls)
}

// setStatus records a status change as Helm's recordRelease does: an update of
// the stored revision.
func (h *history) setStatus(rls *release.Release, st release.Status, desc string) error {
	rls.Info.Status = st
	if desc != "" {
		rls.Info.Description = desc
	}
	return h.write(false, rls)
}

func (h *history) run(st step) error {
	v := len(h.revs) + 1
	start := h.at(st.ago)
	var (
		rls *release.Release
		err error
	)
	pending, event := release.StatusPendingInstall, release.HookPreInstall
	switch st.op {
	case opInstall, opUpgrade:
		if st.op == opUpgrade {
			pending, event = release.StatusPendingUpgrade, release.HookPreUpgrade
		}
		rls, err = h.render(st, v)
		if err != nil {
			return err
		}
	case opRollback:
		pending, event = release.StatusPendingRollback, release.HookPreRollback
		if st.to < 1 || st.to >= v {
			return fmt.Errorf("rollback to revision %d of %d", st.to, v-1)
		}
		prev := h.revs[st.to-1]
		rls = &release.Release{
			Name: prev.Name, Namespace: prev.Namespace, Version: v,
			Chart: prev.Chart, Config: prev.Config, Manifest: prev.Manifest,
			Hooks: cloneHooks(prev.Hooks), Labels: maps.Clone(prev.Labels),
			Info: &release.Info{Notes: prev.Info.Notes},
		}
	}
	rls.Info.FirstDeployed = start
	if len(h.revs) > 0 {
		rls.Info.FirstDeployed = h.revs[0].Info.FirstDeployed
	}
	rls.Info.LastDeployed = start
	rls.Info.Status = pending
	rls.Info.Description = map[op]string{
		opInstall:  "Initial install underway",
		opUpgrade:  "Preparing upgrade",
		opRollback: fmt.Sprintf("Rollback to %d", st.to),
	}[st.op]
	for _, hk := range rls.Hooks {
		if !slices.Contains(hk.Events, event) {
			continue
		}
		hk.LastRun = release.HookExecution{StartedAt: at(start, 2*time.Second), Phase: release.HookPhaseRunning}
		if !st.stuck {
			hk.LastRun.CompletedAt = at(start, 2*time.Second+st.took/3)
			hk.LastRun.Phase = release.HookPhaseSucceeded
		}
	}
	if err := h.write(true, rls); err != nil {
		return err
	}
	h.revs = append(h.revs, rls)
	if st.stuck {
		return nil
	}
	if st.fail != "" {
		msg := map[op]string{
			opInstall:  fmt.Sprintf("Release %q failed: %s", rls.Name, st.fail),
			opUpgrade:  fmt.Sprintf("Upgrade %q failed: %s", rls.Name, st.fail),
			opRollback: fmt.Sprintf("Rollback %q failed: %s", rls.Name, st.fail),
		}[st.op]
		return h.setStatus(rls, release.StatusFailed, msg)
	}
	// Helm supersedes the deployed revision on upgrade, and every deployed one on
	// rollback; failed revisions stay failed.
	for _, old := range h.revs[:len(h.revs)-1] {
		if old.Info.Status == release.StatusDeployed {
			if err := h.setStatus(old, release.StatusSuperseded, ""); err != nil {
				return err
			}
		}
	}
	done := map[op]string{opInstall: "Install complete", opUpgrade: "Upgrade complete", opRollback: ""}[st.op]
	return h.setStatus(rls, release.StatusDeployed, done)
}

func at(t helmtime.Time, d time.Duration) helmtime.Time { return t.Add(d) }

func cloneHooks(hs []*release.Hook) []*release.Hook {
	out := make([]*release.Hook, len(hs))
	for i, h := range hs {
		cp := *h
		cp.Events = slices.Clone(h.Events)
		cp.DeletePolicies = slices.Clone(h.DeletePolicies)
		cp.LastRun = release.HookExecution{}
		out[i] = &cp
	}
	return out
}

// render renders the step's chart with its values as helm install or upgrade does
// and returns the new revision, without Info times and status.
func (h *history) render(st step, version int) (*release.Release, error) {
	ch, err := h.chart(st.chart)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ReadValues([]byte(st.values))
	if err != nil {
		return nil, fmt.Errorf("revision %d values: %w", version, err)
	}
	manifest, hooks, notes, err := renderChart(ch, vals, chartutil.ReleaseOptions{
		Name: h.s.name, Namespace: h.s.namespace, Revision: version,
		IsInstall: st.op == opInstall, IsUpgrade: st.op == opUpgrade,
	})
	if err != nil {
		return nil, fmt.Errorf("revision %d: %w", version, err)
	}
	return &release.Release{
		Name: h.s.name, Namespace: h.s.namespace, Version: version,
		Chart: ch, Config: vals, Manifest: manifest, Hooks: hooks,
		Labels: maps.Clone(labelsFor(h.s, st.chart)),
		Info:   &release.Info{Notes: notes},
	}, nil
}

// renderChart does what Helm's renderResources does for install and upgrade:
// render every template, take NOTES.txt apart, split hooks from manifests and join
// the manifests in install order, each under its "# Source:" line.
func renderChart(ch *chart.Chart, vals map[string]any, ro chartutil.ReleaseOptions) (manifest string, hooks []*release.Hook, notes string, err error) {
	top, err := chartutil.ToRenderValues(ch, vals, ro, chartutil.DefaultCapabilities)
	if err != nil {
		return "", nil, "", err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return "", nil, "", fmt.Errorf("render %s: %w", ch.Name(), err)
	}
	notesKey := path.Join(ch.Name(), "templates", "NOTES.txt")
	notes = files[notesKey]
	delete(files, notesKey)
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return "", nil, "", fmt.Errorf("sort manifests of %s: %w", ch.Name(), err)
	}
	var b bytes.Buffer
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.String(), hooks, notes, nil
}

// damage breaks one revision's record: it deletes one of its chunk Secrets, or
// replaces one with a Secret of the same name, labels and owner whose bytes no
// longer match the hash in the name (a chunk is immutable, so it is deleted and
// created again, as a bad restore would do).
func damage(ctx context.Context, c *fakeapi.Cluster, r *SampleRelease, revision int, d Damage) error {
	if revision < 1 || revision > len(r.Revisions) {
		return fmt.Errorf("damage %s/%s revision %d: no such sample", r.Namespace, r.Name, revision)
	}
	rev := &r.Revisions[revision-1]
	secrets := c.Clientset().CoreV1().Secrets(r.Namespace)
	idx, err := secrets.Get(ctx, rev.Key, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("damage %s: %w", rev.Key, err)
	}
	names, err := storage.ParseExtraChunks(rev.Key, idx.Data[storage.DataExtraChunks])
	if err != nil || len(names) == 0 {
		return fmt.Errorf("damage %s: want a record with chunks, it has %d (%v)", rev.Key, len(names), err)
	}
	victim := names[len(names)/2]
	chunk, err := secrets.Get(ctx, victim, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("damage %s: %w", victim, err)
	}
	if err := secrets.Delete(ctx, victim, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &chunk.UID}}); err != nil {
		return fmt.Errorf("damage %s: %w", victim, err)
	}
	if d == CorruptChunk {
		data := bytes.Clone(chunk.Data[storage.DataChunk])
		for i := len(data) / 2; i < len(data)/2+16 && i < len(data); i++ {
			data[i] ^= 0x5a
		}
		bad := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Name: chunk.Name, Labels: chunk.Labels, Annotations: chunk.Annotations,
				OwnerReferences: chunk.OwnerReferences,
			},
			Type:      chunk.Type,
			Immutable: ptr.To(true),
			Data:      map[string][]byte{storage.DataChunk: data},
		}
		if _, err := secrets.Create(ctx, bad, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("damage %s: recreate: %w", victim, err)
		}
	}
	rev.Damage, rev.DamagedSecret = d, victim
	// The damage is old news, not a write in progress: the record was last written
	// when the revision was deployed, long before the chunk went (see
	// kube.WritingWindow).
	if rev.Release != nil && rev.Release.Info != nil {
		idx, err := secrets.Get(ctx, rev.Key, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("damage %s: %w", rev.Key, err)
		}
		at := strconv.FormatInt(rev.Release.Info.LastDeployed.Unix(), 10)
		idx.Labels[storage.LabelCreatedAt], idx.Labels[storage.LabelModifiedAt] = at, at
		if _, err := secrets.Update(ctx, idx, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("damage %s: date the index: %w", rev.Key, err)
		}
	}
	return nil
}

// orphanKey is the record whose write was interrupted: cert-manager's upgrade to
// 1.16.0, revision 4, which never got its index.
var orphanKey = storage.RecordKey("cert-manager", 4)

// leaveOrphan writes the second slice of cert-manager's revision 4 as a chunk
// Secret and nothing else, two days before now: the trace of an upgrade whose
// index was never written. Its creationTimestamp is that old too, so verify counts
// it a leftover rather than a write in flight.
func leaveOrphan(ctx context.Context, c *fakeapi.Cluster, cfg storage.ChunkedSecretsConfig, now time.Time) (*Orphan, error) {
	s := samples()[slices.IndexFunc(samples(), func(s sample) bool { return s.name == "cert-manager" })]
	h := &history{s: s, now: now, charts: map[string]*chart.Chart{}}
	st := step{op: opUpgrade, chart: "1.16.0", values: "installCRDs: true\nreplicaCount: 2\n"}
	rls, err := h.render(st, 4)
	if err != nil {
		return nil, fmt.Errorf("orphan: %w", err)
	}
	when := now.Add(-2*day - 3*hour)
	rls.Info.FirstDeployed, rls.Info.LastDeployed = h.at(75*day), helmtime.Time{Time: when.UTC()}
	rls.Info.Status, rls.Info.Description = release.StatusPendingUpgrade, "Preparing upgrade"
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		return nil, fmt.Errorf("orphan: %w", err)
	}
	parts := storage.Split(gz, cfg.ChunkSize)
	if len(parts) < 2 {
		return nil, errors.New("orphan: cert-manager 1.16.0 fits one slice; raise its size")
	}
	o := &Orphan{Namespace: OLMNamespace, Owner: OLMOwner, Key: orphanKey, Name: storage.ChunkName(orphanKey, parts[1])}
	chunk := storage.ChunkSecret(o.Owner, o.Key, parts[1], when, nil)
	clock := c.Clock()
	c.SetClock(func() time.Time { return when })
	defer func() {
		c.SetClock(clock)
	}()
	if _, err := c.Clientset().CoreV1().Secrets(o.Namespace).Create(ctx, chunk, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("orphan %s: %w", o.Name, err)
	}
	return o, nil
}
