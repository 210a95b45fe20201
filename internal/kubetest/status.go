package kubetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
)

// ShopChart is a chart built in code for the health tests: per app (.Values.apps,
// the first named after the release, the others NAME-2, NAME-3, ...) a
// Deployment of two replicas of .Values.image, a Service and a ConfigMap; then a ConfigMap of
// flags, a Secret holding .Values.password, .Values.extraConfigMaps more
// ConfigMaps, and a post-install/post-upgrade hook Job NAME-migrate whose
// container is given the password. Its objects number 3×apps + 2 +
// extraConfigMaps.
func ShopChart() *chart.Chart {
	tpl := func(name, body string) *chart.File { return &chart.File{Name: "templates/" + name, Data: []byte(body)} }
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "shop", Version: "1.0.0", AppVersion: "1.0", APIVersion: "v2"},
		Values:   map[string]interface{}{"apps": 1, "extraConfigMaps": 0, "image": "nginx:1.27", "password": ShopPassword},
		Templates: []*chart.File{
			tpl("apps.yaml", `{{- range $i := until (int .Values.apps) }}
{{- $name := $.Release.Name }}{{ if $i }}{{ $name = printf "%s-%d" $.Release.Name (add $i 1) }}{{ end }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ $name }}}
spec:
  replicas: 2
  selector: {matchLabels: {app: {{ $name }}}}
  template:
    metadata: {labels: {app: {{ $name }}}}
    spec:
      containers:
      - name: web
        image: {{ $.Values.image }}
---
apiVersion: v1
kind: Service
metadata: {name: {{ $name }}}
spec:
  selector: {app: {{ $name }}}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {{ $name }}-config}
data: {color: blue}
{{- end }}
`),
			tpl("shared.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-flags}
data: {checkout: "on"}
---
apiVersion: v1
kind: Secret
metadata: {name: {{ .Release.Name }}-db}
stringData: {password: {{ .Values.password | quote }}}
{{- range $i := until (int .Values.extraConfigMaps) }}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {{ $.Release.Name }}-extra-{{ $i }}}
data: {n: "{{ $i }}"}
{{- end }}
`),
			tpl("migrate.yaml", `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: post-install,post-upgrade
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: example.com/shop-migrate:1.0
        env: [{name: DB_PASSWORD, value: {{ .Values.password | quote }}}]
`),
		},
	}
}

// ShopPassword is the Secret value ShopChart's release holds.
const ShopPassword = "S3cr3t!Shop_DB#pw"

// HookOutcome is how FinishHookJob ends a hook Job.
type HookOutcome struct {
	// Fail ends it failed, its Pod's container exited 1 with Message as its
	// termination message; else it completes.
	Fail    bool
	Message string

	// replaces is the Job of the run before, which FinishHookJob waits past.
	replaces types.UID
}

// InstallShop installs ShopChart as release name with Helm's install action,
// finishing its hook Job as out says, as the job controller envtest lacks
// would (Helm waits for the Job). It returns the release Helm recorded and the
// error of the install: a failed hook fails it.
func InstallShop(t testing.TB, cfg *action.Configuration, cs kubernetes.Interface, ns, name string, vals map[string]interface{}, out HookOutcome) (*release.Release, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- FinishHookJob(ctx, cs, ns, name+"-migrate", out) }()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace, in.Timeout = name, ns, 60*time.Second
	rel, err := in.Run(ShopChart(), vals)
	if ferr := <-done; ferr != nil {
		t.Fatalf("finish the hook Job of %s: %v", name, ferr)
	}
	return rel, err
}

// HookNode is the node FinishHookJob's Pods ran on. No such Node exists: the
// node is gone, as after a scale-down, and so is its kubelet, which alone
// serves a container's log.
const HookNode = "envtest-node-1"

// UpgradeShop upgrades release name to ShopChart with vals, finishing the hook
// Job the upgrade creates as out says. The Job of the last run is replaced:
// Helm deletes it first (before-hook-creation).
func UpgradeShop(t testing.TB, cfg *action.Configuration, cs kubernetes.Interface, ns, name string, vals map[string]interface{}, out HookOutcome) (*release.Release, error) {
	t.Helper()
	if j, err := cs.BatchV1().Jobs(ns).Get(t.Context(), name+"-migrate", metav1.GetOptions{}); err == nil {
		out.replaces = j.UID
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- FinishHookJob(ctx, cs, ns, name+"-migrate", out) }()
	up := action.NewUpgrade(cfg)
	up.Namespace, up.Timeout = ns, 60*time.Second
	rel, err := up.Run(name, ShopChart(), vals)
	if ferr := <-done; ferr != nil {
		t.Fatalf("finish the hook Job of %s: %v", name, ferr)
	}
	return rel, err
}

// FinishHookJob waits for Job ns/name to be created (another than the one
// out replaces), then ends it as a job controller and a kubelet would: a Pod of
// the Job on HookNode, terminated (exit 0, or 1 with out.Message), then the
// Job's status Complete or Failed. The Pod of an earlier run goes first, as the
// garbage collector envtest lacks deletes it with its Job.
func FinishHookJob(ctx context.Context, cs kubernetes.Interface, ns, name string, out HookOutcome) error {
	var job *batchv1.Job
	for {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && j.UID != out.replaces {
			job = j
			break
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("job %s/%s never created: %w", ns, name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	now := metav1.Now()
	code, reason, phase := int32(0), "Completed", corev1.PodSucceeded
	if out.Fail {
		code, reason, phase = 1, "Error", corev1.PodFailed
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name + "-x7k2p", Namespace: ns, Labels: job.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}},
		},
		Spec: job.Spec.Template.Spec,
	}
	pod.Spec.NodeName = HookNode
	if err := cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	ctr := job.Spec.Template.Spec.Containers[0].Name
	pod.Status = corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{
		Name: ctr, Image: job.Spec.Template.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: out.Message, StartedAt: now, FinishedAt: now}},
	}}}
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return err
	}
	job.Status.StartTime = &now
	if out.Fail {
		job.Status.Failed = 1
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", LastTransitionTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
		}
	} else {
		job.Status.Succeeded, job.Status.CompletionTime = 1, &now
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
		}
	}
	_, err = cs.BatchV1().Jobs(ns).UpdateStatus(ctx, job, metav1.UpdateOptions{})
	return err
}

// SetDeploymentStatus writes Deployment ns/name's status as the deployment
// controller would with ready of its replicas ready and available: all of them
// makes it Available and done progressing (kstatus: Current).
func SetDeploymentStatus(t testing.TB, cs kubernetes.Interface, ns, name string, ready int32) {
	t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get Deployment %s/%s: %v", ns, name, err)
		}
		want := ptr.Deref(d.Spec.Replicas, 1)
		d.Status = deploymentStatus(d.Generation, want, ready)
		_, err = cs.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) && attempt < 5 {
			continue
		}
		if err != nil {
			t.Fatalf("update the status of Deployment %s/%s: %v", ns, name, err)
		}
		return
	}
}

func deploymentStatus(gen int64, want, ready int32) appsv1.DeploymentStatus {
	now := metav1.Now()
	st := appsv1.DeploymentStatus{
		ObservedGeneration: gen, Replicas: want, UpdatedReplicas: want, ReadyReplicas: ready, AvailableReplicas: ready,
		UnavailableReplicas: want - ready,
	}
	avail, progress := corev1.ConditionFalse, "ReplicaSetUpdated"
	if ready >= want {
		avail, progress = corev1.ConditionTrue, "NewReplicaSetAvailable"
	}
	st.Conditions = []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: avail, Reason: "MinimumReplicasAvailable", LastUpdateTime: now, LastTransitionTime: now},
		{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: progress, LastUpdateTime: now, LastTransitionTime: now},
	}
	return st
}

// WarningEvent records a Warning event about kind ns/name, as a controller or
// the kubelet would.
func WarningEvent(t testing.TB, cs kubernetes.Interface, ns, kind, name, reason, message string) {
	t.Helper()
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: name},
		Type:           corev1.EventTypeWarning, Reason: reason, Message: message, Count: 1,
		FirstTimestamp: now, LastTimestamp: now, Source: corev1.EventSource{Component: "kubelet"},
	}
	if _, err := cs.CoreV1().Events(ns).Create(context.Background(), ev, metav1.CreateOptions{}); err != nil {
		t.Fatalf("record event: %v", err)
	}
}
