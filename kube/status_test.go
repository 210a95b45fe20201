package kube_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// shopPassword is the Secret value ShopChart's release holds: what must never
// show unmasked in a log, a message or an event.
const shopPassword = kubetest.ShopPassword

// installShop installs ShopChart as release name in a fresh namespace with
// Helm's install action, through chunkview's driver, and returns the namespace,
// a connection that reaches it (counting its requests in stats, when set) and
// the install's error.
func installShop(t *testing.T, name string, vals map[string]interface{}, out kubetest.HookOutcome, stats *kube.Stats) (string, *kube.Client, error) {
	t.Helper()
	ns := cluster.Namespace(t)
	kc := adminKubeconfig(t, ns)
	cfg := helmConfig(t, kc, ns, chunkviewDriver(ns, storage.HelmOwner, 16<<10))
	_, err := kubetest.InstallShop(t, cfg, cluster.Client, ns, name, vals, out)
	c := connect(t, kc, []string{"-n", ns}, func(o *kube.Options) { o.Stats = stats })
	return ns, c, err
}

// statusLines renders the objects as "Kind/name Status: message", in order.
func statusLines(st *live.ReleaseStatus) []string {
	var out []string
	for _, r := range st.Resources {
		out = append(out, fmt.Sprintf("%s/%s %s: %s", r.Kind, r.Name, r.Status, r.Message))
	}
	return out
}

func mustStatus(t *testing.T, c *kube.Client, ns, name string, opts live.StatusOptions) *live.ReleaseStatus {
	t.Helper()
	st, err := live.Status(t.Context(), c, ns, name, 0, opts)
	if err != nil {
		t.Fatalf("Status %s: %v", name, err)
	}
	return st
}

func wantLines(t *testing.T, st *live.ReleaseStatus, want ...string) {
	t.Helper()
	if got := statusLines(st); !slices.Equal(got, want) {
		t.Fatalf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStatusBecomesReady: a release Helm installed is InProgress until its
// Deployment's status says its replicas are up (set here as the deployment
// controller would: envtest runs none), then Current; a deleted Service is
// NotFound. The messages are kstatus's own.
func TestStatusBecomesReady(t *testing.T) {
	ns, c, err := installShop(t, "shop", nil, kubetest.HookOutcome{}, nil)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	st := mustStatus(t, c, ns, "shop", live.StatusOptions{})
	if st.Revision != 1 || st.ReleaseStatus != "deployed" || st.Store != kube.DriverChunked || st.Namespace != ns {
		t.Fatalf("status of revision %d (%s) in store %s, namespace %s", st.Revision, st.ReleaseStatus, st.Store, st.Namespace)
	}
	always := "Resource is always ready"
	wantLines(t, st,
		"ConfigMap/shop-config Current: "+always,
		"ConfigMap/shop-flags Current: "+always,
		"Deployment/shop InProgress: Replicas: 0/2",
		"Secret/shop-db Current: "+always,
		"Service/shop Current: Service is ready",
	)
	if st.Ready() || st.Summary() != "4 of 5 Current (1 InProgress)" {
		t.Errorf("ready %v, summary %q", st.Ready(), st.Summary())
	}
	// The hook ran once, at install, and succeeded: Helm's record says so, and
	// its Job is not read.
	if len(st.Hooks) != 1 {
		t.Fatalf("hooks: %+v", st.Hooks)
	}
	h := st.Hooks[0]
	if h.Kind != "Job" || h.Name != "shop-migrate" || h.Phase != "Succeeded" || !slices.Equal(h.Events, []string{"post-install", "post-upgrade"}) ||
		h.Started.IsZero() || h.Completed.Before(h.Started) || h.Job != nil {
		t.Errorf("hook: %+v", h)
	}

	kubetest.SetDeploymentStatus(t, cluster.Client, ns, "shop", 1)
	st = mustStatus(t, c, ns, "shop", live.StatusOptions{})
	if r := st.Resources[2]; r.Status != live.StatusInProgress || r.Message != "Available: 1/2" {
		t.Errorf("one replica of two available: %+v", r)
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, ns, "shop", 2)
	st = mustStatus(t, c, ns, "shop", live.StatusOptions{})
	if r := st.Resources[2]; r.Status != live.StatusCurrent || r.Message != "Deployment is available. Replicas: 2" || !st.Ready() {
		t.Errorf("both available: %+v, ready %v", r, st.Ready())
	}

	if err := cluster.Client.CoreV1().Services(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	st = mustStatus(t, c, ns, "shop", live.StatusOptions{})
	if r := st.Resources[4]; r.Status != live.StatusNotFound || r.Key() != "Service/"+ns+"/shop" || st.Ready() {
		t.Errorf("deleted Service: %+v", r)
	}
}

// fakeLogs is a log source with a fixed log, for what envtest cannot serve:
// pods/log needs a kubelet, and envtest has none.
type fakeLogs struct {
	log  string
	asks []string
}

func (f *fakeLogs) TailLog(_ context.Context, ns, pod, container string, previous bool, lines int) (string, error) {
	f.asks = append(f.asks, fmt.Sprintf("%s/%s/%s previous=%v lines=%d", ns, pod, container, previous, lines))
	return f.log, nil
}

// TestStatusFailedHook: a hook Job that fails fails Helm's install; status then
// shows the failed revision (none is deployed), the hook's last run, the Job's
// kstatus, its Pod's container terminated with its message, masked, and says why
// the log cannot be read here (no kubelet). The log's tail, read from a fake
// source, is cut to the last lines and masked of the release's secrets.
func TestStatusFailedHook(t *testing.T) {
	msg := "migration 0042 failed: password " + shopPassword + " rejected"
	ns, c, err := installShop(t, "shop", nil, kubetest.HookOutcome{Fail: true, Message: msg}, nil)
	if err == nil || !strings.Contains(err.Error(), "shop-migrate failed") {
		t.Fatalf("install with a failing hook: %v", err)
	}
	st := mustStatus(t, c, ns, "shop", live.StatusOptions{})
	if st.Revision != 1 || st.ReleaseStatus != "failed" || len(st.Remarks) != 1 || !strings.Contains(st.Remarks[0], "no revision of \"shop\" is deployed") {
		t.Fatalf("revision %d (%s), remarks %q", st.Revision, st.ReleaseStatus, st.Remarks)
	}
	if len(st.Hooks) != 1 || st.Hooks[0].Phase != "Failed" || st.Hooks[0].Job == nil {
		t.Fatalf("hooks: %+v", st.Hooks)
	}
	j := st.Hooks[0].Job
	if j.Status != live.StatusFailed || j.Message != "Job Failed. failed: 1/1" || len(j.Pods) != 1 {
		t.Fatalf("hook Job: %+v", j)
	}
	p := j.Pods[0]
	if p.Name != "shop-migrate-x7k2p" || p.Phase != "Failed" || len(p.Containers) != 1 {
		t.Fatalf("hook Pod: %+v", p)
	}
	ctr := p.Containers[0]
	if ctr.Name != "migrate" || ctr.State != "terminated" || ctr.Reason != "Error" || ctr.ExitCode == nil || *ctr.ExitCode != 1 {
		t.Errorf("container: %+v", ctr)
	}
	if strings.Contains(ctr.Message, shopPassword) || !strings.Contains(ctr.Message, "migration 0042 failed: password "+revdiff.MaskPrefix) {
		t.Errorf("termination message not masked: %q", ctr.Message)
	}
	if j.Log == nil || j.Log.Pod != p.Name || j.Log.Container != "migrate" || len(j.Log.Lines) != 0 ||
		j.Log.Unavailable != "node "+kubetest.HookNode+", which ran the Pod, is gone, and its log with it" {
		t.Errorf("log from envtest, which has no kubelet: %+v", j.Log)
	}

	// The log itself, from a source that has one: the last 20 of 30 lines,
	// the password masked wherever it is, plain or base64.
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("step %d", i))
	}
	lines[27] = "connecting with password=" + shopPassword
	lines[28] = "auth header: " + b64(shopPassword)
	fl := &fakeLogs{log: strings.Join(lines, "\n") + "\n"}
	st = mustStatus(t, c, ns, "shop", live.StatusOptions{Logs: fl})
	l := st.Hooks[0].Job.Log
	if len(fl.asks) != 1 || fl.asks[0] != ns+"/shop-migrate-x7k2p/migrate previous=false lines=20" {
		t.Fatalf("log asked as %q", fl.asks)
	}
	if len(l.Lines) != 20 || l.Lines[0] != "step 11" || l.Lines[19] != "step 30" || !l.Masked || l.Unavailable != "" {
		t.Fatalf("log tail: %+v", l)
	}
	for _, line := range l.Lines {
		if strings.Contains(line, shopPassword) || strings.Contains(line, b64(shopPassword)) {
			t.Errorf("log line not masked: %q", line)
		}
	}
	if !strings.HasPrefix(l.Lines[17], "connecting with password="+revdiff.MaskPrefix) || !strings.HasPrefix(l.Lines[18], "auth header: "+revdiff.MaskPrefix) {
		t.Errorf("masked lines: %q", l.Lines[17:19])
	}
	st = mustStatus(t, c, ns, "shop", live.StatusOptions{Logs: &fakeLogs{log: fl.log}, Reveal: true, LogLines: 3})
	if l := st.Hooks[0].Job.Log; !slices.Equal(l.Lines, []string{lines[27], lines[28], "step 30"}) || l.Masked {
		t.Errorf("revealed, 3 lines: %+v", l)
	}
}

// TestStatusEvents: the Warning events of the release's objects, of the Pods
// and ReplicaSets their controllers name after them, and of its hook Job's
// Pods, newest first, masked; not those of other objects, nor Normal events.
func TestStatusEvents(t *testing.T) {
	ns, c, err := installShop(t, "shop", nil, kubetest.HookOutcome{Fail: true, Message: "boom"}, nil)
	if err == nil {
		t.Fatal("install with a failing hook succeeded")
	}
	cs := cluster.Client
	kubetest.WarningEvent(t, cs, ns, "Deployment", "shop", "ProgressDeadlineExceeded", "ReplicaSet shop-7d9f8c has timed out progressing")
	kubetest.WarningEvent(t, cs, ns, "ReplicaSet", "shop-7d9f8c", "FailedCreate", "quota exceeded")
	kubetest.WarningEvent(t, cs, ns, "Pod", "shop-7d9f8c-abcde", "BackOff", "Back-off restarting failed container web")
	kubetest.WarningEvent(t, cs, ns, "Pod", "shop-migrate-x7k2p", "Failed", "Error: password "+shopPassword+" rejected")
	kubetest.WarningEvent(t, cs, ns, "Pod", "shopping-cart-abcde", "BackOff", "not ours")
	kubetest.WarningEvent(t, cs, ns, "Pod", "shop-7d9f8c-abcde-extra", "BackOff", "not a name the ReplicaSet gives")
	if _, err := cs.CoreV1().Events(ns).Create(t.Context(), normalEvent(ns, "shop"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	st := mustStatus(t, c, ns, "shop", live.StatusOptions{})
	var got []string
	for _, e := range st.Events {
		got = append(got, e.Object+" for="+e.For+" "+e.Reason)
		if strings.Contains(e.Message, shopPassword) {
			t.Errorf("event message not masked: %q", e.Message)
		}
	}
	slices.Sort(got)
	want := []string{
		"Deployment/shop for= ProgressDeadlineExceeded",
		"Pod/shop-7d9f8c-abcde for=Deployment/shop BackOff",
		"Pod/shop-migrate-x7k2p for=Job/shop-migrate Failed",
		"ReplicaSet/shop-7d9f8c for=Deployment/shop FailedCreate",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(st.Events); i++ {
		if st.Events[i].LastSeen.After(st.Events[i-1].LastSeen) {
			t.Errorf("events not newest first: %v", st.Events)
		}
	}
}

// TestStatusRequests: status of a 30-object release reads the revisions'
// metadata, the record, discovery, one GET per object and one list of Warning
// events: no list of any kind of object, and nothing per object beyond its GET.
func TestStatusRequests(t *testing.T) {
	stats := &kube.Stats{}
	vals := map[string]interface{}{"apps": 6, "extraConfigMaps": 10}
	ns, c, err := installShop(t, "big", vals, kubetest.HookOutcome{}, stats)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	st := mustStatus(t, c, ns, "big", live.StatusOptions{})
	if len(st.Resources) != 30 {
		t.Fatalf("%d objects, want 30", len(st.Resources))
	}
	calls := stats.Calls()
	objectGets, eventLists := 0, 0
	for _, call := range calls {
		switch {
		case strings.HasPrefix(call, "GET /api/v1/namespaces/"+ns+"/events?"):
			eventLists++
		case isObjectGet(call, ns):
			objectGets++
		}
	}
	t.Logf("status of 30 objects: %d requests:\n%s", len(calls), strings.Join(calls, "\n"))
	if objectGets != 30 || eventLists != 1 {
		t.Errorf("%d object GETs (want 30), %d event lists (want 1)", objectGets, eventLists)
	}
	// Besides: the revisions' metadata (one list per store), the record (the
	// index and its chunk), discovery (two aggregated documents).
	if len(calls) > 30+1+8 {
		t.Errorf("%d requests, want at most %d", len(calls), 30+1+8)
	}
}

// isObjectGet reports whether a call is the GET of one object in ns (a path
// that ends in a name, not a list), other than a release record.
func isObjectGet(call, ns string) bool {
	path, _, _ := strings.Cut(strings.TrimPrefix(call, "GET "), "?")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	i := slices.Index(parts, "namespaces")
	if !strings.HasPrefix(call, "GET ") || i < 0 || len(parts) != i+4 || parts[i+1] != ns {
		return false
	}
	name := parts[i+3]
	return !strings.HasPrefix(name, "sh.helm.release.")
}

// normalEvent is a Normal event about Deployment ns/name, which status leaves out.
func normalEvent(ns, name string) *corev1.Event {
	now := metav1.Now()
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: ns, Name: name},
		Type:           corev1.EventTypeNormal, Reason: "ScalingReplicaSet", Message: "Scaled up", Count: 1,
		FirstTimestamp: now, LastTimestamp: now,
	}
}
