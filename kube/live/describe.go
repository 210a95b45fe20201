package live

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/kube"
)

// Description is what kubectl describe says first of a workload or a Pod:
// who owns it, how it is doing (its conditions), and what it runs (its
// containers' images and probes).
type Description struct {
	Kind      string
	Namespace string
	Name      string
	Created   time.Time
	// Owners name its owners as "Kind/name", the controller first.
	Owners     []string
	Conditions []Condition
	// Containers are those of its Pod template (of the Pod itself for a
	// Pod), init containers first.
	Containers []ContainerSpec
	// Node is the node that runs a Pod.
	Node string
}

// Condition is one of an object's status conditions.
type Condition struct {
	Type, Status, Reason, Message string
	LastTransition                time.Time
}

// ContainerSpec is one container as its spec says: the image it runs and how
// the kubelet probes it ("" when it has no such probe).
type ContainerSpec struct {
	Name                         string
	Init                         bool
	Image                        string
	Liveness, Readiness, Startup string
}

// DescribeKinds are the kinds Describe reads.
var DescribeKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "Job", "Pod"}

// Describe reads object kind ns/name, one of DescribeKinds, with one GET; the
// conditions' messages are masked by scrub. It returns kube.ErrNotFound when
// the object is not in the cluster.
func Describe(ctx context.Context, cs kubernetes.Interface, kind, ns, name string, scrub func(string) string) (*Description, error) {
	var (
		meta  metav1.ObjectMeta
		spec  corev1.PodSpec
		conds []Condition
		err   error
	)
	get := metav1.GetOptions{}
	switch kind {
	case "Deployment":
		o, e := cs.AppsV1().Deployments(ns).Get(ctx, name, get)
		if err = e; e == nil {
			meta, spec = o.ObjectMeta, o.Spec.Template.Spec
			for _, c := range o.Status.Conditions {
				conds = append(conds, Condition{string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time})
			}
		}
	case "StatefulSet":
		o, e := cs.AppsV1().StatefulSets(ns).Get(ctx, name, get)
		if err = e; e == nil {
			meta, spec = o.ObjectMeta, o.Spec.Template.Spec
			for _, c := range o.Status.Conditions {
				conds = append(conds, Condition{string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time})
			}
		}
	case "DaemonSet":
		o, e := cs.AppsV1().DaemonSets(ns).Get(ctx, name, get)
		if err = e; e == nil {
			meta, spec = o.ObjectMeta, o.Spec.Template.Spec
			for _, c := range o.Status.Conditions {
				conds = append(conds, Condition{string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time})
			}
		}
	case "Job":
		o, e := cs.BatchV1().Jobs(ns).Get(ctx, name, get)
		if err = e; e == nil {
			meta, spec = o.ObjectMeta, o.Spec.Template.Spec
			for _, c := range o.Status.Conditions {
				conds = append(conds, Condition{string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time})
			}
		}
	case "Pod":
		o, e := cs.CoreV1().Pods(ns).Get(ctx, name, get)
		if err = e; e == nil {
			meta, spec = o.ObjectMeta, o.Spec
			for _, c := range o.Status.Conditions {
				conds = append(conds, Condition{string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time})
			}
		}
	default:
		return nil, fmt.Errorf("%w: %s/%s: describe shows %s", ErrUnknownKind, kind, name, strings.Join(DescribeKinds, ", "))
	}
	if err != nil {
		return nil, kube.Explain(err, "get", strings.ToLower(kind)+"s", ns)
	}
	d := &Description{Kind: kind, Namespace: ns, Name: name, Created: meta.CreationTimestamp.Time, Node: spec.NodeName}
	for _, r := range meta.OwnerReferences {
		o := r.Kind + "/" + r.Name
		if r.Controller != nil && *r.Controller {
			d.Owners = append([]string{o}, d.Owners...)
			continue
		}
		d.Owners = append(d.Owners, o)
	}
	for _, c := range conds {
		c.Message = scrub(c.Message)
		d.Conditions = append(d.Conditions, c)
	}
	for i, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			d.Containers = append(d.Containers, ContainerSpec{Name: c.Name, Init: i == 0, Image: c.Image,
				Liveness: probeText(c.LivenessProbe), Readiness: probeText(c.ReadinessProbe), Startup: probeText(c.StartupProbe)})
		}
	}
	return d, nil
}

// probeText says what a probe checks and when, as kubectl describe does:
// "http-get http://:8080/healthz delay=5s timeout=1s period=10s #success=1
// #failure=3".
func probeText(p *corev1.Probe) string {
	if p == nil {
		return ""
	}
	var what string
	switch h := p.ProbeHandler; {
	case h.HTTPGet != nil:
		scheme := strings.ToLower(string(h.HTTPGet.Scheme))
		if scheme == "" {
			scheme = "http"
		}
		what = fmt.Sprintf("http-get %s://%s:%s%s", scheme, h.HTTPGet.Host, h.HTTPGet.Port.String(), h.HTTPGet.Path)
	case h.TCPSocket != nil:
		what = fmt.Sprintf("tcp-socket %s:%s", h.TCPSocket.Host, h.TCPSocket.Port.String())
	case h.Exec != nil:
		what = "exec [" + strings.Join(h.Exec.Command, " ") + "]"
	case h.GRPC != nil:
		what = fmt.Sprintf("grpc <pod>:%d", h.GRPC.Port)
	default:
		what = "unknown"
	}
	return fmt.Sprintf("%s delay=%ds timeout=%ds period=%ds #success=%d #failure=%d", what,
		p.InitialDelaySeconds, max(p.TimeoutSeconds, 1), max(p.PeriodSeconds, 10), max(p.SuccessThreshold, 1), max(p.FailureThreshold, 3))
}
