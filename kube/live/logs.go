package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// ReleasePods are the Pods behind a release's workloads and hook Jobs, and
// what masks their logs: what `chunkview logs` picks from.
type ReleasePods struct {
	Release   string
	Namespace string
	Revision  int
	// Workloads are the workloads of the revision's manifest that are in the
	// cluster, then its hook Jobs and those of the latest revision (a failed
	// upgrade's) that are, each with its Pods.
	Workloads []WorkloadPods
	// Revealed is set when nothing is masked.
	Revealed bool
	scrub    func(string) string
}

// Scrub masks the secrets the release holds in s, unless Revealed.
func (p *ReleasePods) Scrub(s string) string { return p.scrub(s) }

// PodsOf reads the Pods of revision rev of the release whose history is rows
// (0: the revision status shows): those of each workload of its manifest (one
// GET per object, one list per workload), then those of the Job hooks of that
// revision and of the latest one (one GET and one list per Job in the
// cluster).
func PodsOf(ctx context.Context, c Source, rows []kube.RevisionRow, rev int, reveal bool) (*ReleasePods, error) {
	st, err := StatusOf(ctx, c, rows, rev, StatusOptions{Reveal: reveal, ObjectsOnly: true, Pods: true})
	if err != nil {
		return nil, err
	}
	out := &ReleasePods{Release: st.Release, Namespace: st.Namespace, Revision: st.Revision, Workloads: st.Pods, Revealed: reveal, scrub: st.scrub}
	seen := map[string]bool{}
	for _, w := range out.Workloads {
		seen[w.Kind+"/"+w.Namespace+"/"+w.Name] = true
	}
	var rels []*release.Release
	for _, row := range rows {
		if row.Revision != st.Revision && row.Revision != rows[len(rows)-1].Revision {
			continue
		}
		d, err := c.Details(ctx, row)
		if err != nil {
			return nil, err
		}
		if d.Release != nil {
			rels = append(rels, d.Release)
		}
	}
	for _, rel := range rels {
		for _, h := range rel.Hooks {
			if h == nil || h.Kind != "Job" {
				continue
			}
			ns := rel.Namespace
			if res := revdiff.ReleaseResources(h.Manifest, rel.Namespace); len(res) == 1 && res[0].Namespace != "" {
				ns = res[0].Namespace
			}
			if seen["Job/"+ns+"/"+h.Name] {
				continue
			}
			seen["Job/"+ns+"/"+h.Name] = true
			w, ok, err := hookPods(ctx, c.Clientset(), ns, h.Name, out.scrub)
			if err != nil {
				return nil, err
			}
			if ok {
				out.Workloads = append(out.Workloads, w)
			}
		}
	}
	return out, nil
}

// hookPods reads hook Job ns/name and its Pods; ok is false when the Job is
// not in the cluster (its delete policy removed it) or may not be read.
func hookPods(ctx context.Context, cs kubernetes.Interface, ns, name string, scrub func(string) string) (WorkloadPods, bool, error) {
	job, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		return WorkloadPods{}, false, nil
	case err != nil:
		return WorkloadPods{}, false, kube.Explain(err, "get", "jobs", ns)
	}
	w := WorkloadPods{Kind: "Job", Namespace: ns, Name: name, Hook: true, Pods: []PodState{}}
	sel, err := jobSelector(job)
	if err != nil {
		w.Remark = "its Pods are not looked for: " + err.Error()
		return w, true, nil
	}
	return w, true, listPods(ctx, cs, &w, sel, scrub)
}

// LogTarget is one container whose log is shown.
type LogTarget struct {
	Namespace string
	Pod       string
	Container string
	// Node is the node that ran the Pod, "" when it was never scheduled.
	Node string
	// Why says how the container fails, for a container picked as failing:
	// "CrashLoopBackOff, 1511 restarts, the last ended with exit code 1".
	Why string
	// Restarts counts its restarts: its previous run has a log too.
	Restarts int32
}

// Name names the container as kubectl logs --prefix does: pod/POD/CONTAINER.
func (t LogTarget) Name() string { return "pod/" + t.Pod + "/" + t.Container }

// MaxFailingLogs bounds the containers Failing picks.
const MaxFailingLogs = 10

// Failing returns the failing containers of every Pod of the release (see
// ContainerState.Failing), newest Pods first within each workload, at most
// MaxFailingLogs; more counts those left out.
func (p *ReleasePods) Failing() (targets []LogTarget, more int) {
	for _, w := range p.Workloads {
		for _, pod := range w.Pods {
			for _, c := range pod.Failing() {
				if len(targets) == MaxFailingLogs {
					more++
					continue
				}
				targets = append(targets, LogTarget{Namespace: w.Namespace, Pod: pod.Name, Container: c.Name, Node: pod.Node, Why: failingWhy(c), Restarts: c.Restarts})
			}
		}
	}
	return targets, more
}

// failingWhy says in a few words how container c fails.
func failingWhy(c ContainerState) string {
	var parts []string
	if c.Reason != "" {
		parts = append(parts, c.Reason)
	} else {
		parts = append(parts, c.State)
	}
	if c.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit code %d", *c.ExitCode))
	}
	if c.Restarts > 0 {
		s := human.Plural(int(c.Restarts), "restart", "restarts")
		if c.LastExitCode != nil {
			s += fmt.Sprintf(", the last ended with exit code %d", *c.LastExitCode)
			if c.LastReason != "" {
				s += " (" + c.LastReason + ")"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Select returns the containers of the object kind/name names, one of the
// release's workloads or one of their Pods (kind as kubectl takes it: pod,
// po, deployment, deploy, statefulset, sts, daemonset, ds, job); container
// picks one container of each Pod, "" every one. It returns kube.ErrNotFound
// when the release has no such object, or no such container.
func (p *ReleasePods) Select(kind, name, container string) ([]LogTarget, error) {
	k, ok := logKinds[strings.ToLower(kind)]
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a kind whose logs can be shown: name a pod, deployment, statefulset, daemonset or job", ErrUnknownKind, kind)
	}
	var pods []PodState
	var ns string
	found := false
	for _, w := range p.Workloads {
		switch {
		case k == "Pod":
			for _, pod := range w.Pods {
				if pod.Name == name {
					pods, ns, found = append(pods, pod), w.Namespace, true
				}
			}
		case w.Kind == k && w.Name == name:
			pods, ns, found = w.Pods, w.Namespace, true
		}
		if found {
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: %s/%s is not among the workloads of release %q revision %d, nor their Pods (%s)", kube.ErrNotFound, strings.ToLower(k), name, p.Release, p.Revision, p.names())
	}
	var out []LogTarget
	for _, pod := range pods {
		for _, c := range pod.Containers {
			if container == "" || c.Name == container {
				out = append(out, LogTarget{Namespace: ns, Pod: pod.Name, Container: c.Name, Node: pod.Node, Restarts: c.Restarts})
			}
		}
	}
	if len(out) == 0 && container != "" {
		return nil, fmt.Errorf("%w: no Pod of %s/%s has a container %q", kube.ErrNotFound, strings.ToLower(k), name, container)
	}
	return out, nil
}

// names lists the release's workloads, for a message.
func (p *ReleasePods) names() string {
	if len(p.Workloads) == 0 {
		return "it has none in the cluster"
	}
	var s []string
	for _, w := range p.Workloads {
		s = append(s, strings.ToLower(w.Kind)+"/"+w.Name)
	}
	return "it has " + strings.Join(s, ", ")
}

// ErrUnknownKind is Select's error for a kind that has no Pods to show.
var ErrUnknownKind = errors.New("unknown kind")

// logKinds are the kinds Select takes, by the names kubectl takes them.
var logKinds = map[string]string{
	"pod": "Pod", "pods": "Pod", "po": "Pod",
	"deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
	"statefulset": "StatefulSet", "statefulsets": "StatefulSet", "sts": "StatefulSet",
	"daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
	"job": "Job", "jobs": "Job",
}

// LogOptions say which log Stream reads, as kubectl logs's flags do.
type LogOptions struct {
	Previous bool
	Follow   bool
	// Tail is how many lines of the end of each log; negative: all.
	Tail int64
	// Prefix starts each line with the container's name (LogTarget.Name).
	Prefix bool
}

// LogError is the failure to read one container's log.
type LogError struct {
	Target LogTarget
	// Reason says why, in a line: the node gone, no right to pods/log, ...
	Reason string
	Err    error
}

func (e *LogError) Error() string {
	return fmt.Sprintf("the log of %s is not available: %s", e.Target.Name(), e.Reason)
}

func (e *LogError) Unwrap() error { return e.Err }

// Stream writes the logs of targets to w, each line masked by scrub: one
// after the other, or with Follow all at once, line by line, until ctx ends.
// A log that cannot be read is a *LogError among the errors it joins; the
// others are still written.
func Stream(ctx context.Context, cs kubernetes.Interface, targets []LogTarget, opts LogOptions, scrub func(string) string, w io.Writer) error {
	var mu sync.Mutex
	one := func(t LogTarget) error {
		prefix := ""
		if opts.Prefix {
			prefix = "[" + t.Name() + "] "
		}
		return streamOne(ctx, cs, t, opts, func(line string) error {
			mu.Lock()
			defer mu.Unlock()
			_, err := io.WriteString(w, prefix+scrub(line)+"\n")
			return err
		})
	}
	if !opts.Follow || len(targets) == 1 {
		var errs []error
		for _, t := range targets {
			errs = append(errs, one(t))
		}
		return errors.Join(errs...)
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = one(t)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// streamOne reads one container's log and hands each of its lines to line.
func streamOne(ctx context.Context, cs kubernetes.Interface, t LogTarget, opts LogOptions, line func(string) error) error {
	po := &corev1.PodLogOptions{Container: t.Container, Previous: opts.Previous, Follow: opts.Follow}
	if opts.Tail >= 0 {
		po.TailLines = &opts.Tail
	}
	rc, err := cs.CoreV1().Pods(t.Namespace).GetLogs(t.Pod, po).Stream(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		var se apierrors.APIStatus
		if !errors.As(err, &se) {
			// Not the server's answer: the connection failed.
			return kube.Explain(err, "get", "pods/log", t.Namespace)
		}
		reason := logUnavailable(err, t.Pod, t.Node)
		if t.Node == "" {
			reason = "the Pod was never scheduled to a node, so no kubelet holds a log of it"
		}
		if opts.Previous && apierrors.IsBadRequest(err) {
			reason = "it has no previous run: " + human.FirstLine(se.Status().Message, 200)
		}
		return &LogError{Target: t, Reason: reason, Err: err}
	}
	defer rc.Close()
	r := bufio.NewReader(rc)
	for {
		s, err := r.ReadString('\n')
		if s != "" {
			if werr := line(strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")); werr != nil {
				return werr
			}
		}
		switch {
		case err == io.EOF, err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			return kube.Explain(err, "get", "pods/log", t.Namespace)
		}
	}
}
