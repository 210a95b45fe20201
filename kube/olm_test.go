package kube_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
	"github.com/chunkview/chunkview/storage"
)

// olmOwner is the owner label of the OLMv1 tests' records, as operator-controller's.
const olmOwner = "operator-controller"

// olmLabels are the labels operator-controller puts on a ClusterExtension's
// index Secrets.
func olmLabels(ext string) map[string]string {
	return map[string]string{
		"olm.operatorframework.io/package-name":   ext,
		"olm.operatorframework.io/bundle-name":    ext + ".v1.2.0",
		"olm.operatorframework.io/bundle-version": "1.2.0",
	}
}

// seedOLMRelease stores a release of n revisions in ns and gives every index
// Secret OLMv1's metadata: a controller ownerReference to ClusterExtension ext and
// its labels.
func seedOLMRelease(t *testing.T, ns, ext string, n int) {
	t.Helper()
	d := storage.NewChunkedSecrets(secrets(ns), olmOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, history(ext, ns, n, 1000)...)
	for rev := 1; rev <= n; rev++ {
		yes := true
		patch := map[string]any{"metadata": map[string]any{
			"labels": olmLabels(ext),
			"ownerReferences": []metav1.OwnerReference{{
				APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: ext,
				UID: types.UID("0000-" + ext), Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		}}
		body, _ := json.Marshal(patch)
		if _, err := secrets(ns).Patch(t.Context(), storage.RecordKey(ext, rev), types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
			t.Fatalf("patch index %d: %v", rev, err)
		}
	}
}

// createExtension creates ClusterExtension name and sets its status: two
// conditions and the installed bundle.
func createExtension(t *testing.T, dyn dynamic.Interface, name string) *unstructured.Unstructured {
	t.Helper()
	ctx := t.Context()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterExtension,
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"namespace": name, "source": map[string]any{"sourceType": "Catalog"}},
	}}
	created, err := dyn.Resource(testcluster.ClusterExtensions).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ClusterExtension: %v", err)
	}
	created.Object["status"] = map[string]any{
		"conditions": []any{
			map[string]any{"type": "Installed", "status": "True", "reason": "Succeeded", "message": "Installed bundle " + name + ".v1.2.0 successfully", "lastTransitionTime": "2026-01-01T00:00:00Z"},
			map[string]any{"type": "Progressing", "status": "True", "reason": "Retrying", "message": "resolving: catalog unavailable", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		},
		"install": map[string]any{"bundle": map[string]any{"name": name + ".v1.2.0", "version": "1.2.0"}},
	}
	updated, err := dyn.Resource(testcluster.ClusterExtensions).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update ClusterExtension status: %v", err)
	}
	return updated
}

// TestOLMv1Metadata: the index Secrets' controller ownerReference and custom
// labels come with the listing and the history at no extra request.
func TestOLMv1Metadata(t *testing.T) {
	ctx := t.Context()
	ns, plain := cluster.Namespace(t), cluster.Namespace(t)
	seedOLMRelease(t, ns, "ext-meta", 2)
	seed(t, storage.NewChunkedSecrets(secrets(plain), olmOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10}), history("plain", plain, 2, 1000)...)

	count := func(ns string) (int, []kube.ReleaseRow) {
		stats := &kube.Stats{}
		c := connect(t, adminKubeconfig(t, ns), []string{"--owner", olmOwner, "--driver", "chunked"}, func(o *kube.Options) { o.Stats = stats })
		rows, err := c.Releases(ctx)
		if err != nil || len(rows) != 1 {
			t.Fatalf("Releases in %s: %v, %v", ns, rows, err)
		}
		return stats.Total(), rows
	}
	base, _ := count(plain)
	n, rows := count(ns)
	if n != base {
		t.Errorf("listing OLMv1 records took %d requests, plain ones %d: reading their owner must cost nothing", n, base)
	}
	t.Logf("Releases: %d request(s) with OLMv1 metadata, %d without", n, base)
	l := rows[0].Latest
	if l.ControlledBy != "ClusterExtension/ext-meta" {
		t.Errorf("ControlledBy = %q", l.ControlledBy)
	}
	if !maps.Equal(l.Labels, olmLabels("ext-meta")) {
		t.Errorf("Labels = %v, want %v (no system label)", l.Labels, olmLabels("ext-meta"))
	}
	if kube.ExtensionName(l) != "ext-meta" {
		t.Errorf("ExtensionName = %q", kube.ExtensionName(l))
	}
}

// TestOLMv1ClusterExtension: absent CRD, served CRD with conditions, a
// ClusterObjectSet that makes the Helm records history, and a user who may not
// read ClusterExtensions.
func TestOLMv1ClusterExtension(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	seedOLMRelease(t, ns, "ext-a", 2)
	c := connect(t, adminKubeconfig(t, ns), []string{"--owner", olmOwner}, nil)

	// No OLMv1 on the cluster: nothing to say, and no error.
	if e := owner.Extension(ctx, c, "ext-a"); e != nil {
		t.Fatalf("without the CRD: %+v, want nil", e)
	}

	cluster.InstallOLMv1(t, true)
	dyn := dynamic.NewForConfigOrDie(cluster.Config)
	ext := createExtension(t, dyn, "ext-a")

	stats := &kube.Stats{}
	c = connect(t, adminKubeconfig(t, ns), []string{"--owner", olmOwner}, func(o *kube.Options) { o.Stats = stats })
	e := owner.Extension(ctx, c, "ext-a")
	if e == nil || e.Unreadable != "" {
		t.Fatalf("with the CRD: %+v", e)
	}
	t.Logf("ClusterExtension: %d requests %v", stats.Total(), stats.Requests())
	if e.Bundle != (kube.InstalledBundle{Name: "ext-a.v1.2.0", Version: "1.2.0"}) {
		t.Errorf("bundle %+v", e.Bundle)
	}
	want := []kube.ExtensionCondition{
		{Type: "Installed", Status: "True", Reason: "Succeeded", Message: "Installed bundle ext-a.v1.2.0 successfully"},
		{Type: "Progressing", Status: "True", Reason: "Retrying", Message: "resolving: catalog unavailable"},
	}
	if fmt.Sprint(e.Conditions) != fmt.Sprint(want) {
		t.Errorf("conditions %+v, want %+v", e.Conditions, want)
	}
	if e.Historical() || e.ObjectSets != 0 {
		t.Errorf("no ClusterObjectSet yet, got %+v", e)
	}
	if stats.Mutating() != 0 {
		t.Errorf("reading the extension sent %d mutating requests", stats.Mutating())
	}

	// A missing extension is said so, not an error.
	if e := owner.Extension(ctx, c, "nope"); e == nil || e.Unreadable != "not found" {
		t.Errorf("missing extension: %+v", e)
	}

	// The Boxcutter runtime took over: two ClusterObjectSets of ext-a (one by
	// ownerReference, one by label) and one of another extension.
	yes := true
	mkSet := func(name string, owner bool, labels map[string]any) {
		meta := map[string]any{"name": name}
		if owner {
			meta["ownerReferences"] = []any{map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterExtension, "name": ext.GetName(), "uid": string(ext.GetUID()), "controller": yes}}
		}
		if labels != nil {
			meta["labels"] = labels
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterObjectSet, "metadata": meta}}
		if _, err := dyn.Resource(testcluster.ClusterObjectSets).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create ClusterObjectSet %s: %v", name, err)
		}
	}
	mkSet("ext-a-1", true, nil)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have a second's resolution
	mkSet("ext-a-2", false, map[string]any{"olm.operatorframework.io/owner": "ext-a"})
	mkSet("other-9", false, map[string]any{"olm.operatorframework.io/owner": "other"})
	e = owner.Extension(ctx, c, "ext-a")
	if !e.Historical() || e.ObjectSet != "ext-a-2" || e.ObjectSets != 2 {
		t.Errorf("with ClusterObjectSets: %+v, want the newest ext-a-2 of 2", e)
	}

	// A user who may read the records but not ClusterExtensions is told so.
	user := "olm-reader-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-reader", readSecrets)
	rc := connect(t, kc, []string{"--owner", olmOwner}, nil)
	waitAllowed(t, "list as the reader", func() error { _, err := rc.Releases(ctx); return err })
	e = owner.Extension(ctx, rc, "ext-a")
	if e == nil || e.Unreadable == "" {
		t.Fatalf("as a reader: %+v, want not readable", e)
	}
	mustContain(t, e.Unreadable, "forbidden", "kubectl auth can-i get clusterextensions.olm.operatorframework.io")
	t.Logf("as a reader: not readable: %s", e.Unreadable)
}
