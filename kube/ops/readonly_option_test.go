package ops_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// TestReadOnlyFlagGuardsTheConnection: --read-only puts the refusing transport
// under every client the connection makes, so a mutating request that no code
// path's CheckWritable stopped (sent here straight through the clientset, the
// chunked driver and Helm's kube client) is refused before it leaves the
// process: it fails with ErrReadOnly, reaches no wire, and changes nothing. The
// same requests without --read-only go through, so the refusal is the flag's.
func TestReadOnlyFlagGuardsTheConnection(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	ns := cluster.Namespace(t)
	kc := adminKubeconfig(t, ns)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "past-the-check"}}
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: helm-past-the-check\n"
	tries := func(c *kube.Client) []error {
		_, errCS := c.Clientset().CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), c.Config().Owner, kube.ChunkedConfig(c.Config().Driver, c.Metadata(), ns))
		errDrv := drv.Create(storage.RecordKey("ro", 1), makeRelease("ro", ns, 1, release.StatusDeployed, 100))
		h, err := ops.NewAppliers(c.ApplySource().(genericclioptions.RESTClientGetter)).Helm3(ns)
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Build(bytes.NewBufferString(manifest), false)
		if err != nil {
			t.Fatal(err)
		}
		_, errHelm := h.Create(res)
		return []error{errCS, errDrv, errHelm}
	}

	wire := &wireLog{}
	ro := connect(t, kc, []string{"-n", ns, "--read-only"}, func(o *kube.Options) { o.WrapConfig = wire.install })
	for i, err := range tries(ro) {
		if err == nil || !strings.Contains(err.Error(), "read-only mode: refused") {
			t.Errorf("request %d past CheckWritable under --read-only: %v, want the connection's refusal", i, err)
		} else if i < 2 && !errors.Is(err, kube.ErrReadOnly) {
			t.Errorf("request %d: %v does not wrap ErrReadOnly", i, err)
		}
	}
	if m := wire.Mutating(); len(m) != 0 {
		t.Errorf("mutating requests reached the wire under --read-only: %v", m)
	}
	if _, err := ro.Clientset().CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("a read under --read-only: %v", err)
	}
	if list, _ := secrets(ns).List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("--read-only let %d Secrets be written", len(list.Items))
	}

	rw := connect(t, kc, []string{"-n", ns}, nil)
	for i, err := range tries(rw) {
		if err != nil {
			t.Errorf("request %d without --read-only: %v", i, err)
		}
	}
}
