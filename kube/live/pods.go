package live

import (
	"context"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/kube"
)

// workloadResources are the kinds whose Pods are looked for, by their
// resource: those whose controller selects its Pods by spec.selector.
var workloadResources = map[schema.GroupResource]bool{
	{Group: "apps", Resource: "deployments"}:  true,
	{Group: "apps", Resource: "statefulsets"}: true,
	{Group: "apps", Resource: "daemonsets"}:   true,
	{Group: "batch", Resource: "jobs"}:        true,
}

// workloadSelector is the selector of the Pods of live object obj of kind:
// its spec.selector, else for a Job the job-name label; nil with the reason
// when it has none that can be read.
func workloadSelector(kind string, obj map[string]any) (labels.Selector, string) {
	m, found, err := unstructured.NestedMap(obj, "spec", "selector")
	if err == nil && found {
		var ls metav1.LabelSelector
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err != nil {
			return nil, "its spec.selector cannot be read: " + err.Error()
		}
		sel, err := metav1.LabelSelectorAsSelector(&ls)
		if err != nil {
			return nil, "its spec.selector cannot be read: " + err.Error()
		}
		if sel.Empty() {
			return nil, "its spec.selector is empty, which would select every Pod of the namespace"
		}
		return sel, ""
	}
	if kind == "Job" {
		md, _ := obj["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		return labels.SelectorFromSet(labels.Set{batchv1.JobNameLabel: name}), ""
	}
	return nil, "it has no spec.selector"
}

// readPods lists the Pods behind each workload of the manifest that is in the
// cluster: one list per namespace and selector, of at most MaxWorkloadPods.
func (s *ReleaseStatus) readPods(ctx context.Context, cs kubernetes.Interface) error {
	s.Pods = []WorkloadPods{}
	for i, r := range s.Resources {
		o := s.objs[i]
		if o.target == nil || !workloadResources[o.target.mapping.Resource.GroupResource()] || r.Status == StatusNotFound || r.Status == StatusUnknown {
			continue
		}
		w := WorkloadPods{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Pods: []PodState{}}
		if o.selector == nil {
			w.Remark = "its Pods are not looked for: " + o.noSelector
		} else if err := listPods(ctx, cs, &w, o.selector, s.scrub); err != nil {
			return err
		}
		s.Pods = append(s.Pods, w)
	}
	return nil
}

// listPods fills w.Pods with the Pods sel selects in w's namespace, newest
// first, their messages scrubbed. A list it may not make is a remark.
func listPods(ctx context.Context, cs kubernetes.Interface, w *WorkloadPods, sel labels.Selector, scrub func(string) string) error {
	l, err := cs.CoreV1().Pods(w.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: MaxWorkloadPods})
	switch {
	case apierrors.IsForbidden(err):
		w.Remark = cannotThen("list", corev1.SchemeGroupVersion.WithResource("pods").GroupResource(), w.Namespace, "its Pods are not shown")
		return nil
	case err != nil:
		return kube.Explain(err, "list", "pods", w.Namespace)
	}
	items := l.Items
	if len(items) > MaxWorkloadPods {
		items = items[:MaxWorkloadPods]
	}
	if l.Continue != "" || len(l.Items) > MaxWorkloadPods {
		w.More = true
		w.Remark = fmt.Sprintf("it has more than %d Pods; the first %d listed are shown", MaxWorkloadPods, MaxWorkloadPods)
	}
	slices.SortStableFunc(items, func(a, b corev1.Pod) int {
		if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, p := range items {
		if ownedBy(p, w.Kind, w.Name) {
			w.Pods = append(w.Pods, podState(p, scrub))
		}
	}
	return nil
}

// ownedBy reports whether pod's controller is the workload kind/name (for a
// Deployment, one of its ReplicaSets, named NAME-HASH), as k9s keeps a
// workload's Pods: another workload's whose labels its selector also matches
// (a hook Job's Pods carrying the chart's labels) are not its. A Pod without
// a controller is kept, as kubectl get pods -l SELECTOR lists it.
func ownedBy(pod corev1.Pod, kind, name string) bool {
	ref := metav1.GetControllerOf(&pod)
	switch {
	case ref == nil:
		return true
	case kind == "Deployment":
		return ref.Kind == "ReplicaSet" && strings.HasPrefix(ref.Name, name+"-")
	}
	return ref.Kind == kind && ref.Name == name
}

// podWord is the Pod's state in one word, as kubectl get pods's STATUS
// column computes it: the reason of the init container that has not
// completed, else of the last container that waits or ended, else the phase;
// Terminating once it is being deleted.
func podWord(p corev1.Pod) string {
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	initializing := false
	for i, c := range p.Status.InitContainerStatuses {
		t, wt := c.State.Terminated, c.State.Waiting
		switch {
		case t != nil && t.ExitCode == 0:
			continue
		case t != nil && t.Reason != "":
			reason = "Init:" + t.Reason
		case t != nil:
			reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
		case wt != nil && wt.Reason != "" && wt.Reason != "PodInitializing":
			reason = "Init:" + wt.Reason
		case c.State.Running != nil && c.Started != nil && *c.Started:
			// A sidecar (an init container that keeps running) has started.
			continue
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(p.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing {
		running := false
		for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := p.Status.ContainerStatuses[i]
			switch t, wt := c.State.Terminated, c.State.Waiting; {
			case wt != nil && wt.Reason != "":
				reason = wt.Reason
			case t != nil && t.Reason != "":
				reason = t.Reason
			case t != nil && t.Signal != 0:
				reason = fmt.Sprintf("Signal:%d", t.Signal)
			case t != nil:
				reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
			case c.Ready && c.State.Running != nil:
				running = true
			}
		}
		if reason == "Completed" && running {
			reason = "Running"
		}
	}
	if p.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	return reason
}

// Failing reports whether the container is failing: waiting for another
// reason than starting (CrashLoopBackOff, ImagePullBackOff, Error, ...),
// ended with a non-zero exit code, or restarted.
func (c ContainerState) Failing() bool {
	switch {
	case c.State == "waiting" && c.Reason != "" && c.Reason != "ContainerCreating" && c.Reason != "PodInitializing":
		return true
	case c.ExitCode != nil && *c.ExitCode != 0:
		return true
	}
	return c.Restarts > 0
}

// Failing returns the Pod's failing containers, init containers first.
func (p PodState) Failing() []ContainerState {
	var out []ContainerState
	for _, c := range p.Containers {
		if c.Failing() {
			out = append(out, c)
		}
	}
	return out
}

// podState is what a Pod's status says of it and its containers, its messages
// scrubbed of the release's secrets (a termination message may quote one).
func podState(p corev1.Pod, scrub func(string) string) PodState {
	ps := PodState{Name: p.Name, Phase: string(p.Status.Phase), Reason: p.Status.Reason, Message: scrub(p.Status.Message),
		Status: podWord(p), Total: len(p.Spec.Containers), Node: p.Spec.NodeName, Created: p.CreationTimestamp.Time, Containers: []ContainerState{}}
	add := func(cs []corev1.ContainerStatus, init bool) {
		for _, s := range cs {
			c := ContainerState{Name: s.Name, Init: init, Ready: s.Ready, Restarts: s.RestartCount}
			if !init {
				ps.Restarts += s.RestartCount
				if s.Ready {
					ps.Ready++
				}
				if t := s.LastTerminationState.Terminated; t != nil && t.FinishedAt.After(ps.LastRestart) {
					ps.LastRestart = t.FinishedAt.Time
				}
			}
			switch {
			case s.State.Terminated != nil:
				t := s.State.Terminated
				c.State, c.Reason, c.Message = "terminated", t.Reason, scrub(strings.TrimSpace(t.Message))
				code := t.ExitCode
				c.ExitCode = &code
			case s.State.Running != nil:
				c.State = "running"
			case s.State.Waiting != nil:
				c.State, c.Reason, c.Message = "waiting", s.State.Waiting.Reason, scrub(s.State.Waiting.Message)
			default:
				c.State = "unknown"
			}
			if t := s.LastTerminationState.Terminated; t != nil {
				code := t.ExitCode
				c.LastExitCode, c.LastReason = &code, t.Reason
			}
			ps.Containers = append(ps.Containers, c)
		}
	}
	add(p.Status.InitContainerStatuses, true)
	add(p.Status.ContainerStatuses, false)
	return ps
}
