package storage_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"helm.sh/helm/v3/pkg/action"
	helmstorage "helm.sh/helm/v3/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// The chunked driver under Helm 3's actions, where helm-operator-plugins' driver
// was: Init the configuration as Helm's CLI does, then put the driver in place of
// the Secrets driver Init set up. Here, an upgrade's history and a rollback of a
// release that OLMv1's operator-controller manages.
func ExampleNewChunkedSecrets() {
	const namespace = "olmv1-system" // where the records are
	getter := genericclioptions.NewConfigFlags(true)
	ns := namespace
	getter.Namespace = &ns
	restConfig, err := getter.ToRESTConfig()
	if err != nil {
		log.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		log.Fatal(err)
	}

	cfg := new(action.Configuration)
	if err := cfg.Init(getter, namespace, "secret", log.Printf); err != nil {
		log.Fatal(err)
	}
	cfg.Releases = helmstorage.Init(storage.NewChunkedSecrets(clientset.CoreV1().Secrets(namespace), "operator-controller",
		storage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize, MaxReadChunks: 11, MaxWriteChunks: 11}))

	history, err := action.NewHistory(cfg).Run("my-extension")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(history), "revisions")
	rb := action.NewRollback(cfg)
	rb.Version = 3
	if err := rb.Run("my-extension"); err != nil {
		log.Fatal(err)
	}
}

// An operation held to the plan a person confirmed: the plan records the
// resourceVersion of each index Secret it was made from, and the driver under the
// action refuses, with ErrConflict, any read or write that finds the release
// changed since.
func ExampleChunkedSecrets_Expect() {
	const namespace, name = "apps", "shop"
	getter := genericclioptions.NewConfigFlags(true)
	restConfig, err := getter.ToRESTConfig()
	if err != nil {
		log.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		log.Fatal(err)
	}
	drv := storage.NewDriver(clientset.CoreV1().Secrets(namespace), "helm", storage.ChunkedSecretsConfig{})
	indexes, err := drv.ReadIndexes(context.Background(), []string{storage.RecordKey(name, 1), storage.RecordKey(name, 2)})
	if err != nil {
		log.Fatal(err)
	}
	plan := map[string]string{}
	for k, idx := range indexes {
		plan[k] = idx.ResourceVersion
	}

	cfg := new(action.Configuration)
	if err := cfg.Init(getter, namespace, "secret", log.Printf); err != nil {
		log.Fatal(err)
	}
	cfg.Releases = helmstorage.Init(drv.Expect(name, plan))
	rb := action.NewRollback(cfg)
	rb.Version = 1
	switch err := rb.Run(name); {
	case errors.Is(err, storage.ErrConflict):
		fmt.Println("the release changed since it was shown; nothing was rolled back")
	case err != nil:
		log.Fatal(err)
	}
}

// Helm names each revision's record after the release and the revision; the
// format names each further chunk of it after its bytes: FNV-1a 64 of them,
// big-endian, in base32 of the alphabet a-z1-6.
func ExampleChunkName() {
	k := storage.RecordKey("shop", 3)
	fmt.Println(k)
	fmt.Println(storage.ChunkName(k, []byte("the second slice of the gzip stream")))
	name, rev, _ := storage.ParseKey(k)
	fmt.Println(name, rev)
	// Output:
	// sh.helm.release.v1.shop.v3
	// sh.helm.release.v1.shop.v3-1tkll1ff4jaya
	// shop 3
}
