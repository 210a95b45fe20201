package cli_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
)

// envPod creates Pod ns/name with labels, controlled by ReplicaSet rs, on
// node, then writes its status as a kubelet would (envtest runs none): its
// container "web" ready and running, or when crashing waiting in
// CrashLoopBackOff after restarts, its last run ended with exit code 1.
func (e *env) envPod(name, rs string, labels map[string]string, node string, crashing bool, restarts int32) {
	e.t.Helper()
	ctx := e.t.Context()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("5c7b9-uid-" + rs), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
	pod, err := cluster.Client.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	started := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	cs := corev1.ContainerStatus{Name: "web", Image: "nginx:1.27", Ready: true, RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}
	if crashing {
		cs.Ready = false
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}}
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: started, FinishedAt: metav1.NewTime(started.Add(time.Minute))}}
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started, ContainerStatuses: []corev1.ContainerStatus{cs}}
	if _, err := cluster.Client.CoreV1().Pods(e.ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// TestStatusWidePodsAndLogs: status -o wide lists the Pods the Deployment's
// selector selects in its namespace and that its ReplicaSets control, with
// kubectl's READY, STATUS, RESTARTS and NODE, and how the crashing
// container's last run ended; not a Pod of another controller carrying the
// same labels, nor one of its ReplicaSet's names with other labels. logs
// picks the crashing container, and says clearly that its log cannot be read
// here (envtest runs no kubelet, the node does not exist): exit 1.
func TestStatusWidePodsAndLogs(t *testing.T) {
	e := newEnv(t)
	if err := e.installShop("shop", nil, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, e.ns, "shop", 1)
	app := map[string]string{"app": "shop"}
	e.envPod("shop-5c7b9-q2x8z", "shop-5c7b9", app, "envtest-node-2", true, 7)
	e.envPod("shop-5c7b9-m4k1r", "shop-5c7b9", app, "envtest-node-3", false, 0)
	e.envPod("other-8d2f1-zz9qq", "other-8d2f1", app, "envtest-node-3", true, 3)                                   // its labels, another's Pod
	e.envPod("shop-5c7b9-aaaaa", "shop-5c7b9", map[string]string{"app": "shop-canary"}, "envtest-node-3", true, 2) // not selected

	r := e.run("status", "shop", "-o", "wide")
	mustCode(t, r, cli.ExitNotCurrent)
	var rows []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.HasPrefix(f[0], "shop-") || strings.HasPrefix(f[0], "other-")) && len(f) >= 7 {
			rows = append(rows, line)
		}
	}
	if !strings.Contains(r.stdout, "Pods of Deployment shop: 2 Pods, 1 failing") || len(rows) != 2 {
		t.Fatalf("want the two Pods of the Deployment's ReplicaSet, got %q in:\n%s", rows, r.stdout)
	}
	for i, want := range [][]string{
		{"shop-5c7b9-m4k1r", "1/1", "Running", "0", "envtest-node-3", "-"},
		{"shop-5c7b9-q2x8z", "0/1", "CrashLoopBackOff", "7", "envtest-node-2", "1 (Error)"},
	} {
		// The newest first: m4k1r was created after q2x8z, or in the same second (then by name).
		row := rows[0]
		if strings.Contains(rows[1], want[0]) {
			row = rows[1]
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row %d lacks %q: %q", i, w, row)
			}
		}
	}

	r = e.run("logs", "shop")
	mustCode(t, r, cli.ExitFailure)
	flat := strings.Join(strings.Fields(r.stderr), " ")
	for _, want := range []string{
		"pod/shop-5c7b9-q2x8z/web: CrashLoopBackOff, 7 restarts, the last ended with exit code 1 (Error)",
		"--previous shows the run before the last restart",
		"Error: the log of pod/shop-5c7b9-q2x8z/web is not available: node envtest-node-2, which ran the Pod, is gone",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("want %q on stderr:\n%s", want, r)
		}
	}
	for _, not := range []string{"other-8d2f1-zz9qq", "shop-5c7b9-aaaaa", "shop-5c7b9-m4k1r"} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("logs picked %s, which is not a failing container of the release:\n%s", not, r)
		}
	}
	mustCode(t, e.run("logs", "shop", "pod/other-8d2f1-zz9qq"), cli.ExitNotFound)
	mustCode(t, e.run("logs", "nope"), cli.ExitNotFound)
	mustCode(t, e.run("logs", "shop", "configmap/shop-config"), cli.ExitUsage)
}
