package fakeapi

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestSnapshotRestore: a cluster restored from a snapshot holds every object
// as it was stored (uid, resourceVersion, creationTimestamp, data), typed and
// custom ones, serves what the original served with the same logs, and goes
// on counting resourceVersions from where the original stopped.
func TestSnapshotRestore(t *testing.T) {
	ctx := t.Context()
	c := NewCluster()
	c.SetClock(func() time.Time { return time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC) })
	crGVR := schema.GroupVersionResource{Group: "example.io", Version: "v1", Resource: "widgets"}
	c.ServeResources(Resource{GVR: crGVR, Kind: "Widget", Namespaced: true})
	if err := c.Add(Namespace("apps")); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "apps", Labels: map[string]string{"a": "b"}},
		Data: map[string][]byte{"k": []byte("\x00\xffbytes"), "j": []byte("more")}}
	if _, err := c.Clientset().CoreV1().Secrets("apps").Create(ctx, sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "apps"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if err := c.Add(pod); err != nil {
		t.Fatal(err)
	}
	c.SetLog("apps", "p", "c", true, "crashed\n")
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "apps"}, "spec": map[string]any{"size": int64(3)}}}
	if _, err := c.Dynamic().Resource(crGVR).Namespace("apps").Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	data, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := NewCluster()
	if err := r.Restore(data); err != nil {
		t.Fatal(err)
	}
	again, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("the restored cluster's snapshot differs from the one it was restored from")
	}
	for _, gvr := range []schema.GroupVersionResource{secretsGVR, namespacesGVR, crGVR, corev1.SchemeGroupVersion.WithResource("pods")} {
		want, _ := c.Dynamic().Resource(gvr).List(ctx, metav1.ListOptions{})
		got, err := r.Dynamic().Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list %s on the restored cluster: %v", gvr.Resource, err)
		}
		wj, _ := json.Marshal(want.Items)
		gj, _ := json.Marshal(got.Items)
		if len(want.Items) == 0 || string(wj) != string(gj) {
			t.Errorf("%s: restored\n%s\nwant\n%s", gvr.Resource, gj, wj)
		}
	}
	got, err := r.Clientset().CoreV1().Secrets("apps").Get(ctx, "s", metav1.GetOptions{})
	if err != nil || string(got.Data["k"]) != "\x00\xffbytes" || got.Labels["a"] != "b" {
		t.Errorf("restored Secret: %+v, %v", got, err)
	}
	if _, ok := r.ResourceFor(schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Widget"}); !ok {
		t.Error("the restored cluster does not serve the custom resource")
	}
	if b, err := r.podLog("apps", "p", &corev1.PodLogOptions{Container: "c", Previous: true}); err != nil || string(b) != "crashed\n" {
		t.Errorf("restored log: %q, %v", b, err)
	}
	last, _ := strconv.ParseUint(got.ResourceVersion, 10, 64)
	next, err := r.Clientset().CoreV1().ConfigMaps("apps").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rv, _ := strconv.ParseUint(next.ResourceVersion, 10, 64); rv <= last {
		t.Errorf("a write after the restore got resourceVersion %d, not past the snapshot's %d", rv, last)
	}
}

// TestRestoreRefusesDamage: a snapshot cut short or with bytes past its
// objects is refused, and the cluster is left as it was.
func TestRestoreRefusesDamage(t *testing.T) {
	c := NewCluster()
	if err := c.Add(Namespace("apps"), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "apps"}, Data: map[string][]byte{"k": []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	data, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{"cut": data[:len(data)-1], "long": append(append([]byte{}, data...), 0), "empty": nil, "header": data[:4]} {
		r := NewCluster()
		if err := r.Restore(bad); err == nil {
			t.Errorf("%s: restored", name)
		}
		if _, err := r.Clientset().CoreV1().Namespaces().Get(t.Context(), "apps", metav1.GetOptions{}); err == nil {
			t.Errorf("%s: the refused snapshot's namespace is there", name)
		}
	}
}
