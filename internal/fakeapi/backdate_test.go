package fakeapi

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestBackdate: an object backdated keeps everything but its creationTimestamp,
// moves to a new resourceVersion, and a watcher sees it modified; an object
// that does not exist is NotFound.
func TestBackdate(t *testing.T) {
	c, sc := newTestCluster(t)
	ctx := t.Context()
	before := mustCreate(t, sc, secret("rec", map[string][]byte{"k": []byte("v")}, map[string]string{"owner": "helm"}))
	w, err := sc.Watch(ctx, metav1.ListOptions{ResourceVersion: before.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	when := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	gvr := corev1.SchemeGroupVersion.WithResource("secrets")
	if err := c.Backdate(gvr, ns, "rec", when); err != nil {
		t.Fatal(err)
	}
	after, err := sc.Get(ctx, "rec", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !after.CreationTimestamp.Time.Equal(when) || after.UID != before.UID || string(after.Data["k"]) != "v" || after.Labels["owner"] != "helm" {
		t.Errorf("backdated: created %v uid %s data %q labels %v; want %v and the rest as before", after.CreationTimestamp, after.UID, after.Data, after.Labels, when)
	}
	if rvOf(t, after) <= rvOf(t, before) {
		t.Errorf("resourceVersion %s after %s: not moved", after.ResourceVersion, before.ResourceVersion)
	}
	select {
	case ev := <-w.ResultChan():
		if s, ok := ev.Object.(*corev1.Secret); ev.Type != watch.Modified || !ok || !s.CreationTimestamp.Time.Equal(when) {
			t.Errorf("watch event %s %T, want Modified with the new date", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Error("no watch event for the backdated object")
	}
	if err := c.Backdate(gvr, ns, "missing", when); !apierrors.IsNotFound(err) {
		t.Errorf("backdating a missing object: %v, want NotFound", err)
	}
}
