package fakeapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/ptr"
)

// The requests that reading and writing Helm's own stores make: ConfigMaps (the
// ConfigMaps driver), Secrets selected by type, metadata-only lists of both.

func configMap(name string, data map[string]string, bin map[string][]byte, lbs map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbs}, Data: data, BinaryData: bin}
}

func cmcreate(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	got, err := c.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("setup: create %s: %v", cm.Name, err)
	}
	return got
}

func cmNames(items []corev1.ConfigMap) []string {
	var out []string
	for _, cm := range items {
		out = append(out, cm.Name)
	}
	return out
}

var configMapParityCases = []struct {
	name string
	run  func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string
}{
	{"size limit", func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string {
		limit := strings.Repeat("x", MaxSecretBytes)
		_, e1 := c.Create(ctx, configMap("at-limit", map[string]string{"release": limit}, nil, nil), metav1.CreateOptions{})
		_, e2 := c.Create(ctx, configMap("over-limit", map[string]string{"release": limit + "x"}, nil, nil), metav1.CreateOptions{})
		_, e3 := c.Create(ctx, configMap("split-at", map[string]string{"a": limit[:1_000_000]}, map[string][]byte{"b": make([]byte, 48_576)}, nil), metav1.CreateOptions{})
		_, e4 := c.Create(ctx, configMap("split-over", map[string]string{"a": limit[:1_000_000]}, map[string][]byte{"b": make([]byte, 48_577)}, nil), metav1.CreateOptions{})
		small := cmcreate(ctx, t, c, configMap("grows", map[string]string{"release": "x"}, nil, nil))
		small.Data["release"] = limit + "x"
		_, e5 := c.Update(ctx, small, metav1.UpdateOptions{})
		_, e6 := c.Patch(ctx, "grows", types.MergePatchType, []byte(`{"data":{"more":"`+limit+`"}}`), metav1.PatchOptions{})
		return []string{errString(e1), errString(e2), errString(e3), errString(e4), errString(e5), errString(e6)}
	}},
	{"create refusals", func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string {
		cmcreate(ctx, t, c, configMap("a", nil, nil, nil))
		_, e1 := c.Create(ctx, configMap("a", nil, nil, nil), metav1.CreateOptions{})
		_, e2 := c.Create(ctx, configMap("Bad_Name", nil, nil, nil), metav1.CreateOptions{})
		_, e3 := c.Create(ctx, configMap("b", map[string]string{"a/b": "x"}, nil, nil), metav1.CreateOptions{})
		_, e4 := c.Create(ctx, configMap("c", nil, map[string][]byte{"a b": {1}}, nil), metav1.CreateOptions{})
		_, e5 := c.Create(ctx, configMap("d", map[string]string{"k": "x"}, map[string][]byte{"k": {1}}, nil), metav1.CreateOptions{})
		_, e6 := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "e", ResourceVersion: "5"}}, metav1.CreateOptions{})
		return []string{errString(e1), errString(e2), errString(e3), errString(e4), errString(e5), errString(e6)}
	}},
	{"update concurrency", func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string {
		stale := cmcreate(ctx, t, c, configMap("u", map[string]string{"v": "1"}, nil, nil))
		cur := stale.DeepCopy()
		cur.Data["v"] = "2"
		cur, e1 := c.Update(ctx, cur, metav1.UpdateOptions{})
		noop, e2 := c.Update(ctx, cur.DeepCopy(), metav1.UpdateOptions{})
		st := stale.DeepCopy()
		st.Data["v"] = "3"
		_, e3 := c.Update(ctx, st, metav1.UpdateOptions{})
		// Helm's driver updates without a resourceVersion.
		un := cur.DeepCopy()
		un.ResourceVersion = ""
		un.Data["v"] = "4"
		_, e4 := c.Update(ctx, un, metav1.UpdateOptions{})
		_, e5 := c.Update(ctx, configMap("missing", nil, nil, nil), metav1.UpdateOptions{})
		e6 := c.Delete(ctx, "u", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
		e7 := c.Delete(ctx, "u", metav1.DeleteOptions{})
		e8 := c.Delete(ctx, "u", metav1.DeleteOptions{})
		return []string{errString(e1), fmt.Sprint("no-op keeps rv: ", noop.ResourceVersion == cur.ResourceVersion, errString(e2)), errString(e3), errString(e4), errString(e5), errString(e6), errString(e7), errString(e8)}
	}},
	{"immutable ConfigMap", func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string {
		orig := cmcreate(ctx, t, c, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "frozen", Labels: map[string]string{"owner": "helm"}},
			Immutable:  ptr.To(true),
			Data:       map[string]string{"release": "H4sI"},
			BinaryData: map[string][]byte{"blob": {1, 2}},
		})
		var out []string
		for _, mutate := range []func(*corev1.ConfigMap){
			func(cm *corev1.ConfigMap) { cm.Data["release"] = "other" },
			func(cm *corev1.ConfigMap) { cm.Data["more"] = "x" },
			func(cm *corev1.ConfigMap) { cm.BinaryData["blob"] = []byte{3} },
			func(cm *corev1.ConfigMap) { cm.Immutable = ptr.To(false) },
			func(cm *corev1.ConfigMap) { cm.Immutable = nil },
			func(cm *corev1.ConfigMap) { cm.Labels["status"] = "superseded"; cm.ResourceVersion = "" },
		} {
			in := orig.DeepCopy()
			mutate(in)
			_, err := c.Update(ctx, in, metav1.UpdateOptions{})
			out = append(out, errString(err))
		}
		_, err := c.Patch(ctx, "frozen", types.MergePatchType, []byte(`{"data":{"release":"x"}}`), metav1.PatchOptions{})
		out = append(out, errString(err))
		_, err = c.Patch(ctx, "frozen", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
		return append(out, errString(err))
	}},
	{"list and watch", func(ctx context.Context, t *testing.T, c corev1client.ConfigMapInterface) []string {
		for i, st := range []string{"superseded", "superseded", "deployed"} {
			cmcreate(ctx, t, c, configMap(fmt.Sprintf("sh.helm.release.v1.nginx.v%d", i+1), map[string]string{"release": "x"}, nil,
				map[string]string{"owner": "helm", "name": "nginx", "status": st, "version": fmt.Sprint(i + 1)}))
		}
		cmcreate(ctx, t, c, configMap("other", nil, nil, map[string]string{"owner": "someone"}))
		var out []string
		for _, opts := range []metav1.ListOptions{
			{LabelSelector: "owner=helm"},
			{LabelSelector: "owner=helm,status=deployed"},
			{LabelSelector: "owner=helm", FieldSelector: "metadata.name=sh.helm.release.v1.nginx.v2"},
			{LabelSelector: "owner=helm", Limit: 2},
			{FieldSelector: "type=helm.sh/release.v1"},
			{FieldSelector: "metadata.name=a=b"},
			{LabelSelector: "owner in (helm"},
		} {
			l, err := c.List(ctx, opts)
			if err != nil {
				out = append(out, errString(err))
				continue
			}
			out = append(out, fmt.Sprintf("%v more %v", cmNames(l.Items), l.Continue != ""))
		}
		l, err := c.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(ctx, metav1.ListOptions{LabelSelector: "owner=helm", ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		cur, _ := c.Get(ctx, "sh.helm.release.v1.nginx.v3", metav1.GetOptions{})
		cur.Labels["status"] = "superseded"
		_, _ = c.Update(ctx, cur, metav1.UpdateOptions{})
		cmcreate(ctx, t, c, configMap("sh.helm.release.v1.nginx.v4", map[string]string{"release": "y"}, nil, map[string]string{"owner": "helm", "name": "nginx"}))
		_ = c.Delete(ctx, "sh.helm.release.v1.nginx.v1", metav1.DeleteOptions{})
		_ = c.Delete(ctx, "other", metav1.DeleteOptions{})
		for range 3 {
			select {
			case ev := <-w.ResultChan():
				cm, _ := ev.Object.(*corev1.ConfigMap)
				out = append(out, fmt.Sprintf("%s %s status=%s data=%d", ev.Type, cm.Name, cm.Labels["status"], len(cm.Data)))
			case <-time.After(5 * time.Second):
				return append(out, "timeout")
			}
		}
		return out
	}},
}

// secretTypeCase lists Secrets by type, as a reader of Helm's Secrets driver does.
func secretTypeCase(ctx context.Context, t *testing.T, c corev1client.SecretInterface) []string {
	helm := func(name, status string) *corev1.Secret {
		s := secret(name, map[string][]byte{"release": []byte("H4sI")}, map[string]string{"owner": "helm", "name": "redis", "status": status})
		s.Type = "helm.sh/release.v1"
		return s
	}
	pcreate(ctx, t, c, helm("sh.helm.release.v1.redis.v1", "superseded"))
	pcreate(ctx, t, c, helm("sh.helm.release.v1.redis.v2", "deployed"))
	pcreate(ctx, t, c, secret("sh.helm.release.v1.web.v1", nil, map[string]string{"owner": "helm", "type": "index"}))
	pcreate(ctx, t, c, secret("plain", nil, nil))
	var out []string
	for _, opts := range []metav1.ListOptions{
		{FieldSelector: "type=helm.sh/release.v1"},
		{FieldSelector: "type=helm.sh/release.v1", LabelSelector: "owner=helm,status=deployed"},
		{FieldSelector: "type!=helm.sh/release.v1", LabelSelector: "owner=helm"},
		{FieldSelector: "type=Opaque,metadata.name=plain"},
		{FieldSelector: "type=helm.sh/release.v1", Limit: 1},
		{FieldSelector: "kind=Secret"},
		{FieldSelector: "type=a=b"},
		{LabelSelector: "owner in (helm"},
	} {
		l, err := c.List(ctx, opts)
		if err != nil {
			out = append(out, errString(err))
			continue
		}
		out = append(out, fmt.Sprintf("%v more %v", names(l.Items), l.Continue != ""))
	}
	err := c.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "type=helm.sh/release.v1", LabelSelector: "status=superseded"})
	l, _ := c.List(ctx, metav1.ListOptions{FieldSelector: "type=helm.sh/release.v1"})
	return append(out, errString(err), fmt.Sprint(names(l.Items)))
}

func TestConfigMapParityWithRealAPIServer(t *testing.T) {
	for _, tc := range configMapParityCases {
		t.Run(tc.name, func(t *testing.T) {
			compare(t, tc.run, func(cs kubernetes.Interface, ns string) corev1client.ConfigMapInterface {
				return cs.CoreV1().ConfigMaps(ns)
			})
		})
	}
	t.Run("Secrets by type", func(t *testing.T) {
		compare(t, secretTypeCase, func(cs kubernetes.Interface, ns string) corev1client.SecretInterface { return cs.CoreV1().Secrets(ns) })
	})
}

// TestMetadataParityWithRealAPIServer lists ConfigMaps and Secrets metadata-only,
// as a reader that decodes nothing does, from both servers.
func TestMetadataParityWithRealAPIServer(t *testing.T) {
	ctx := context.Background()
	realMD, err := metadata.NewForConfig(apiServer.Config)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster()
	ns := apiServer.Namespace(t)
	if err := c.Add(Namespace(ns)); err != nil {
		t.Fatal(err)
	}
	lbs := func(st string) map[string]string {
		return map[string]string{"owner": "helm", "name": "x", "status": st}
	}
	for _, cs := range []kubernetes.Interface{apiServer.Client, c.Clientset()} {
		for i, st := range []string{"superseded", "deployed"} {
			name := fmt.Sprintf("sh.helm.release.v1.x.v%d", i+1)
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(name, map[string]string{"release": "H4sI"}, nil, lbs(st)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			s := secret(name, map[string][]byte{"release": []byte("H4sI")}, lbs(st))
			s.Type = "helm.sh/release.v1"
			if _, err := cs.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	render := func(md metadata.Interface) []string {
		var out []string
		for _, q := range []struct {
			gvr       string
			sel, fsel string
		}{
			{"configmaps", "owner=helm", ""},
			{"configmaps", "owner=helm,status=deployed", ""},
			{"configmaps", "", "type=helm.sh/release.v1"},
			{"secrets", "owner=helm", "type=helm.sh/release.v1"},
			{"secrets", "status=superseded", "type=Opaque"},
		} {
			gvr := corev1.SchemeGroupVersion.WithResource(q.gvr)
			l, err := md.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: q.sel, FieldSelector: q.fsel})
			if err != nil {
				out = append(out, outcome(ns, err))
				continue
			}
			var items []string
			for _, p := range l.Items {
				items = append(items, fmt.Sprintf("%s %s/%s status=%s uid=%v", p.Name, p.APIVersion, p.Kind, p.Labels["status"], p.UID != ""))
			}
			out = append(out, fmt.Sprintf("%s/%s: %v", l.APIVersion, l.Kind, items))
		}
		r := md.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns)
		p, err := r.Get(ctx, "sh.helm.release.v1.x.v2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("get %s/%s %s", p.APIVersion, p.Kind, p.Labels["status"]))
		w, err := r.Watch(ctx, metav1.ListOptions{LabelSelector: "status=deployed"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		select {
		case ev := <-w.ResultChan():
			p, _ := ev.Object.(*metav1.PartialObjectMetadata)
			out = append(out, fmt.Sprintf("watch %s %T %s/%s %s", ev.Type, ev.Object, p.APIVersion, p.Kind, p.Name))
		case <-time.After(5 * time.Second):
			out = append(out, "watch timeout")
		}
		return out
	}
	want, got := render(realMD), render(c.Metadata())
	if len(got) != len(want) {
		t.Fatalf("%d answers, the real server gave %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("answer %d:\n demo: %s\n real: %s", i+1, got[i], want[i])
		}
	}
}
