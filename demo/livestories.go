package demo

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// liveStory is what goes wrong in a sample's live objects.
type liveStory struct {
	// edit changes an object of the manifest before it is created.
	edit func(u *unstructured.Unstructured)
	// pods writes the ReplicaSets and Pods of a Deployment of the manifest.
	pods func(w *liveWriter, d *unstructured.Unstructured) error
	// extra writes objects beside the manifest's (a hook's Job and Pods).
	extra func(w *liveWriter, sr *SampleRelease) error
}

// liveStories are the samples whose live objects tell a story (the others run
// as their manifest asks):
//
//	demo/web-frontend     the rollout of 2.5.0 is stuck: its two new Pods crash
//	                      (CrashLoopBackOff, nginx refuses its config), the
//	                      Deployment InProgress, three old Pods still serving
//	payments/payments-api the migration hook of the pending upgrade to 2.0.0
//	                      failed (BackoffLimitExceeded): its Job Failed, three
//	                      failed Pods, the database password in their log
//	payments/fraud-model  its ConfigMap was edited by hand: THRESHOLD 0.70 live,
//	                      0.78 in the manifest (drift)
var liveStories = map[string]liveStory{
	"web-frontend": {edit: stuckRollout, pods: stuckRolloutPods},
	"payments-api": {extra: failedMigration},
	"fraud-model":  {edit: driftedThreshold},
}

// StuckRelease, FailedHookRelease and DriftedRelease are the samples of
// liveStories, for tests and the tour.
const (
	StuckRelease      = "web-frontend"
	FailedHookRelease = "payments-api"
	DriftedRelease    = "fraud-model"
)

// stuckRollout makes web-frontend's Deployment one whose rollout stopped: two
// Pods of the new template, neither ready, three of the old.
func stuckRollout(u *unstructured.Unstructured) {
	if u.GetKind() != "Deployment" {
		return
	}
	name := u.GetName()
	u.Object["status"] = map[string]any{
		"observedGeneration": int64(1), "replicas": int64(5), "updatedReplicas": int64(2),
		"readyReplicas": int64(3), "availableReplicas": int64(3), "unavailableReplicas": int64(2),
		"conditions": []any{
			map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
			map[string]any{"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
				"message": fmt.Sprintf("ReplicaSet %q is progressing.", name+"-"+podHash(name, 1))},
		},
	}
}

// crashLog is what web-frontend 2.5.0's nginx says before it exits.
const crashLog = `/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration
/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/
/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh
20-envsubst-on-templates.sh: Running envsubst on /etc/nginx/templates/default.conf.template to /etc/nginx/conf.d/default.conf
/docker-entrypoint.sh: Configuration complete; ready for start up
%s [emerg] 1#1: unknown directive "brotli" in /etc/nginx/conf.d/default.conf:14
nginx: [emerg] unknown directive "brotli" in /etc/nginx/conf.d/default.conf:14
`

// stuckRolloutPods writes web-frontend's Pods: three of 2.4.0 that serve, and
// two of 2.5.0 in CrashLoopBackOff since the upgrade, with their logs and the
// kubelet's BackOff events.
func stuckRolloutPods(w *liveWriter, d *unstructured.Unstructured) error {
	oldImage := ""
	if ctrs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers"); len(ctrs) > 0 {
		if img, _ := ctrs[0].(map[string]any)["image"].(string); img != "" {
			oldImage = img[:strings.LastIndex(img, ":")+1] + "2.4.0"
		}
	}
	var crashing []*corev1.Pod
	crash := func(restarts int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			crashLoop(p, w.now, restarts)
			crashing = append(crashing, p)
		}
	}
	pods := []podSpec{
		{template: 0, index: 0, image: oldImage}, {template: 0, index: 1, image: oldImage}, {template: 0, index: 2, image: oldImage},
		{template: 1, index: 0, edit: crash(1511)}, {template: 1, index: 1, edit: crash(1509)},
	}
	if err := w.deploymentPods(d, pods); err != nil {
		return err
	}
	for _, p := range crashing {
		ctr := p.Spec.Containers[0].Name
		last := p.Status.ContainerStatuses[0].LastTerminationState.Terminated
		w.c.SetLog(p.Namespace, p.Name, ctr, false, fmt.Sprintf(crashLog, last.StartedAt.UTC().Format("2006/01/02 15:04:05")))
		w.c.SetLog(p.Namespace, p.Name, ctr, true, fmt.Sprintf(crashLog, last.StartedAt.Add(-5*time.Minute).UTC().Format("2006/01/02 15:04:05")))
		msg := fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s", ctr, p.Name, p.Namespace)
		if err := w.warning(p.Namespace, "Pod", p.Name, "BackOff", msg, p.Status.ContainerStatuses[0].RestartCount*4, p.Status.StartTime.Time, last.FinishedAt.Add(40*time.Second)); err != nil {
			return err
		}
	}
	return nil
}

// crashLoop makes pod's first container one that exits at once and waits out
// its back-off, restarted restarts times, the last run ended a few minutes
// before now.
func crashLoop(pod *corev1.Pod, now time.Time, restarts int32) {
	ctr := pod.Spec.Containers[0].Name
	started := now.Add(-3*time.Minute - time.Duration(restarts%7)*time.Second)
	pod.Status.Conditions[2] = corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
		Message: fmt.Sprintf("containers with unready status: [%s]", ctr), LastTransitionTime: pod.Status.Conditions[2].LastTransitionTime}
	pod.Status.Conditions[3] = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
		Message: fmt.Sprintf("containers with unready status: [%s]", ctr), LastTransitionTime: pod.Status.Conditions[3].LastTransitionTime}
	cs := &pod.Status.ContainerStatuses[0]
	cs.Ready, cs.Started, cs.RestartCount = false, ptrBool(false), restarts
	cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off 5m0s restarting failed container=%s pod=%s_%s", ctr, pod.Name, pod.Namespace)}}
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 1, Reason: "Error", StartedAt: metav1.NewTime(started.UTC().Truncate(time.Second)),
		FinishedAt: metav1.NewTime(started.Add(time.Second).UTC().Truncate(time.Second)), ContainerID: "containerd://" + nameChars(pod.Name, 32),
	}}
}

// driftedThreshold makes fraud-model's ConfigMap one edited by hand after the
// upgrade: THRESHOLD lowered to 0.70.
func driftedThreshold(u *unstructured.Unstructured) {
	if u.GetKind() == "ConfigMap" && u.GetName() == "fraud-model" {
		_ = unstructured.SetNestedField(u.Object, "0.70", "data", "THRESHOLD")
	}
}

// migrationLog is what payments-api 2.0.0's migration says before it fails.
const migrationLog = `%[1]s INFO  migrate: connecting to postgres://payments_app:%[2]s@pg-payments.payments.svc:5432/payments?sslmode=require
%[1]s INFO  migrate: acquired advisory lock (timeout 60s)
%[1]s INFO  migrate: current version 41, target 42
%[1]s INFO  migrate: 0042_card_network_tokens.up.sql: applying
%[1]s ERROR migrate: 0042_card_network_tokens.up.sql: pq: column "network_token" of relation "cards" already exists
%[1]s ERROR migrate: database is dirty at version 42: fix it, then run "migrate force 41"
`

// jobUID is the uid the demo's failed migration Job's selector names.
const jobUID = "5e0c3b1a-9d7f-4c2e-8a61-2f4b7d9e0c13"

// failedMigration writes the Job of payments-api's pending upgrade's
// migration hook, failed after three attempts, its Pods and their logs.
func failedMigration(w *liveWriter, sr *SampleRelease) error {
	latest := sr.Latest().Release
	if latest == nil || latest.Info.Status != release.StatusPendingUpgrade {
		return nil
	}
	for _, h := range latest.Hooks {
		if h.Kind != "Job" {
			continue
		}
		objs, err := parseObjects(h.Manifest, latest)
		if err != nil || len(objs) != 1 {
			return fmt.Errorf("hook %s: %d objects, %v", h.Name, len(objs), err)
		}
		if err := w.failedJob(objs[0], latest, h.LastRun.StartedAt.Time); err != nil {
			return err
		}
	}
	return nil
}

// failedJob writes Job u, started at start, as one that failed its three
// attempts, with its Pods, their logs, and the controller's event.
func (w *liveWriter) failedJob(u *unstructured.Unstructured, rel *release.Release, start time.Time) error {
	sel := map[string]string{"batch.kubernetes.io/controller-uid": jobUID}
	_ = unstructured.SetNestedStringMap(u.Object, sel, "spec", "selector", "matchLabels")
	podLabels := mergeLabels(u.GetLabels(), map[string]string{"batch.kubernetes.io/controller-uid": jobUID, "controller-uid": jobUID,
		"batch.kubernetes.io/job-name": u.GetName(), "job-name": u.GetName()})
	tplLabels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
	podLabels = mergeLabels(tplLabels, podLabels)
	_ = unstructured.SetNestedStringMap(u.Object, podLabels, "spec", "template", "metadata", "labels")
	end := start.Add(75 * time.Second)
	u.SetGeneration(1)
	u.Object["status"] = map[string]any{
		"startTime": start.UTC().Format(time.RFC3339), "failed": int64(3), "ready": int64(0),
		"conditions": []any{
			map[string]any{"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit", "lastTransitionTime": end.UTC().Format(time.RFC3339)},
			map[string]any{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit", "lastTransitionTime": end.UTC().Format(time.RFC3339)},
		},
	}
	job, err := w.create(u, start)
	if err != nil {
		return err
	}
	var tpl corev1.PodTemplateSpec
	m, _, _ := unstructured.NestedMap(job.Object, "spec", "template")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tpl); err != nil {
		return fmt.Errorf("template of Job %s: %w", job.GetName(), err)
	}
	password := ""
	if db, ok := rel.Config["database"].(map[string]any); ok {
		password, _ = db["password"].(string)
	}
	yes := true
	for i, after := range []time.Duration{0, 12 * time.Second, 35 * time.Second} {
		t0 := start.Add(after)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: job.GetName() + "-" + nameChars(fmt.Sprintf("%s/%d", job.GetName(), i), 5), Namespace: job.GetNamespace(), Labels: podLabels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.GetName(), UID: job.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}},
			},
			Spec: *tpl.Spec.DeepCopy(),
		}
		pod.Spec.NodeName = fmt.Sprintf("demo-node-%d", 1+i%3)
		begun := metav1.NewTime(t0.Add(2 * time.Second).UTC().Truncate(time.Second))
		pod.Status = corev1.PodStatus{Phase: corev1.PodFailed, HostIP: "10.0.0.12", StartTime: &begun, QOSClass: corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodFailed", LastTransitionTime: begun}}}
		for _, ct := range pod.Spec.Containers {
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: ct.Name, Image: ct.Image, ImageID: ct.Image, Started: ptrBool(false),
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
					StartedAt: begun, FinishedAt: metav1.NewTime(begun.Add(4 * time.Second)), ContainerID: "containerd://" + nameChars(pod.Name, 32)}},
			})
		}
		if err := w.pod(pod); err != nil {
			return err
		}
		for _, ct := range pod.Spec.Containers {
			w.c.SetLog(pod.Namespace, pod.Name, ct.Name, false, fmt.Sprintf(migrationLog, begun.Add(time.Second).UTC().Format(time.RFC3339), password))
		}
	}
	return w.warning(job.GetNamespace(), "Job", job.GetName(), "BackoffLimitExceeded", "Job has reached the specified backoff limit", 1, end, end)
}

// writeControllers writes the controller that reconciles sample s, when one
// does: the ClusterExtension of an OLMv1 sample, and for ingress-nginx a Flux
// HelmRelease in flux-system (Flux's own layout: the release installed and
// stored in ingress). Not a story: the staging cluster has them too.
func writeControllers(w *liveWriter, s sample, sr *SampleRelease) error {
	latest := sr.Latest().Release
	if latest == nil || latest.Chart == nil || latest.Chart.Metadata == nil {
		return nil
	}
	version := latest.Chart.Metadata.Version
	var u *unstructured.Unstructured
	switch {
	case s.owner == OLMOwner:
		bundle := s.name + ".v" + version
		u = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
			"metadata": map[string]any{"name": s.name, "generation": int64(1)},
			"spec": map[string]any{
				"namespace": s.namespace, "serviceAccount": map[string]any{"name": s.name + "-installer"},
				"source": map[string]any{"sourceType": "Catalog", "catalog": map[string]any{
					"packageName": s.name, "version": version, "upgradeConstraintPolicy": "CatalogProvided"}},
			},
			"status": map[string]any{
				"conditions": []any{
					map[string]any{"type": "Installed", "status": "True", "reason": "Succeeded", "observedGeneration": int64(1),
						"message": fmt.Sprintf("Installed bundle %s successfully", bundle)},
					map[string]any{"type": "Progressing", "status": "True", "reason": "Succeeded", "observedGeneration": int64(1),
						"message": "Desired state reached"},
				},
				"install": map[string]any{"bundle": map[string]any{"name": bundle, "version": version}},
			},
		}}
	case s.name == IngressNginxRelease:
		if _, err := w.c.Clientset().CoreV1().Namespaces().Create(w.ctx, fakeapi.Namespace(FluxNamespace), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		u = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"name": s.name, "namespace": FluxNamespace, "generation": int64(1)},
			"spec": map[string]any{
				"interval": "10m", "releaseName": s.name, "targetNamespace": s.namespace, "storageNamespace": s.storageNamespace,
				"chart": map[string]any{"spec": map[string]any{"chart": latest.Chart.Metadata.Name, "version": version,
					"sourceRef": map[string]any{"kind": "HelmRepository", "name": "ingress-nginx", "namespace": FluxNamespace}}},
			},
			"status": map[string]any{
				"observedGeneration": int64(1), "lastAttemptedRevision": version, "storageNamespace": s.storageNamespace,
				"conditions": []any{
					map[string]any{"type": "Ready", "status": "True", "reason": "UpgradeSucceeded",
						"message": fmt.Sprintf("Helm upgrade succeeded for release %s/%s.v%d with chart %s@%s", s.namespace, s.name, latest.Version, latest.Chart.Metadata.Name, version)},
					map[string]any{"type": "Released", "status": "True", "reason": "UpgradeSucceeded",
						"message": fmt.Sprintf("Helm upgrade succeeded for release %s/%s.v%d with chart %s@%s", s.namespace, s.name, latest.Version, latest.Chart.Metadata.Name, version)},
				},
				"history": []any{map[string]any{"name": s.name, "namespace": s.namespace, "version": int64(latest.Version),
					"chartName": latest.Chart.Metadata.Name, "chartVersion": version, "appVersion": latest.Chart.Metadata.AppVersion, "status": "deployed"}},
			},
		}}
	default:
		return nil
	}
	_, err := w.create(u, latest.Info.LastDeployed.Time)
	return err
}

// FluxNamespace is where the demo's Flux HelmRelease lives, as Flux keeps them.
const FluxNamespace = "flux-system"

// ControlledRelease is the sample a Flux HelmRelease reconciles in the default
// demo.
const ControlledRelease = IngressNginxRelease
