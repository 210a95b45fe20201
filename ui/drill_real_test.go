package ui

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/screens/pods"
)

// realPod creates Pod ns/name with labels, controlled by ReplicaSet rs, on
// node, then writes its status as a kubelet would (envtest runs none): its
// container "web" ready and running, or when crashing waiting in
// CrashLoopBackOff after restarts, its last run ended with exit code 1.
func realPod(t *testing.T, ns, name, rs string, labels map[string]string, node string, crashing bool, restarts int32) {
	t.Helper()
	ctx := t.Context()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("uid-" + rs), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
	pod, err := cluster.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	started := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	cs := corev1.ContainerStatus{Name: "web", Image: "nginx:1.27", Ready: true, RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}
	if crashing {
		cs.Ready = false
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: started, FinishedAt: metav1.NewTime(started.Add(time.Minute))}}
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started, ContainerStatuses: []corev1.ContainerStatus{cs}}
	if _, err := cluster.Client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestDrillOnRealServer: on a real API server, from the resources view of a
// release Helm installed, enter on its Deployment lists the Pods its selector
// selects and its ReplicaSet controls (not another controller's Pod carrying
// its labels, nor one of its ReplicaSet's names that it does not select); d
// describes the Pod; l on the Deployment opens the crashing container's log,
// which envtest cannot serve (no kubelet, the node does not exist): the view
// says so, in the CLI's words, instead of waiting.
func TestDrillOnRealServer(t *testing.T) {
	ns := cluster.Namespace(t)
	kc := kubetest.AdminKubeconfig(t, ns)
	drv := storage.NewDriver(cluster.Client.CoreV1().Secrets(ns), "helm", storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	hc := kubetest.HelmConfig(t, kc, ns, drv)
	if _, err := kubetest.InstallShop(t, hc, cluster.Client, ns, "shop", nil, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, ns, "shop", 1)
	app := map[string]string{"app": "shop"}
	realPod(t, ns, "shop-5c7b9-q2x8z", "shop-5c7b9", app, "envtest-node-2", true, 7)
	realPod(t, ns, "shop-5c7b9-m4k1r", "shop-5c7b9", app, "envtest-node-3", false, 0)
	realPod(t, ns, "other-8d2f1-zz9qq", "other-8d2f1", app, "envtest-node-3", true, 3)
	realPod(t, ns, "shop-5c7b9-aaaaa", "shop-5c7b9", map[string]string{"app": "shop-canary"}, "envtest-node-3", true, 2)
	client := kubetest.Connect(t, kc, []string{"-n", ns, "--driver", "chunked", "--chunk-size", "16384"}, nil)

	h := newHarness(t, client, Options{}, 160, 45)
	h.contains("shop")
	h.press("s")
	statusOf(t, h)
	for i := 0; i < 10 && !strings.Contains(h.screen(), "▶ Deployment"); i++ {
		h.press("down")
	}
	h.press("enter")
	if _, ok := h.top().(*pods.Screen); !ok {
		t.Fatalf("enter on the Deployment opened %T:\n%s", h.top(), h.screen())
	}
	h.contains("Deployment shop: 2 Pods, 1 failing", "shop-5c7b9-q2x8z", "shop-5c7b9-m4k1r", "CrashLoopBackOff", "envtest-node-2", "1 (Error)").
		lacks("other-8d2f1-zz9qq", "shop-5c7b9-aaaaa")
	h.press("d")
	h.contains("Owner: ReplicaSet/shop-5c7b9", "web: nginx:1.27", "no probes")
	h.press("esc", "esc", "l")
	if _, ok := h.top().(*pods.Log); !ok {
		t.Fatalf("l on the Deployment opened %T:\n%s", h.top(), h.screen())
	}
	flat := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"pod/shop-5c7b9-q2x8z/web", "the log of pod/shop-5c7b9-q2x8z/web is not available: node envtest-node-2, which ran the Pod, is gone"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the log view lacks %q:\n%s", want, h.screen())
		}
	}
}
