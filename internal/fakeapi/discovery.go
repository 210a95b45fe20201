package fakeapi

import (
	"bytes"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// Resource is one resource the cluster serves, as discovery lists it.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
}

// builtinResources are what a new Cluster serves: the kinds of client-go's
// scheme that Helm charts deploy and that chunkview reads beside them (Pods,
// their logs, Events, ReplicaSets), and CustomResourceDefinitions.
var builtinResources = []Resource{
	{corev1.SchemeGroupVersion.WithResource("namespaces"), "Namespace", false},
	{corev1.SchemeGroupVersion.WithResource("configmaps"), "ConfigMap", true},
	{corev1.SchemeGroupVersion.WithResource("secrets"), "Secret", true},
	{corev1.SchemeGroupVersion.WithResource("pods"), "Pod", true},
	{corev1.SchemeGroupVersion.WithResource("events"), "Event", true},
	{corev1.SchemeGroupVersion.WithResource("services"), "Service", true},
	{corev1.SchemeGroupVersion.WithResource("serviceaccounts"), "ServiceAccount", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "Deployment", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, "ReplicaSet", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, "StatefulSet", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "DaemonSet", true},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, "Job", true},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, "CronJob", true},
	{schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, "HorizontalPodAutoscaler", true},
	{schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, "Ingress", true},
	{schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses"}, "IngressClass", false},
	{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, "ValidatingWebhookConfiguration", false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "ClusterRole", false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, "ClusterRoleBinding", false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, "Role", true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, "RoleBinding", true},
	{schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, "CustomResourceDefinition", false},
}

// ServeResources adds resources to what the cluster serves: discovery lists
// them (so a RESTMapper over it maps their kinds) and the dynamic client
// returns their objects with their kind. Objects of any resource can be
// stored; only served ones are discovered. Call it before handing out clients:
// client-go's fake discovery reads the list without a lock.
func (c *Cluster) ServeResources(rs ...Resource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		c.served[r.GVR] = r
	}
	byGV := map[schema.GroupVersion]*metav1.APIResourceList{}
	var lists []*metav1.APIResourceList
	add := func(r Resource) {
		gv := r.GVR.GroupVersion()
		l := byGV[gv]
		if l == nil {
			l = &metav1.APIResourceList{GroupVersion: gv.String()}
			byGV[gv] = l
			lists = append(lists, l)
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name: r.GVR.Resource, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: metav1.Verbs{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"},
		})
		if r.Kind == "Pod" {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get"}})
		}
	}
	// In the order they were first served, builtins first, as discovery's
	// order is stable on a real server.
	for _, r := range c.servedOrder(rs) {
		add(r)
	}
	c.clientset.Lock()
	c.clientset.Resources = lists
	c.clientset.Unlock()
}

// servedOrder returns every served resource, the builtins first, then the
// others in the order they were added. The caller holds c.mu.
func (c *Cluster) servedOrder(added []Resource) []Resource {
	for _, r := range added {
		if !containsGVR(c.servedSeq, r.GVR) {
			c.servedSeq = append(c.servedSeq, r.GVR)
		}
	}
	out := make([]Resource, 0, len(c.servedSeq))
	for _, gvr := range c.servedSeq {
		out = append(out, c.served[gvr])
	}
	return out
}

func containsGVR(list []schema.GroupVersionResource, gvr schema.GroupVersionResource) bool {
	for _, g := range list {
		if g == gvr {
			return true
		}
	}
	return false
}

// kindOf returns the kind gvr is served as, "" when it is not served.
func (c *Cluster) kindOf(gvr schema.GroupVersionResource) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.served[gvr].Kind
}

// reactDiscovery answers client-go's fake discovery, which asks the reaction
// chain before it reads the served list: counted as a GET, as discovery's
// requests are.
func (c *Cluster) reactDiscovery(k8stesting.Action) (bool, runtime.Object, error) {
	return true, nil, c.begin(VerbGet)
}

// logKey names one container's log: of its current run, or of the previous.
type logKey struct {
	ns, pod, container string
	previous           bool
}

// SetLog sets what the pods/log subresource returns for container of Pod ns/pod:
// the log of its current run, or of the previous one when previous is set.
// The Pod must exist when the log is asked for.
func (c *Cluster) SetLog(ns, pod, container string, previous bool, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs[logKey{ns, pod, container, previous}] = text
}

// podLog serves GET pods/log as the API server does: NotFound for a Pod that is
// not there, BadRequest when the container is not named and the Pod has several,
// or is not one of the Pod's, or when the previous run's log is asked for and
// there is none; then the end of the log, by TailLines and LimitBytes.
func (c *Cluster) podLog(ns, name string, opts *corev1.PodLogOptions) ([]byte, error) {
	o, err := c.store.get(corev1.SchemeGroupVersion.WithResource("pods"), ns, name)
	if err != nil {
		return nil, err
	}
	pod, ok := o.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("pod %s/%s is a %T", ns, name, o))
	}
	ctr := opts.Container
	var names []string
	for _, ct := range pod.Spec.Containers {
		names = append(names, ct.Name)
	}
	switch {
	case ctr == "" && len(names) == 1:
		ctr = names[0]
	case ctr == "":
		return nil, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", name, strings.Join(names, " ")))
	case !containsString(names, ctr):
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", ctr, name))
	}
	c.mu.Lock()
	text, ok := c.logs[logKey{ns, name, ctr, opts.Previous}]
	c.mu.Unlock()
	if !ok && opts.Previous {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", ctr, name))
	}
	b := []byte(text)
	if opts.TailLines != nil {
		b = tailLines(b, int(*opts.TailLines))
	}
	if opts.LimitBytes != nil && int64(len(b)) > *opts.LimitBytes {
		b = b[:*opts.LimitBytes]
	}
	return b, nil
}

// tailLines returns the last n lines of b.
func tailLines(b []byte, n int) []byte {
	if n < 0 {
		return b
	}
	if n == 0 {
		return nil
	}
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	i := end
	for k := 0; k < n; k++ {
		j := bytes.LastIndexByte(b[:i], '\n')
		if j < 0 {
			return b
		}
		i = j
		if k == n-1 {
			return b[j+1:]
		}
	}
	return b
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ResourceFor returns the served resource of kind gvk, false when the cluster
// does not serve it.
func (c *Cluster) ResourceFor(gvk schema.GroupVersionKind) (Resource, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.served {
		if r.GVR.GroupVersion() == gvk.GroupVersion() && r.Kind == gvk.Kind {
			return r, true
		}
	}
	return Resource{}, false
}
