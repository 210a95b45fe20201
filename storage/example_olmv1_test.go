package storage_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	hopclient "github.com/operator-framework/helm-operator-plugins/pkg/client"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/kube"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// olmSecrets is the Secret client OLMv1's operator-controller gives its drivers,
// written out: Get and List read through a controller-runtime client.Reader (the
// manager's API reader, live, or its cache), writes go to the typed client, and
// nothing watches.
type olmSecrets struct {
	corev1client.SecretInterface
	reader    ctrlclient.Reader
	namespace string
}

func (s olmSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	var secret corev1.Secret
	err := s.reader.Get(ctx, ctrlclient.ObjectKey{Namespace: s.namespace, Name: name}, &secret, &ctrlclient.GetOptions{Raw: &opts})
	return &secret, err
}

func (s olmSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	lo := &ctrlclient.ListOptions{Namespace: s.namespace, Limit: opts.Limit, Continue: opts.Continue}
	var err error
	if lo.LabelSelector, err = labels.Parse(opts.LabelSelector); err != nil {
		return nil, err
	}
	if lo.FieldSelector, err = fields.ParseSelector(opts.FieldSelector); err != nil {
		return nil, err
	}
	var list corev1.SecretList
	return &list, s.reader.List(ctx, &list, lo)
}

// OLMv1's wiring of the chunked driver, with chunkview's in place of
// helm-operator-plugins': the records live in the system namespace; each action
// gets a driver of its own over the Secret client above, under
// helm-operator-plugins' OwnerRefSecretClient, which puts the ClusterExtension's
// controller ownerReference on every index Secret. The release cache, one for the
// manager, makes the reconcile's reads cost the API server nothing once it holds
// the records.
func Example_olmv1() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	restConfig := cluster.Config // in the operator: mgr.GetConfig()
	const systemNamespace, release = "olmv1-system", "my-extension"

	coreClient, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		log.Fatal(err)
	}
	apiReader, err := ctrlclient.New(restConfig, ctrlclient.Options{}) // mgr.GetAPIReader()
	if err != nil {
		log.Fatal(err)
	}
	secrets := olmSecrets{SecretInterface: coreClient.CoreV1().Secrets(systemNamespace), reader: apiReader, namespace: systemNamespace}

	// One release cache for the manager: mgr.Add(releases) starts it.
	releases := storage.NewReleaseCache(coreClient.CoreV1(), storage.ReleaseCacheOptions{})
	go func() { _ = releases.Start(ctx) }()
	releases.WaitForStart(ctx)

	// The driver of one action on one ClusterExtension (OLMv1's
	// StorageDriverMapper), reading live, or through the cache when given one.
	driverFor := func(owner metav1.OwnerReference, cache *storage.ReleaseCache) driver.Driver {
		owned := hopclient.NewOwnerRefSecretClient(secrets, []metav1.OwnerReference{owner}, func(s *corev1.Secret) bool {
			return s.Type == storage.SecretTypeIndex
		})
		return storage.NewChunkedSecrets(owned, "operator-controller", storage.ChunkedSecretsConfig{
			ChunkSize: storage.DefaultChunkSize, MaxReadChunks: 11, MaxWriteChunks: 11,
			Cache: cache,
		})
	}
	extension := metav1.OwnerReference{
		APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterExtension", Name: release,
		UID: types.UID("6b7a2c1e-0d5f-4f4e-9a40-3c9d1f2b7e11"), Controller: new(bool), BlockOwnerDeletion: new(bool),
	}
	*extension.Controller = true

	if _, err := coreClient.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}}, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	install := action.NewInstall(exampleConfig(driverFor(extension, nil), "default"))
	install.ReleaseName, install.Namespace = release, "default"
	if _, err := install.Run(exampleChart(), map[string]interface{}{"greeting": "hello"}); err != nil {
		log.Fatal(err)
	}

	// A reconcile: History, Get and a dry-run upgrade, each with a fresh driver.
	reconcile := func(cache *storage.ReleaseCache) int {
		history, err := action.NewHistory(exampleConfig(driverFor(extension, cache), "default")).Run(release)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := action.NewGet(exampleConfig(driverFor(extension, cache), "default")).Run(release); err != nil {
			log.Fatal(err)
		}
		up := action.NewUpgrade(exampleConfig(driverFor(extension, cache), "default"))
		up.Namespace, up.DryRun, up.DryRunOption = "default", true, "server"
		if _, err := up.Run(release, exampleChart(), map[string]interface{}{"greeting": "hello"}); err != nil {
			log.Fatal(err)
		}
		return len(history)
	}
	fmt.Printf("live reads: %d revision(s)\n", reconcile(nil))
	cached := releases.Namespace(systemNamespace)
	reconcile(cached) // the cache reads the records once
	before := releases.Stats()
	n := reconcile(cached)
	after := releases.Stats()

	idx, err := coreClient.CoreV1().Secrets(systemNamespace).Get(ctx, storage.RecordKey(release, 1), metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: revision 1 stored in %s, owned by %s %s\n", release, idx.Namespace, idx.OwnerReferences[0].Kind, idx.OwnerReferences[0].Name)
	fmt.Printf("cached reads: %d revision(s); at steady state a reconcile decoded %d records and reused %d\n", n, after.Decodes-before.Decodes, after.ReleaseHits-before.ReleaseHits)
	// Output:
	// live reads: 1 revision(s)
	// my-extension: revision 1 stored in olmv1-system, owned by ClusterExtension my-extension
	// cached reads: 1 revision(s); at steady state a reconcile decoded 0 records and reused 3
}

// exampleConfig is the action configuration of an action client: Helm's own
// Kubernetes client for the release's objects in namespace, and d for its
// records.
func exampleConfig(d driver.Driver, namespace string) *action.Configuration {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, cluster.Env.KubeConfig, 0o600); err != nil {
		log.Fatal(err)
	}
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig, getter.Namespace = &kubeconfig, &namespace
	kc := kube.New(getter)
	kc.Namespace = namespace
	return &action.Configuration{RESTClientGetter: getter, Releases: helmstorage.Init(d), KubeClient: kc, Log: func(string, ...interface{}) {}}
}

// exampleChart is a chart of one ConfigMap.
func exampleChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "greeter", Version: "1.0.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  greeting: {{ .Values.greeting }}\n")}},
	}
}
