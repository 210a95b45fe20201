package demo

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/revdiff"
)

// The live objects of the samples: what their deployed revision's manifest
// asks for, as a cluster would run it (each object with the status its
// controller would write, a Deployment's ReplicaSet and Pods), so that status,
// drift and the resources view have something to read. Without Intact, some
// have a story (see liveStories): a stuck rollout, a failed hook, a drift.

// liveWriter writes the live objects of one sample release.
type liveWriter struct {
	ctx context.Context
	c   *fakeapi.Cluster
	rel *release.Release
	now time.Time
}

// writeLive writes the live objects of sr's deployed revision (its latest
// deployed; none when no revision is deployed), and, unless intact, the story
// that belongs to the sample.
func writeLive(ctx context.Context, c *fakeapi.Cluster, sr *SampleRelease, now time.Time, intact bool) error {
	var rel *release.Release
	for i := len(sr.Revisions) - 1; i >= 0; i-- {
		if r := sr.Revisions[i]; r.Status == release.StatusDeployed && r.Release != nil {
			rel = r.Release
			break
		}
	}
	if rel == nil {
		return nil
	}
	w := &liveWriter{ctx: ctx, c: c, rel: rel, now: now}
	objs, err := parseObjects(rel.Manifest, rel)
	if err != nil {
		return fmt.Errorf("live objects of %s: %w", rel.Name, err)
	}
	story := liveStories[rel.Name]
	if intact {
		story = liveStory{}
	}
	for _, u := range objs {
		healthy(u)
		if story.edit != nil {
			story.edit(u)
		}
		created, err := w.create(u, rel.Info.LastDeployed.Time)
		if err != nil {
			return err
		}
		if u.GetKind() == "Deployment" && story.pods == nil {
			if err := w.deploymentPods(created, nil); err != nil {
				return err
			}
		}
		if u.GetKind() == "Deployment" && story.pods != nil {
			if err := story.pods(w, created); err != nil {
				return err
			}
		}
	}
	if story.extra != nil {
		if err := story.extra(w, sr); err != nil {
			return fmt.Errorf("live objects of %s: %w", rel.Name, err)
		}
	}
	return nil
}

// parseObjects parses manifest, rel's or one of its hooks', in its order, each
// object in the release's namespace unless it names one or is cluster-scoped,
// with the annotations Helm puts on what it creates.
func parseObjects(manifest string, rel *release.Release) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, r := range revdiff.ReleaseResources(manifest, rel.Namespace) {
		if r.Kind == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(r.Manifest))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Key, err)
		}
		obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, js)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Key, err)
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		u.SetNamespace(r.Namespace)
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a["meta.helm.sh/release-name"], a["meta.helm.sh/release-namespace"] = rel.Name, rel.Namespace
		u.SetAnnotations(a)
		out = append(out, u)
	}
	return out, nil
}

// create creates u through the dynamic client, as made at when; one that
// exists already (two releases naming one object) is kept as it is.
func (w *liveWriter) create(u *unstructured.Unstructured, when time.Time) (*unstructured.Unstructured, error) {
	r, ok := w.c.ResourceFor(u.GroupVersionKind())
	if !ok {
		return nil, fmt.Errorf("the demo cluster does not serve %s", u.GroupVersionKind())
	}
	ns := u.GetNamespace()
	if !r.Namespaced {
		ns = ""
	}
	restore := w.clock(when)
	defer restore()
	got, err := w.c.Dynamic().Resource(r.GVR).Namespace(ns).Create(w.ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return u, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create %s %s/%s: %w", u.GetKind(), ns, u.GetName(), err)
	}
	return got, nil
}

// clock makes the cluster's clock read when (the zero time: now) until the
// returned func is called.
func (w *liveWriter) clock(when time.Time) func() {
	if when.IsZero() {
		return func() {}
	}
	prev := w.c.Clock()
	w.c.SetClock(func() time.Time { return when })
	return func() { w.c.SetClock(prev) }
}

// healthy gives u the status its controller writes once it runs as asked:
// what kstatus reads as Current.
func healthy(u *unstructured.Unstructured) {
	u.SetGeneration(1)
	replicas, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	cond := func(typ, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "reason": reason, "message": msg}
	}
	var st map[string]any
	switch u.GetKind() {
	case "Deployment":
		st = map[string]any{
			"observedGeneration": int64(1), "replicas": replicas, "updatedReplicas": replicas,
			"readyReplicas": replicas, "availableReplicas": replicas,
			"conditions": []any{
				cond("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
				cond("Progressing", "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", u.GetName()+"-"+podHash(u.GetName(), 0))),
			},
		}
	case "StatefulSet":
		rev := u.GetName() + "-" + podHash(u.GetName(), 0)
		st = map[string]any{
			"observedGeneration": int64(1), "replicas": replicas, "readyReplicas": replicas, "currentReplicas": replicas,
			"updatedReplicas": replicas, "availableReplicas": replicas, "currentRevision": rev, "updateRevision": rev,
		}
	case "DaemonSet":
		st = map[string]any{
			"observedGeneration": int64(1), "desiredNumberScheduled": int64(2), "currentNumberScheduled": int64(2),
			"numberReady": int64(2), "numberAvailable": int64(2), "updatedNumberScheduled": int64(2),
		}
	case "CustomResourceDefinition":
		names, _, _ := unstructured.NestedMap(u.Object, "spec", "names")
		st = map[string]any{
			"acceptedNames": names,
			"conditions": []any{
				cond("NamesAccepted", "NoConflicts", "no conflicts found"),
				cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
			},
		}
	case "Job":
		st = map[string]any{"succeeded": int64(1), "conditions": []any{cond("Complete", "", "")}}
	case "Service":
		if t, _, _ := unstructured.NestedString(u.Object, "spec", "type"); t == "LoadBalancer" {
			st = map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.10"}}}}
		}
	}
	if st != nil {
		u.Object["status"] = st
	}
}

// podHash is the pod-template-hash of the n-th template of a Deployment named
// name: ten characters of the alphabet Kubernetes draws names from, stable
// across runs.
func podHash(name string, n int) string { return nameChars(fmt.Sprintf("%s#%d", name, n), 10) }

// nameChars returns n characters of Kubernetes' random-name alphabet drawn
// from seed, the same for the same seed.
func nameChars(seed string, n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	x := h.Sum64()
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[x%uint64(len(alphabet))]
		x /= uint64(len(alphabet))
		if x == 0 {
			h.Write([]byte{byte(i)})
			x = h.Sum64()
		}
	}
	return string(b)
}

// podSpec is one Pod a workload runs: which of its templates, and its state.
type podSpec struct {
	template int
	index    int
	image    string // "" keeps the template's
	// edit changes the running, ready Pod (a crash loop, say).
	edit func(*corev1.Pod)
}

// deploymentPods writes the ReplicaSet and Pods that Deployment d runs: pods,
// or when nil, spec.replicas ready Pods of its template.
func (w *liveWriter) deploymentPods(d *unstructured.Unstructured, pods []podSpec) error {
	var tpl corev1.PodTemplateSpec
	m, _, _ := unstructured.NestedMap(d.Object, "spec", "template")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tpl); err != nil {
		return fmt.Errorf("template of Deployment %s: %w", d.GetName(), err)
	}
	if pods == nil {
		replicas, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		if !found {
			replicas = 1
		}
		for i := range int(replicas) {
			pods = append(pods, podSpec{index: i})
		}
	}
	yes := true
	rsDone := map[int]bool{}
	for _, p := range pods {
		hash := podHash(d.GetName(), p.template)
		rsName := d.GetName() + "-" + hash
		rsUID := types.UID("rs-" + nameChars(rsName, 8))
		if !rsDone[p.template] {
			rsDone[p.template] = true
			if err := w.replicaSet(d, rsName, hash, tpl, pods, p.template); err != nil {
				return err
			}
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: rsName + "-" + nameChars(fmt.Sprintf("%s/%d", rsName, p.index), 5), Namespace: d.GetNamespace(),
				Labels:      mergeLabels(tpl.Labels, map[string]string{"pod-template-hash": hash}),
				Annotations: tpl.Annotations,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName, UID: rsUID,
					Controller: &yes, BlockOwnerDeletion: &yes}},
			},
			Spec: *tpl.Spec.DeepCopy(),
		}
		pod.Spec.NodeName = fmt.Sprintf("demo-node-%d", 1+p.index%3)
		if p.image != "" {
			for i := range pod.Spec.Containers {
				pod.Spec.Containers[i].Image = p.image
			}
		}
		running(pod, w.rel.Info.LastDeployed.Time)
		if p.edit != nil {
			p.edit(pod)
		}
		if err := w.pod(pod); err != nil {
			return err
		}
	}
	return nil
}

// replicaSet writes the ReplicaSet of template n of Deployment d, with as many
// ready replicas as pods run of it.
func (w *liveWriter) replicaSet(d *unstructured.Unstructured, name, hash string, tpl corev1.PodTemplateSpec, pods []podSpec, n int) error {
	var replicas, ready int64
	for _, p := range pods {
		if p.template == n {
			replicas++
			if p.edit == nil {
				ready++
			}
		}
	}
	yes := true
	rs := map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{
			"name": name, "namespace": d.GetNamespace(), "generation": int64(1),
			"labels": toAny(mergeLabels(tpl.Labels, map[string]string{"pod-template-hash": hash})),
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": d.GetName(),
				"uid": string(d.GetUID()), "controller": yes, "blockOwnerDeletion": yes}},
		},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": toAny(mergeLabels(tpl.Labels, map[string]string{"pod-template-hash": hash}))},
		},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": replicas, "readyReplicas": ready, "availableReplicas": ready, "fullyLabeledReplicas": replicas},
	}
	_, err := w.create(&unstructured.Unstructured{Object: rs}, w.rel.Info.LastDeployed.Time)
	return err
}

// running makes pod a Pod that runs and is ready, started at since.
func running(pod *corev1.Pod, since time.Time) {
	start := metav1.NewTime(since.Add(20 * time.Second))
	pod.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "10.0.0.11", PodIP: "10.244.1." + fmt.Sprint(10+len(pod.Name)%200), StartTime: &start,
		QOSClass: corev1.PodQOSBurstable,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: start},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: start},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start},
		},
	}
	for _, ct := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: ct.Name, Image: ct.Image, ImageID: ct.Image, Ready: true, Started: ptrBool(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
		})
	}
}

// pod creates pod, as made when it started, and gives each of its containers
// a short log of a healthy start unless one was set.
func (w *liveWriter) pod(pod *corev1.Pod) error {
	when := w.now
	if pod.Status.StartTime != nil {
		when = pod.Status.StartTime.Add(-20 * time.Second)
	}
	restore := w.clock(when)
	_, err := w.c.Clientset().CoreV1().Pods(pod.Namespace).Create(w.ctx, pod, metav1.CreateOptions{})
	restore()
	if err != nil {
		return fmt.Errorf("create Pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if pod.Status.Phase == corev1.PodRunning && pod.Status.ContainerStatuses[0].Ready {
		for _, ct := range pod.Spec.Containers {
			port := int32(8080)
			if len(ct.Ports) > 0 {
				port = ct.Ports[0].ContainerPort
			}
			w.c.SetLog(pod.Namespace, pod.Name, ct.Name, false, fmt.Sprintf(
				"{\"level\":\"info\",\"ts\":%q,\"msg\":\"starting %s\",\"image\":%q}\n{\"level\":\"info\",\"ts\":%q,\"msg\":\"listening\",\"port\":%d}\n{\"level\":\"info\",\"ts\":%q,\"msg\":\"ready\"}\n",
				when.UTC().Format(time.RFC3339), ct.Name, ct.Image, when.Add(time.Second).UTC().Format(time.RFC3339), port, when.Add(3*time.Second).UTC().Format(time.RFC3339)))
		}
	}
	return nil
}

// warning records a Warning event about obj (kind/name in ns), seen count
// times, first at first and last at last.
func (w *liveWriter) warning(ns, kind, name, reason, msg string, count int32, first, last time.Time) error {
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%s", name, nameChars(name+reason, 16)), Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: name, APIVersion: map[string]string{"Pod": "v1", "Job": "batch/v1", "Deployment": "apps/v1"}[kind]},
		Reason:         reason, Message: msg, Type: corev1.EventTypeWarning, Count: count,
		FirstTimestamp: metav1.NewTime(first), LastTimestamp: metav1.NewTime(last),
		Source: corev1.EventSource{Component: map[string]string{"Pod": "kubelet", "Job": "job-controller", "Deployment": "deployment-controller"}[kind]},
	}
	restore := w.clock(first)
	defer restore()
	if _, err := w.c.Clientset().CoreV1().Events(ns).Create(w.ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create Event %s/%s: %w", ns, ev.Name, err)
	}
	return nil
}

func mergeLabels(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func ptrBool(b bool) *bool { return &b }

// controllerResources are the controllers' resources the demo serves: Flux's
// HelmReleases and OLMv1's ClusterExtensions.
var controllerResources = []fakeapi.Resource{
	{GVR: schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}, Kind: "HelmRelease", Namespaced: true},
	{GVR: schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}, Kind: "ClusterExtension"},
}

// Live holds the samples' live objects back until they are first looked at
// (Start): making them (parsing every manifest, the CRDs of cert-manager
// among them) costs CPU that ls, verify, gc and completion never need. Give
// it to Seed or SeedInBackground in SeedOptions.Live. Safe for concurrent use.
type Live struct {
	mu      sync.Mutex
	started bool
	pending []func() error
}

// NewLive returns a Live that holds the objects back until Start.
func NewLive() *Live { return &Live{} }

// Start writes the live objects held back so far, and makes every sample
// written later write its own at once. Only the first call writes; it returns
// the first failure.
func (l *Live) Start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return nil
	}
	l.started = true
	for _, write := range l.pending {
		if err := write(); err != nil {
			return err
		}
	}
	l.pending = nil
	return nil
}

// add writes with write once Start was called, else keeps it for Start. A
// nil l writes at once.
func (l *Live) add(write func() error) error {
	if l == nil {
		return write()
	}
	l.mu.Lock()
	if !l.started {
		l.pending = append(l.pending, write)
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	return write()
}
