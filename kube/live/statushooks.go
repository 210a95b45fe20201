package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// maxLogBytes bounds what one log read fetches, whatever its lines' length.
const maxLogBytes = 64 << 10

// podLogs reads logs through the API server's pods/log subresource, which asks
// the node's kubelet.
type podLogs struct{ cs kubernetes.Interface }

func (p podLogs) TailLog(ctx context.Context, ns, pod, container string, previous bool, lines int) (string, error) {
	n, limit := int64(lines), int64(maxLogBytes)
	b, err := p.cs.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Previous: previous, TailLines: &n, LimitBytes: &limit}).DoRaw(ctx)
	if err != nil {
		// client-go words a failed log request after the request; the body
		// says what failed (the node, the kubelet).
		var st metav1.Status
		if json.Unmarshal(b, &st) == nil && st.Kind == "Status" {
			return "", apierrors.FromObject(&st)
		}
		return "", err
	}
	return string(b), nil
}

// readHooks fills st.Hooks from the release's hooks and, for a Job hook whose
// last run failed or is still running, from the cluster.
func readHooks(ctx context.Context, c Source, st *ReleaseStatus, rel *release.Release, opts StatusOptions) error {
	for _, h := range rel.Hooks {
		if h == nil {
			continue
		}
		hs := HookStatus{Kind: h.Kind, Name: h.Name, Namespace: rel.Namespace, Phase: string(h.LastRun.Phase),
			Started: h.LastRun.StartedAt.Time, Completed: h.LastRun.CompletedAt.Time, Events: []string{}}
		if res := revdiff.ReleaseResources(h.Manifest, rel.Namespace); len(res) == 1 && res[0].Namespace != "" {
			hs.Namespace = res[0].Namespace
		}
		for _, e := range h.Events {
			hs.Events = append(hs.Events, string(e))
		}
		for _, p := range h.DeletePolicies {
			hs.DeletePolicies = append(hs.DeletePolicies, string(p))
		}
		if h.Kind == "Job" && (h.LastRun.Phase == release.HookPhaseFailed || h.LastRun.Phase == release.HookPhaseRunning) {
			j, err := hookJob(ctx, c, st, hs, opts)
			if err != nil {
				return err
			}
			hs.Job = j
		}
		st.Hooks = append(st.Hooks, hs)
	}
	return nil
}

var jobsGR = schema.GroupResource{Group: "batch", Resource: "jobs"}

// hookJob reads a hook Job, its Pods and the end of the failed container's log.
func hookJob(ctx context.Context, c Source, st *ReleaseStatus, h HookStatus, opts StatusOptions) (*HookJob, error) {
	out := &HookJob{Pods: []PodState{}}
	job, err := c.Clientset().BatchV1().Jobs(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		out.Status, out.Message = StatusNotFound, "the Job is gone: deleted by its hook-delete-policy, or by hand"
		return out, nil
	case apierrors.IsForbidden(err):
		out.Status, out.Message = StatusUnknown, cannotThen("get", jobsGR, h.Namespace, "its state is unknown")
		return out, nil
	case err != nil:
		return nil, kube.Explain(err, "get", "jobs", h.Namespace)
	}
	job.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(job)
	if err != nil {
		return nil, fmt.Errorf("status of hook Job %s/%s: %w", h.Namespace, h.Name, err)
	}
	out.Status, out.Message = judge(obj)
	st.wantPods(h.Namespace, job)
	sel, err := jobSelector(job)
	if err != nil {
		out.Remarks = append(out.Remarks, "its Pods are not looked for: "+err.Error())
		return out, nil
	}
	pods, err := c.Clientset().CoreV1().Pods(h.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	switch {
	case apierrors.IsForbidden(err):
		out.Remarks = append(out.Remarks, cannotThen("list", corev1.SchemeGroupVersion.WithResource("pods").GroupResource(), h.Namespace, "its Pods are not shown"))
		return out, nil
	case err != nil:
		return nil, kube.Explain(err, "list", "pods", h.Namespace)
	}
	items := pods.Items
	// Newest first: the last attempt is the one to read.
	slices.SortStableFunc(items, func(a, b corev1.Pod) int { return b.CreationTimestamp.Compare(a.CreationTimestamp.Time) })
	for _, p := range items {
		out.Pods = append(out.Pods, podState(p, st.scrub))
	}
	if opts.LogLines < 0 {
		return out, nil
	}
	pod, ctr, previous, ok := failedContainer(out.Pods)
	if !ok {
		return out, nil
	}
	node := ""
	for _, p := range items {
		if p.Name == pod {
			node = p.Spec.NodeName
		}
	}
	logs := opts.Logs
	if logs == nil {
		logs = podLogs{c.Clientset()}
	}
	out.Log = tailLog(ctx, logs, h.Namespace, pod, node, ctr, previous, cmp0(opts.LogLines, DefaultLogLines), st)
	return out, nil
}

// cmp0 returns n, or def when n is zero.
func cmp0(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// jobSelector returns the selector of a Job's Pods: its own, which the API
// server sets from the Job's uid, else the job-name label.
func jobSelector(job *batchv1.Job) (labels.Selector, error) {
	if job.Spec.Selector != nil {
		return metav1.LabelSelectorAsSelector(job.Spec.Selector)
	}
	return labels.SelectorFromSet(labels.Set{batchv1.JobNameLabel: job.Name}), nil
}

// failedContainer returns the first container that failed, in the newest Pod
// that has one.
func failedContainer(pods []PodState) (pod, container string, previous, ok bool) {
	for _, p := range pods {
		for _, c := range p.Containers {
			if failed, prev := c.Failed(); failed {
				return p.Name, c.Name, prev, true
			}
		}
	}
	return "", "", false, false
}

// tailLog reads the last lines of a container's log and masks them.
func tailLog(ctx context.Context, logs LogSource, ns, pod, node, container string, previous bool, lines int, st *ReleaseStatus) *ContainerLog {
	l := &ContainerLog{Pod: pod, Container: container, Previous: previous, Lines: []string{}, Masked: !st.Revealed}
	if node == "" {
		l.Unavailable = "the Pod was never scheduled to a node, so no kubelet holds a log of it"
		return l
	}
	text, err := logs.TailLog(ctx, ns, pod, container, previous, lines)
	if err != nil {
		l.Unavailable = logUnavailable(err, pod, node)
		return l
	}
	all := strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	if len(all) == 1 && all[0] == "" {
		all = nil
	}
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	for _, line := range all {
		l.Lines = append(l.Lines, st.scrub(line))
	}
	return l
}

// logUnavailable says, in a line, why the log of a container of pod could not
// be read.
func logUnavailable(err error, pod, node string) string {
	var se apierrors.APIStatus
	switch {
	case apierrors.IsForbidden(err):
		return "your credentials may not get pods/log (check: kubectl auth can-i get pods --subresource=log)"
	case apierrors.IsNotFound(err) && errors.As(err, &se) && se.Status().Details != nil && se.Status().Details.Name == node:
		// The API server asks the node's kubelet; it says "pods NODE not found"
		// when the node is gone.
		return fmt.Sprintf("node %s, which ran the Pod, is gone, and its log with it", node)
	case apierrors.IsNotFound(err):
		return "the Pod is gone, and its log with it"
	case errors.As(err, &se) && se.Status().Message != "":
		return "the API server could not fetch it from node " + node + ": " + human.FirstLine(se.Status().Message, 200)
	}
	return "the API server could not fetch it from node " + node + ": " + human.FirstLine(err.Error(), 200)
}
