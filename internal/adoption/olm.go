package adoption

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	helmclient "github.com/operator-framework/helm-operator-plugins/pkg/client"
	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// OLMv1's settings: the owner its release records carry, the chunk limits it
// configures and the history its upgrades keep.
const (
	Owner      = "operator-controller"
	MaxChunks  = 10
	MaxHistory = 10
)

// OLMConfig is the driver configuration OLMv1 passes, at chunkview's default chunk
// size (OLMv1 ships 1 MiB; chunkview's default leaves the index room for its
// chunk list).
func OLMConfig() storage.ChunkedSecretsConfig {
	return storage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize, MaxReadChunks: MaxChunks, MaxWriteChunks: MaxChunks}
}

// NewDriver builds a driver over a Secret client; one is built per action client.
type NewDriver func(corev1client.SecretInterface) driver.Driver

// Chunkview builds chunkview's Helm 3 driver of owner with cfg.
func Chunkview(owner string, cfg storage.ChunkedSecretsConfig) NewDriver {
	return func(s corev1client.SecretInterface) driver.Driver { return storage.NewChunkedSecrets(s, owner, cfg) }
}

// Original builds helm-operator-plugins' own chunked driver of owner with the
// chunk settings of cfg.
func Original(owner string, cfg storage.ChunkedSecretsConfig) NewDriver {
	hc := hopstorage.ChunkedSecretsConfig{ChunkSize: cfg.ChunkSize, MaxReadChunks: cfg.MaxReadChunks, MaxWriteChunks: cfg.MaxWriteChunks}
	return func(s corev1client.SecretInterface) driver.Driver { return hopstorage.NewChunkedSecrets(s, owner, hc) }
}

// DriverMapper is the StorageDriverMapper OLMv1 configures: for each action client,
// a fresh driver from newDriver over secrets wrapped in helm-operator-plugins'
// OwnerRefSecretClient, which gives every index Secret it creates or updates the
// reconciled object's controller reference (so that the object's deletion
// collects its release records), and leaves chunk Secrets to the driver.
func DriverMapper(secrets corev1client.SecretInterface, newDriver NewDriver) helmclient.ObjectToStorageDriverMapper {
	return func(_ context.Context, obj client.Object, _ *rest.Config) (driver.Driver, error) {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Empty() {
			return nil, fmt.Errorf("storage driver for %s: the object has no kind, which its owner reference needs", obj.GetName())
		}
		ref := metav1.NewControllerRef(obj, gvk)
		return newDriver(helmclient.NewOwnerRefSecretClient(secrets, []metav1.OwnerReference{*ref}, isIndex)), nil
	}
}

func isIndex(s *corev1.Secret) bool { return s.Type == storage.SecretTypeIndex }

// Observed is what one steady-state reconcile read and would write.
type Observed struct {
	History []*release.Release // newest first, as helm-operator-plugins returns it
	Current *release.Release
	Desired *release.Release // the dry run's release
}

// Reconcile runs OLMv1's steady-state reconcile of obj, whose release name is its
// name: History, Get, then a server dry-run Upgrade to chrt with vals (keeping
// MaxHistory), each through an action client of its own, as operator-controller
// asks the getter for one per step (so each builds a fresh driver).
func Reconcile(ctx context.Context, acg helmclient.ActionClientGetter, obj client.Object, namespace string, chrt *chart.Chart, vals map[string]interface{}) (Observed, error) {
	var o Observed
	name := obj.GetName()
	ac, err := acg.ActionClientFor(ctx, obj)
	if err != nil {
		return o, fmt.Errorf("reconcile %s: action client: %w", name, err)
	}
	if o.History, err = ac.History(name); err != nil {
		return o, fmt.Errorf("reconcile %s: history: %w", name, err)
	}
	if ac, err = acg.ActionClientFor(ctx, obj); err != nil {
		return o, fmt.Errorf("reconcile %s: action client: %w", name, err)
	}
	if o.Current, err = ac.Get(name); err != nil {
		return o, fmt.Errorf("reconcile %s: get: %w", name, err)
	}
	if ac, err = acg.ActionClientFor(ctx, obj); err != nil {
		return o, fmt.Errorf("reconcile %s: action client: %w", name, err)
	}
	o.Desired, err = ac.Upgrade(name, namespace, chrt, vals, func(u *action.Upgrade) error {
		u.MaxHistory = MaxHistory
		u.DryRun = true
		u.DryRunOption = "server"
		return nil
	})
	if err != nil {
		return o, fmt.Errorf("reconcile %s: dry-run upgrade: %w", name, err)
	}
	return o, nil
}

// ClusterExtension is a ClusterExtension of OLMv1's API (as testcluster's minimal
// CRD serves it) named name, installing into namespace. Its release is named after
// it.
func ClusterExtension(name, namespace string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"spec": map[string]interface{}{"namespace": namespace, "serviceAccount": map[string]interface{}{"name": "installer"}},
	}}
	u.SetGroupVersionKind(ClusterExtensionKind)
	u.SetName(name)
	return u
}

// ClusterExtensionKind is the kind of OLMv1's ClusterExtension.
var ClusterExtensionKind = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
