package helm4_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/kube"
	helmstorage "helm.sh/helm/v4/pkg/storage"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// The chunked driver under Helm 4's actions: Init the configuration as Helm's CLI
// does, then put the driver in place of the Secrets driver Init set up. Here, a
// rollback of a release that OLMv1's operator-controller manages.
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

	cfg := action.NewConfiguration()
	if err := cfg.Init(getter, namespace, "secret"); err != nil {
		log.Fatal(err)
	}
	cfg.Releases = helmstorage.Init(helm4.NewChunkedSecrets(clientset.CoreV1().Secrets(namespace), "operator-controller",
		chunked.Config{ChunkSize: chunked.DefaultChunkSize, MaxReadChunks: 11, MaxWriteChunks: 11}))

	rb := action.NewRollback(cfg)
	rb.Version = 3
	rb.WaitStrategy = kube.HookOnlyStrategy // Helm's CLI default; Rollback needs one
	if err := rb.Run("my-extension"); err != nil {
		log.Fatal(err)
	}
}

// An operation held to the plan a person confirmed: the plan records the
// resourceVersion of each index Secret it was made from, and the driver under the
// action refuses, with chunked.ErrConflict, any read or write that finds the
// release changed since.
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
	drv := helm4.NewDriver(clientset.CoreV1().Secrets(namespace), "helm", chunked.Config{})

	// The plan: the release's revisions as shown, with their versions.
	plan := map[string]string{}
	for rev := 1; rev <= 2; rev++ {
		idx, err := drv.ReadIndex(context.Background(), chunked.RecordKey(name, rev))
		if err != nil {
			log.Fatal(err)
		}
		plan[idx.Name] = idx.ResourceVersion
	}

	cfg := action.NewConfiguration()
	if err := cfg.Init(getter, namespace, "secret"); err != nil {
		log.Fatal(err)
	}
	cfg.Releases = helmstorage.Init(drv.Expect(name, plan))
	rb := action.NewRollback(cfg)
	rb.Version = 1
	rb.WaitStrategy = kube.HookOnlyStrategy
	switch err := rb.Run(name); {
	case errors.Is(err, chunked.ErrConflict):
		fmt.Println("the release changed since it was shown; nothing was rolled back")
	case err != nil:
		log.Fatal(err)
	}
}

// NewDriver applies the defaults of every setting left zero, and reaches the
// cluster only when Helm calls it.
func ExampleNewDriver() {
	clientset := kubernetes.NewForConfigOrDie(&rest.Config{Host: "https://cluster.invalid"})
	drv := helm4.NewDriver(clientset.CoreV1().Secrets("olmv1-system"), "operator-controller",
		chunked.Config{ChunkSize: 1_040_384, MaxReadChunks: 11, MaxWriteChunks: 11})
	c := drv.Config()
	fmt.Println(drv.Name())
	fmt.Printf("%d-byte chunks, at most %d a revision; reads wait %s for a write in progress and decode at most %d MiB\n",
		c.ChunkSize, c.MaxWriteChunks, c.ReadRetry, c.MaxDecodedBytes>>20)
	// Output:
	// operator-controller/chunkedSecrets
	// 1040384-byte chunks, at most 11 a revision; reads wait 2s for a write in progress and decode at most 128 MiB
}
