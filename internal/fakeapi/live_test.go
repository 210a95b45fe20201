package fakeapi

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	memory "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
)

// TestParityEvents: Events' field selectors are those of a real API server:
// type, reason and involvedObject.* select, another field is refused in the
// same words.
func TestParityEvents(t *testing.T) {
	compare(t, func(ctx context.Context, t *testing.T, c corev1client.EventInterface) []string {
		for _, e := range []struct{ name, typ, reason, obj string }{
			{"a", corev1.EventTypeWarning, "BackOff", "web-1"},
			{"b", corev1.EventTypeNormal, "Pulled", "web-1"},
			{"c", corev1.EventTypeWarning, "Failed", "web-2"},
		} {
			ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: e.name}, Type: e.typ, Reason: e.reason,
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: e.obj, Namespace: currentNS}}
			if _, err := c.Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				t.Fatalf("setup: %v", err)
			}
		}
		var out []string
		for _, sel := range []string{"type=Warning", "reason=BackOff", "involvedObject.name=web-1,type!=Warning", "involvedObject.kind=Pod", "source=kubelet", "count=3"} {
			l, err := c.List(ctx, metav1.ListOptions{FieldSelector: sel})
			if err != nil {
				out = append(out, sel+": "+outcome(currentNS, err))
				continue
			}
			var names []string
			for _, e := range l.Items {
				names = append(names, e.Name)
			}
			slices.Sort(names)
			out = append(out, sel+": "+strings.Join(names, ","))
		}
		return out
	}, func(cs kubernetes.Interface, ns string) corev1client.EventInterface { return cs.CoreV1().Events(ns) })
}

// TestParityDynamic: the dynamic client returns what a real server's does for
// the same objects: apiVersion and kind set, the same status, NotFound for an
// object that is not there, and a RESTMapper over the cluster's discovery maps
// the kinds the demo deploys to the resources and scopes the real server has.
func TestParityDynamic(t *testing.T) {
	ctx := context.Background()
	c := NewCluster()
	ns := apiServer.Namespace(t)
	if err := c.Add(Namespace(ns)); err != nil {
		t.Fatal(err)
	}
	realDyn := dynamic.NewForConfigOrDie(apiServer.Config)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}},
		},
	}
	if _, err := apiServer.Client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Clientset().AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for _, d := range []struct {
		name string
		dyn  dynamic.Interface
	}{{"real", realDyn}, {"demo", c.Dynamic()}} {
		u, err := d.dyn.Resource(gvr).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if u.GetAPIVersion() != "apps/v1" || u.GetKind() != "Deployment" {
			t.Errorf("%s: got %s %s, want apps/v1 Deployment", d.name, u.GetAPIVersion(), u.GetKind())
		}
		if img, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers"); len(img) != 1 {
			t.Errorf("%s: containers %v", d.name, img)
		}
		l, err := d.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 1 || l.Items[0].GetKind() != "Deployment" {
			t.Errorf("%s: list %v, %v", d.name, l, err)
		}
	}
	_, rerr := realDyn.Resource(gvr).Namespace(ns).Get(ctx, "nope", metav1.GetOptions{})
	_, derr := c.Dynamic().Resource(gvr).Namespace(ns).Get(ctx, "nope", metav1.GetOptions{})
	if g, w := outcome(ns, derr), outcome(ns, rerr); g != w {
		t.Errorf("not found:\n demo: %s\n real: %s", g, w)
	}

	realMapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(apiServer.Config)))
	demoMapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Clientset().Discovery()))
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Pod"}, {Version: "v1", Kind: "Namespace"},
		{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "batch", Version: "v1", Kind: "Job"},
		{Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass"}, {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	} {
		want, err := realMapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("real %s: %v", gvk, err)
		}
		got, err := demoMapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("demo %s: %v", gvk, err)
			continue
		}
		if got.Resource != want.Resource || got.Scope.Name() != want.Scope.Name() {
			t.Errorf("%s: demo maps to %s (%s), the real server to %s (%s)", gvk, got.Resource, got.Scope.Name(), want.Resource, want.Scope.Name())
		}
	}
}

// TestCustomResources: a resource served with ServeResources is discovered,
// and its objects, stored as they are, come back from get, list and watch
// with their kind.
func TestCustomResources(t *testing.T) {
	ctx := t.Context()
	c := NewCluster()
	gvr := schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}
	c.ServeResources(Resource{GVR: gvr, Kind: "ClusterExtension"})
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Clientset().Discovery()))
	m, err := mapper.RESTMapping(schema.GroupKind{Group: gvr.Group, Kind: "ClusterExtension"}, "v1")
	if err != nil || m.Resource != gvr || m.Scope.Name() != "root" {
		t.Fatalf("mapping: %v, %v", m, err)
	}
	w, err := c.Dynamic().Resource(gvr).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
		"metadata": map[string]any{"name": "cert-manager"}, "spec": map[string]any{"namespace": "cert-manager"}}}
	if _, err := c.Dynamic().Resource(gvr).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Dynamic().Resource(gvr).Get(ctx, "cert-manager", metav1.GetOptions{})
	if err != nil || got.GetKind() != "ClusterExtension" || got.GetUID() == "" {
		t.Fatalf("get: %v, %v", got, err)
	}
	if ns, _, _ := unstructured.NestedString(got.Object, "spec", "namespace"); ns != "cert-manager" {
		t.Errorf("spec.namespace %q", ns)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).GetKind() != "ClusterExtension" {
			t.Errorf("watch: %v %v", ev.Type, ev.Object)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch sent nothing")
	}
	if _, err := c.Dynamic().Resource(gvr).Patch(ctx, "cert-manager", "application/merge-patch+json", []byte("{}"), metav1.PatchOptions{}); !apierrors.IsMethodNotSupported(err) {
		t.Errorf("patch: %v, want MethodNotSupported", err)
	}
}

// TestPodLogs: GetLogs serves the log SetLog set, its last lines by TailLines,
// and answers as the API server does a Pod that is not there (NotFound), an
// unnamed container of a Pod with several, and a previous run with no log
// (BadRequest).
func TestPodLogs(t *testing.T) {
	ctx := t.Context()
	c := NewCluster()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}, {Name: "sidecar"}}}}
	if err := c.Add(pod); err != nil {
		t.Fatal(err)
	}
	c.SetLog("default", "web-1", "web", false, "one\ntwo\nthree\n")
	c.SetLog("default", "web-1", "web", true, "crashed\n")
	logs := func(name string, o corev1.PodLogOptions) (string, error) {
		b, err := c.Clientset().CoreV1().Pods("default").GetLogs(name, &o).DoRaw(ctx)
		if err != nil {
			// As from a real server, DoRaw's error is generic; the body is
			// the server's Status.
			var st metav1.Status
			if json.Unmarshal(b, &st) == nil && st.Kind == "Status" {
				return "", apierrors.FromObject(&st)
			}
			return "", err
		}
		return string(b), nil
	}
	if got, err := logs("web-1", corev1.PodLogOptions{Container: "web"}); err != nil || got != "one\ntwo\nthree\n" {
		t.Errorf("whole log: %q, %v", got, err)
	}
	if got, err := logs("web-1", corev1.PodLogOptions{Container: "web", TailLines: ptr.To[int64](2)}); err != nil || got != "two\nthree\n" {
		t.Errorf("tail 2: %q, %v", got, err)
	}
	if got, err := logs("web-1", corev1.PodLogOptions{Container: "web", Previous: true}); err != nil || got != "crashed\n" {
		t.Errorf("previous: %q, %v", got, err)
	}
	if _, err := logs("web-1", corev1.PodLogOptions{Container: "sidecar", Previous: true}); !apierrors.IsBadRequest(err) {
		t.Errorf("no previous run: %v, want BadRequest", err)
	}
	if _, err := logs("web-1", corev1.PodLogOptions{}); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "choose one of: [web sidecar]") {
		t.Errorf("no container named: %v", err)
	}
	if _, err := logs("gone", corev1.PodLogOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("no such Pod: %v, want NotFound", err)
	}
}
