package ops_test

import (
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// These tests install CRDs, which every test of the package would see in
// discovery while they are served: they do not run in parallel, so that no
// parallel test runs beside them.

const ctlOwner = "ctl-owner"

// ctlSeed stores two revisions of release app in ns, the second deployed, and
// connects to them.
func ctlSeed(t *testing.T, ns string) *kube.Client {
	t.Helper()
	seed(t, chunkviewDriver(ns, ctlOwner, 16384), history("app", ns, 2, 2_000)...)
	return connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", ctlOwner}, nil)
}

func dyn(t *testing.T) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// setSuspend creates HelmRelease app in ns, which manages release app, or sets
// its spec.suspend as `flux suspend` and `flux resume` do.
func setSuspend(t *testing.T, ns string, suspend, create bool) {
	t.Helper()
	hrs := dyn(t).Resource(testcluster.HelmReleases).Namespace(ns)
	if create {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": kube.KindHelmRelease,
			"metadata": map[string]any{"name": "app", "namespace": ns},
			"spec":     map[string]any{"interval": "5m", "suspend": suspend, "chart": map[string]any{"spec": map[string]any{"chart": "webapp"}}},
		}}
		if _, err := hrs.Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	patch := fmt.Sprintf(`{"spec":{"suspend":%v}}`, suspend)
	if _, err := hrs.Patch(t.Context(), "app", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestApplyRechecksHelmRelease: the controller is checked again when an
// operation is applied. A rollback planned while release app's HelmRelease was
// suspended is refused with ErrControlled, changing nothing, once the
// HelmRelease is resumed before the apply; the same plan applies once it is
// suspended again.
func TestApplyRechecksHelmRelease(t *testing.T) {
	cluster.InstallFlux(t)
	ns := cluster.Namespace(t)
	c := ctlSeed(t, ns)
	setSuspend(t, ns, true, true)
	rb, err := planByName(t.Context(), c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	setSuspend(t, ns, false, false)
	before := snapshot(t, ns)
	err = ops.NewRunner(c).Apply(t.Context(), rb)
	mustContain(t, mustErrIs(t, err, ops.ErrControlled), "HelmRelease/"+ns+"/app", "flux suspend helmrelease app -n "+ns)
	if after := snapshot(t, ns); !sameSnapshot(before, after) {
		t.Fatalf("a refused rollback changed the records:\nbefore %v\nafter  %v", before, after)
	}
	setSuspend(t, ns, true, false)
	if err := ops.NewRunner(c).Apply(t.Context(), rb); err != nil || !rb.Applied || rb.NewRevision != 3 {
		t.Fatalf("the plan, its HelmRelease suspended again: %+v, %v", rb, err)
	}
}

// TestApplyRechecksClusterExtension: a rollback planned while the
// ClusterExtension its records name as their controller did not exist (deleted,
// about to be created again) is refused with ErrControlled, changing nothing,
// once the extension exists at the apply; the same plan applies once it is gone
// again.
func TestApplyRechecksClusterExtension(t *testing.T) {
	cluster.InstallOLMv1(t, false)
	ns := cluster.Namespace(t)
	c := ctlSeed(t, ns)
	ownedBy(t, ns, "app")
	rb, err := planByName(t.Context(), c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	exts := dyn(t).Resource(testcluster.ClusterExtensions)
	ext := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterExtension,
		"metadata": map[string]any{"name": "app-" + ns},
		"spec":     map[string]any{"namespace": ns, "source": map[string]any{"sourceType": "Catalog", "catalog": map[string]any{"packageName": "app"}}},
	}}
	if _, err := exts.Create(t.Context(), ext, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, ns)
	err = ops.NewRunner(c).Apply(t.Context(), rb)
	mustContain(t, mustErrIs(t, err, ops.ErrControlled), "ClusterExtension/app-"+ns)
	if after := snapshot(t, ns); !sameSnapshot(before, after) {
		t.Fatalf("a refused rollback changed the records:\nbefore %v\nafter  %v", before, after)
	}
	if err := exts.Delete(t.Context(), "app-"+ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ops.NewRunner(c).Apply(t.Context(), rb); err != nil || !rb.Applied || rb.NewRevision != 3 {
		t.Fatalf("the plan, its extension gone again: %+v, %v", rb, err)
	}
}

// ownedBy gives the index Secrets of release name in ns OLMv1's metadata: a
// controller ownerReference to ClusterExtension name-ns, as operator-controller
// writes it.
func ownedBy(t *testing.T, ns, name string) {
	t.Helper()
	list, err := secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "name=" + name + ",type=index"})
	if err != nil || len(list.Items) == 0 {
		t.Fatalf("index Secrets of %s: %v, %d", name, err, len(list.Items))
	}
	yes := true
	for _, s := range list.Items {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"ownerReferences": []metav1.OwnerReference{{APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: name + "-" + ns,
				UID: types.UID("0000-" + name), Controller: &yes}},
		}})
		if _, err := secrets(ns).Patch(t.Context(), s.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
