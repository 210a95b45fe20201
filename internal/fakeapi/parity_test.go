package fakeapi

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"github.com/chunkview/chunkview/internal/testcluster"
)

// The parity test runs the same requests against the in-memory cluster and a real
// kube-apiserver (envtest) and wants the same answers, errors worded the same.

// apiServer is the real API server the parity test compares with.
var apiServer *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &apiServer) }

// outcome renders an answer so that the two servers' can be compared: the error's
// code, reason and message, with uids, resourceVersions and the namespace made
// neutral.
func outcome(ns string, err error) string {
	if err == nil {
		return "ok"
	}
	s := "error: " + err.Error()
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s = fmt.Sprintf("%d %s: %s", st.Status().Code, st.Status().Reason, st.Status().Message)
	}
	s = strings.ReplaceAll(s, ns, "NS")
	s = uidRE.ReplaceAllString(s, "UID")
	s = rvRE.ReplaceAllString(s, "${1}RV")
	return s
}

var (
	uidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rvRE  = regexp.MustCompile(`(ResourceVersion in object meta: |ResourceVersion in record \()\d+`)
)

type parityCase struct {
	name string
	run  func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string
}

func pcreate(ctx context.Context, t *testing.T, c corev1client.SecretInterface, s *corev1.Secret) *corev1.Secret {
	t.Helper()
	got, err := c.Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("setup: create %s: %v", s.Name, err)
	}
	return got
}

func immutableChunk() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "chunk", Labels: map[string]string{"type": "chunk"}},
		Type:       "operatorframework.io/chunk.v1", Immutable: ptr.To(true),
		Data: map[string][]byte{"chunk": []byte("slice")},
	}
}

var parityCases = []parityCase{
	{"size limit", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		_, e1 := c.Create(ctx, secret("at-limit", map[string][]byte{"chunk": make([]byte, 1_048_576)}, nil), metav1.CreateOptions{})
		_, e2 := c.Create(ctx, secret("over-limit", map[string][]byte{"chunk": make([]byte, 1_048_577)}, nil), metav1.CreateOptions{})
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "string-over"}, Data: map[string][]byte{"a": make([]byte, 1_048_576)}, StringData: map[string]string{"b": "x"}}
		_, e3 := c.Create(ctx, s, metav1.CreateOptions{})
		return []string{errString(e1), errString(e2), errString(e3)}
	}},
	{"create refusals", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		pcreate(ctx, t, c, secret("a", nil, nil))
		_, e1 := c.Create(ctx, secret("a", nil, nil), metav1.CreateOptions{})
		_, e2 := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "5"}}, metav1.CreateOptions{})
		_, e3 := c.Create(ctx, secret("Bad_Name", nil, nil), metav1.CreateOptions{})
		_, e4 := c.Create(ctx, secret("c", map[string][]byte{"a/b": nil}, nil), metav1.CreateOptions{})
		_, e5 := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Type: corev1.SecretTypeTLS}, metav1.CreateOptions{})
		return []string{errString(e1), errString(e2), errString(e3), errString(e4), errString(e5)}
	}},
	{"update concurrency", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		stale := pcreate(ctx, t, c, secret("u", map[string][]byte{"v": []byte("1")}, nil))
		cur := stale.DeepCopy()
		cur.Data["v"] = []byte("2")
		cur, e1 := c.Update(ctx, cur, metav1.UpdateOptions{})
		noop, e2 := c.Update(ctx, cur.DeepCopy(), metav1.UpdateOptions{})
		st := stale.DeepCopy()
		st.Data["v"] = []byte("3")
		_, e3 := c.Update(ctx, st, metav1.UpdateOptions{})
		un := cur.DeepCopy()
		un.ResourceVersion = ""
		un.Data["v"] = []byte("4")
		_, e4 := c.Update(ctx, un, metav1.UpdateOptions{})
		other := cur.DeepCopy()
		other.ResourceVersion, other.UID = "", "00000000-0000-0000-0000-000000000000"
		_, e5 := c.Update(ctx, other, metav1.UpdateOptions{})
		_, e6 := c.Update(ctx, secret("missing", nil, nil), metav1.UpdateOptions{})
		return []string{errString(e1), fmt.Sprint("no-op keeps rv: ", noop.ResourceVersion == cur.ResourceVersion, errString(e2)), errString(e3), errString(e4), errString(e5), errString(e6)}
	}},
	{"immutable Secret", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		orig := pcreate(ctx, t, c, immutableChunk())
		var out []string
		for _, mutate := range []func(*corev1.Secret){
			func(s *corev1.Secret) { s.Data["chunk"] = []byte("other") },
			func(s *corev1.Secret) { s.Immutable = ptr.To(false) },
			func(s *corev1.Secret) { s.Immutable = nil },
			func(s *corev1.Secret) { s.Type = "other/type" },
			func(s *corev1.Secret) { s.StringData = map[string]string{"chunk": "x"} },
			func(s *corev1.Secret) { s.Labels["owner"] = "x"; s.ResourceVersion = "" },
			func(s *corev1.Secret) {
				s.ResourceVersion = ""
				s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "idx", UID: "1234", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}}
			},
		} {
			in := orig.DeepCopy()
			mutate(in)
			_, err := c.Update(ctx, in, metav1.UpdateOptions{})
			out = append(out, errString(err))
		}
		_, err := c.Patch(ctx, "chunk", types.MergePatchType, []byte(`{"data":{"chunk":"b3RoZXI="}}`), metav1.PatchOptions{})
		out = append(out, errString(err))
		_, err = c.Patch(ctx, "chunk", types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
		out = append(out, errString(err))
		return out
	}},
	{"patch", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		s := pcreate(ctx, t, c, secret("p", map[string][]byte{"v": []byte("1")}, nil))
		p1, e1 := c.Patch(ctx, "p", types.JSONPatchType, []byte(`[{"op":"replace","path":"/data/v","value":"Mg=="}]`), metav1.PatchOptions{})
		_, e2 := c.Patch(ctx, "p", types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"`+s.ResourceVersion+`"}}`), metav1.PatchOptions{})
		_, e3 := c.Patch(ctx, "missing", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
		_, e4 := c.Patch(ctx, "p", types.MergePatchType, []byte(`{"data":{"w":"AQ=="},"type":"x/y"}`), metav1.PatchOptions{})
		return []string{errString(e1), fmt.Sprint("bumped: ", p1.ResourceVersion != s.ResourceVersion), errString(e2), errString(e3), errString(e4)}
	}},
	{"delete preconditions", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		s := pcreate(ctx, t, c, secret("d", nil, nil))
		e1 := c.Delete(ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("00000000-0000-0000-0000-000000000000"))}})
		e2 := c.Delete(ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
		e3 := c.Delete(ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID, ResourceVersion: &s.ResourceVersion}})
		e4 := c.Delete(ctx, "d", metav1.DeleteOptions{})
		return []string{errString(e1), errString(e2), errString(e3), errString(e4)}
	}},
	{"deletecollection and pagination", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		for _, n := range []string{"k1", "k1-a", "k1-b", "k2", "k2-a", "x", "y", "z"} {
			key, _, _ := strings.Cut(n, "-")
			pcreate(ctx, t, c, secret(n, nil, map[string]string{"key": key, "owner": "helm"}))
		}
		var out []string
		e := c.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "owner=helm,key=k1"})
		out = append(out, errString(e))
		e = c.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=k2-a"})
		out = append(out, errString(e))
		opts := metav1.ListOptions{Limit: 2}
		for {
			l, err := c.List(ctx, opts)
			if err != nil {
				return append(out, errString(err))
			}
			rem := "nil"
			if l.RemainingItemCount != nil {
				rem = fmt.Sprint(*l.RemainingItemCount)
			}
			out = append(out, fmt.Sprintf("page %v remaining %s more %v", names(l.Items), rem, l.Continue != ""))
			if l.Continue == "" {
				break
			}
			opts.Continue = l.Continue
		}
		l, err := c.List(ctx, metav1.ListOptions{LabelSelector: "key=x", Limit: 1})
		out = append(out, fmt.Sprintf("selected %v more %v %s", names(l.Items), l.Continue != "", errString(err)))
		_, err = c.List(ctx, metav1.ListOptions{Continue: "bm90LWEtdG9rZW4"})
		out = append(out, errString(err))
		_, err = c.List(ctx, metav1.ListOptions{FieldSelector: "spec.foo=bar"})
		out = append(out, errString(err))
		return out
	}},
	{"watch with a selector", func(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
		pcreate(ctx, t, c, secret("before", nil, map[string]string{"w": "yes"}))
		l, err := c.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(ctx, metav1.ListOptions{LabelSelector: "w=yes", ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		a := pcreate(ctx, t, c, secret("a", nil, map[string]string{"w": "yes"}))
		b := pcreate(ctx, t, c, secret("b", nil, map[string]string{"w": "no"}))
		a.Data = map[string][]byte{"v": []byte("1")}
		a, _ = c.Update(ctx, a, metav1.UpdateOptions{})
		a.Labels["w"] = "no"
		_, _ = c.Update(ctx, a, metav1.UpdateOptions{})
		b.Labels["w"] = "yes"
		_, _ = c.Update(ctx, b, metav1.UpdateOptions{})
		_ = c.Delete(ctx, "b", metav1.DeleteOptions{})
		_ = c.Delete(ctx, "a", metav1.DeleteOptions{})
		var out []string
		for len(out) < 5 {
			select {
			case ev := <-w.ResultChan():
				s, _ := ev.Object.(*corev1.Secret)
				out = append(out, fmt.Sprintf("%s %s data=%d", ev.Type, s.Name, len(s.Data)))
			case <-time.After(5 * time.Second):
				return append(out, "timeout")
			}
		}
		return out
	}},
}

func errString(err error) string { return outcome(currentNS, err) }

// currentNS is the namespace of the case being run, for outcome.
var currentNS string

func TestParityWithRealAPIServer(t *testing.T) {
	ctx := context.Background()
	for _, tc := range parityCases {
		t.Run(tc.name, func(t *testing.T) {
			compare(t, tc.run, func(cs kubernetes.Interface, ns string) corev1client.SecretInterface { return cs.CoreV1().Secrets(ns) })
		})
	}
	t.Run("missing namespace", func(t *testing.T) {
		_, rerr := apiServer.Client.CoreV1().Secrets("no-such-ns").Create(ctx, secret("s", nil, nil), metav1.CreateOptions{})
		_, derr := NewCluster().Clientset().CoreV1().Secrets("no-such-ns").Create(ctx, secret("s", nil, nil), metav1.CreateOptions{})
		if g, w := outcome("", derr), outcome("", rerr); g != w {
			t.Errorf("demo: %s\nreal: %s", g, w)
		}
	})
}

// compare runs one case against the real server, then against a new Cluster, each
// in a fresh namespace of the same name, and wants the same answers. client picks
// the resource's client from a clientset.
func compare[C any](t *testing.T, run func(context.Context, *testing.T, C) []string, client func(cs kubernetes.Interface, ns string) C) {
	t.Helper()
	ctx := context.Background()
	c := NewCluster()
	ns := apiServer.Namespace(t)
	if err := c.Add(Namespace(ns)); err != nil {
		t.Fatal(err)
	}
	currentNS = ns
	want := run(ctx, t, client(apiServer.Client, ns))
	got := run(ctx, t, client(c.Clientset(), ns))
	if len(got) != len(want) {
		t.Fatalf("%d answers, the real server gave %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("answer %d:\n demo: %s\n real: %s", i+1, got[i], want[i])
		}
	}
}
