package demo

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// Store is the kind of storage a sample release's records are kept in: which
// driver wrote them. Its values are the names HELM_DRIVER gives Helm's drivers.
type Store string

// The stores the samples are written to.
const (
	// StoreChunked is chunkview's chunked driver (storage.ChunkedSecrets): per
	// revision an index Secret and the chunk Secrets it names.
	StoreChunked Store = "chunked"
	// StoreSecrets is Helm's default driver (driver.Secrets): one Secret of type
	// HelmSecretType per revision, named by the record key, labelled name, owner=helm,
	// status and version (and createdAt or modifiedAt, and the release's custom
	// labels), holding the release in data[HelmReleaseKey].
	StoreSecrets Store = "secret"
	// StoreConfigMaps is Helm's ConfigMaps driver (driver.ConfigMaps): the same
	// layout in one ConfigMap per revision.
	StoreConfigMaps Store = "configmap"
)

// HelmSecretType is the type of the Secrets Helm's Secrets driver writes, which
// the API server lets a list select with the field selector type=helm.sh/release.v1.
const HelmSecretType corev1.SecretType = "helm.sh/release.v1"

// HelmReleaseKey is the data key under which Helm's Secrets and ConfigMaps drivers
// store a revision: the base64 text of the gzipped release JSON. Its length is what
// the record holds against MaxSecretBytes.
const HelmReleaseKey = "release"

// Where Seed writes the samples of Helm's own drivers: each in a namespace of its
// own, beside its release's resources, as `helm install -n` does.
const (
	// WebNamespace holds RedisRelease, in Helm Secrets.
	WebNamespace = "web"
	// IngressNamespace holds IngressNginxRelease, in Helm ConfigMaps.
	IngressNamespace = "ingress"
	// LoggingNamespace holds LokiStackRelease, in Helm Secrets.
	LoggingNamespace = "logging"
)

// The samples of Helm's own drivers.
const (
	// RedisRelease has four revisions in Helm Secrets: three superseded, the
	// last deployed.
	RedisRelease = "redis"
	// IngressNginxRelease has three revisions in Helm ConfigMaps: two superseded,
	// the last deployed. Its chart has pre-install and pre-upgrade hooks.
	IngressNginxRelease = "ingress-nginx"
	// LokiStackRelease has five revisions in Helm Secrets, each about LokiStackGrowth
	// larger than the one before (every chart version ships one more Grafana
	// dashboard), the last at about LokiStackLatestShare of MaxSecretBytes: a
	// forecast has it outgrow a Secret within four revisions.
	LokiStackRelease = "loki-stack"
)

// LokiStackGrowth is roughly how many stored bytes each revision of
// LokiStackRelease adds to the one before.
const LokiStackGrowth = 28 << 10

// LokiStackLatestShare is roughly the share of MaxSecretBytes that the last
// revision of LokiStackRelease stores.
const LokiStackLatestShare = 0.90

// HelmStoreSample is a sample release that Seed writes through one of Helm's own
// drivers rather than the chunked one. Its records are in Namespace, which is also
// the release's namespace, and are labelled owner=helm (storage.HelmOwner).
type HelmStoreSample struct {
	Namespace, Name string
	Store           Store
	// Revisions is the number of revisions stored; the last is deployed, the
	// others superseded.
	Revisions int
}

// HelmStoreSamples returns the samples Seed writes through Helm's own drivers, in
// the order it writes them (after the chunked ones).
func HelmStoreSamples() []HelmStoreSample {
	var out []HelmStoreSample
	for _, s := range helmStoreSamples() {
		out = append(out, HelmStoreSample{Namespace: s.storageNamespace, Name: s.name, Store: s.store, Revisions: len(s.steps)})
	}
	return out
}

// helmStoreSamples are the releases Seed writes through Helm's Secrets and
// ConfigMaps drivers.
func helmStoreSamples() []sample {
	return []sample{
		{
			name: RedisRelease, storageNamespace: WebNamespace, namespace: WebNamespace, owner: storage.HelmOwner, store: StoreSecrets,
			labels: map[string]string{"team": "web"},
			chart:  redisChart,
			steps: []step{
				{op: opInstall, ago: 40 * day, took: 48 * time.Second, chart: "18.19.2", values: redisValues(1, "s3ss10n-cache!", "allkeys-lru")},
				{op: opUpgrade, ago: 26*day + 3*hour, took: 51 * time.Second, chart: "18.19.4", values: redisValues(2, "s3ss10n-cache!", "allkeys-lru")},
				{op: opUpgrade, ago: 11 * day, took: 1*minute + 9*time.Second, chart: "19.0.1", values: redisValues(2, "r0tated-Redis-9", "allkeys-lru")},
				{op: opUpgrade, ago: 2*day + 5*hour, took: 58 * time.Second, chart: "19.0.2", values: redisValues(3, "r0tated-Redis-9", "volatile-lru")},
			},
		},
		{
			name: IngressNginxRelease, storageNamespace: IngressNamespace, namespace: IngressNamespace, owner: storage.HelmOwner, store: StoreConfigMaps,
			chart: ingressNginxChart,
			steps: []step{
				{op: opInstall, ago: 70 * day, took: 1*minute + 22*time.Second, chart: "4.10.1", values: ingressValues(2, false)},
				{op: opUpgrade, ago: 35*day + 2*hour, took: 1*minute + 14*time.Second, chart: "4.11.2", values: ingressValues(2, true)},
				{op: opUpgrade, ago: 6*day + 7*hour, took: 1*minute + 31*time.Second, chart: "4.11.3", values: ingressValues(3, true)},
			},
		},
		{
			name: LokiStackRelease, storageNamespace: LoggingNamespace, namespace: LoggingNamespace, owner: storage.HelmOwner, store: StoreSecrets,
			labels: map[string]string{"team": "sre"},
			chart:  lokiStackChart,
			steps: []step{
				{op: opInstall, ago: 150 * day, took: 2*minute + 41*time.Second, chart: lokiVersions[0], values: lokiValues(7)},
				{op: opUpgrade, ago: 96 * day, took: 2*minute + 12*time.Second, chart: lokiVersions[1], values: lokiValues(14)},
				{op: opUpgrade, ago: 55 * day, took: 2*minute + 30*time.Second, chart: lokiVersions[2], values: lokiValues(14)},
				{op: opUpgrade, ago: 20 * day, took: 2*minute + 5*time.Second, chart: lokiVersions[3], values: lokiValues(30)},
				{op: opUpgrade, ago: 1*day + 6*hour, took: 2*minute + 18*time.Second, chart: lokiVersions[4], values: lokiValues(30)},
			},
		},
	}
}

// sampleDriver returns the driver s is written with. Helm's own drivers send
// their requests with a context of their own, as they do in Helm.
func sampleDriver(ctx context.Context, c *fakeapi.Cluster, cfg storage.ChunkedSecretsConfig, s sample) driver.Driver {
	switch s.store {
	case StoreSecrets:
		return driver.NewSecrets(c.Clientset().CoreV1().Secrets(s.storageNamespace))
	case StoreConfigMaps:
		return driver.NewConfigMaps(c.Clientset().CoreV1().ConfigMaps(s.storageNamespace))
	default:
		return storage.NewDriver(c.Clientset().CoreV1().Secrets(s.storageNamespace), s.owner, cfg).WithContext(ctx)
	}
}

// readBackSize reads the stored record key of s and returns how many objects it
// spans and how many bytes it holds against the size limit.
func readBackSize(ctx context.Context, c *fakeapi.Cluster, s sample, key string) (objects int, stored int64, err error) {
	core := c.Clientset().CoreV1()
	switch s.store {
	case StoreSecrets:
		sec, err := core.Secrets(s.storageNamespace).Get(ctx, key, metav1.GetOptions{})
		if err != nil {
			return 0, 0, fmt.Errorf("read back %s: %w", key, err)
		}
		return 1, int64(len(sec.Data[HelmReleaseKey])), nil
	case StoreConfigMaps:
		cm, err := core.ConfigMaps(s.storageNamespace).Get(ctx, key, metav1.GetOptions{})
		if err != nil {
			return 0, 0, fmt.Errorf("read back %s: %w", key, err)
		}
		return 1, int64(len(cm.Data[HelmReleaseKey])), nil
	}
	idx, err := core.Secrets(s.storageNamespace).Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		return 0, 0, fmt.Errorf("read back index %s: %w", key, err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil {
		return 0, 0, fmt.Errorf("index %s: %w", key, err)
	}
	sum, _ := storage.SummaryFromMeta(idx)
	return 1 + len(names), sum.StoredBytes, nil
}

// backdateRecord dates the objects that hold record key of sample s (its index
// and chunks, or Helm's one object) at when, the time its revision was written:
// inspect's and the chunks screen's AGE then agree with the history's. Their
// createdAt and modifiedAt labels keep the demo's start: a record is judged
// still being written by them, and the screens that read a sample seeded in
// the background must check it again once its damage is done.
func backdateRecord(ctx context.Context, c *fakeapi.Cluster, s sample, key string, when time.Time) error {
	gvr := corev1.SchemeGroupVersion.WithResource("secrets")
	names := []string{key}
	switch s.store {
	case StoreConfigMaps:
		gvr = corev1.SchemeGroupVersion.WithResource("configmaps")
	case StoreSecrets:
	default:
		idx, err := c.Clientset().CoreV1().Secrets(s.storageNamespace).Get(ctx, key, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("read back index %s: %w", key, err)
		}
		chunks, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
		if err != nil {
			return fmt.Errorf("index %s: %w", key, err)
		}
		names = append(names, chunks...)
	}
	for i, n := range names {
		err := c.Backdate(gvr, s.storageNamespace, n, when)
		if i > 0 && apierrors.IsNotFound(err) {
			continue // a chunk the sample's damage deleted
		}
		if err != nil {
			return fmt.Errorf("date %s: %w", n, err)
		}
	}
	return nil
}
