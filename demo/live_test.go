package demo

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// TestLiveHeldBack: with a Live, Seed writes the records and the controllers
// but no live object until Start, which writes them all; the crashing Pods of
// the stuck rollout then have what a logs view shows: restarts, the last
// run's exit, and a log of the current and the previous run, served by the
// pods/log subresource.
func TestLiveHeldBack(t *testing.T) {
	ctx := t.Context()
	c := fakeapi.NewCluster()
	live := NewLive()
	if _, err := Seed(ctx, c, SeedOptions{Only: []string{StuckRelease, "cert-manager"}, Live: live}); err != nil {
		t.Fatal(err)
	}
	deps, err := c.Clientset().AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil || len(deps.Items) != 0 {
		t.Fatalf("before Start: %d Deployments (%v), want none", len(deps.Items), err)
	}
	if got, err := c.Metadata().Resource(controllerResources[1].GVR).List(ctx, metav1.ListOptions{}); err != nil || len(got.Items) != 1 {
		t.Fatalf("the ClusterExtension of cert-manager is written with its records: %v, %v", got, err)
	}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	pods, err := c.Clientset().CoreV1().Pods("demo").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crashing := 0
	for _, p := range pods.Items {
		cs := p.Status.ContainerStatuses[0]
		if cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" {
			continue
		}
		crashing++
		if cs.RestartCount == 0 || cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
			t.Errorf("%s: restarts %d, last state %+v", p.Name, cs.RestartCount, cs.LastTerminationState)
		}
		for _, prev := range []bool{false, true} {
			b, err := c.Clientset().CoreV1().Pods("demo").GetLogs(p.Name, &corev1.PodLogOptions{Container: cs.Name, Previous: prev, TailLines: ptr.To[int64](1)}).DoRaw(ctx)
			if err != nil || !strings.Contains(string(b), `unknown directive "brotli"`) {
				t.Errorf("log of %s (previous %v): %q, %v", p.Name, prev, b, err)
			}
		}
	}
	if crashing != 2 || len(pods.Items) != 5 {
		t.Errorf("%d Pods, %d crashing; want 5 and 2", len(pods.Items), crashing)
	}
	crds, err := c.Metadata().Resource(fakeapiCRDs).List(ctx, metav1.ListOptions{})
	if err != nil || len(crds.Items) != 6 {
		t.Errorf("cert-manager's CRDs: %d, %v", len(crds.Items), err)
	}
}

var fakeapiCRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
