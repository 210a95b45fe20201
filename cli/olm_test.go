package cli_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
)

// olmLabelsCLI are operator-controller's labels on an extension's index Secrets.
func olmLabelsCLI(ext string) map[string]string {
	return map[string]string{"olm.operatorframework.io/package-name": ext, "olm.operatorframework.io/bundle-name": ext + ".v1.2.0"}
}

// markOLMv1 gives the index Secrets of release name OLMv1's metadata: a controller
// ownerReference to ClusterExtension name, and its labels.
func (e *env) markOLMv1(name string) {
	e.t.Helper()
	ctx := context.Background()
	list, err := cluster.Client.CoreV1().Secrets(e.ns).List(ctx, metav1.ListOptions{LabelSelector: "name=" + name + ",type=index"})
	if err != nil || len(list.Items) == 0 {
		e.t.Fatalf("index Secrets of %s: %v, %d", name, err, len(list.Items))
	}
	yes := true
	for _, s := range list.Items {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"labels": olmLabelsCLI(name),
			"ownerReferences": []metav1.OwnerReference{{APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: name,
				UID: types.UID("0000-" + name), Controller: &yes}},
		}})
		if _, err := cluster.Client.CoreV1().Secrets(e.ns).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestOLMv1CLI: ls -o json carries the owner and labels at no extra request;
// history shows the ClusterExtension's conditions and bundle when its CRD is
// served, nothing when it is not, "not readable" to a user who may not read it,
// and that the Helm records are history once ClusterObjectSets exist.
func TestOLMv1CLI(t *testing.T) {
	ctx := t.Context()
	e, plain := newEnv(t), newEnv(t)
	e.install(byChunkview, "ext", 2)
	plain.install(byChunkview, "plain", 2)
	e.markOLMv1("ext")

	ls := func(e *env) (int, cli.Releases) {
		stats := &kube.Stats{}
		r := e.runApp(&cli.App{Stats: stats}, "", "ls", "-o", "json", "--driver", "chunked")
		mustCode(t, r, 0)
		var out cli.Releases
		decode(t, r, &out)
		return stats.Total(), out
	}
	base, _ := ls(plain)
	n, out := ls(e)
	t.Logf("ls -o json: %d requests with OLMv1 metadata, %d without", n, base)
	if n != base {
		t.Errorf("ls of an OLMv1 release took %d requests, of a plain one %d", n, base)
	}
	if len(out.Releases) != 1 || out.Releases[0].ControlledBy != "ClusterExtension/ext" || !maps.Equal(out.Releases[0].Labels, olmLabelsCLI("ext")) {
		t.Fatalf("ls -o json: %+v", out.Releases)
	}
	r := e.run("ls", "-o", "json")
	if !strings.Contains(r.stdout, `"controlledBy": "ClusterExtension/ext"`) || !strings.Contains(r.stdout, `"olm.operatorframework.io/package-name": "ext"`) {
		t.Errorf("ls -o json lacks controlledBy or labels:\n%s", r.stdout)
	}

	// No OLMv1 API: history says nothing of it, and succeeds.
	r = e.run("history", "ext", "-o", "json")
	mustCode(t, r, 0)
	if strings.Contains(r.stdout, "clusterExtension") {
		t.Errorf("without the CRD, history -o json has a clusterExtension:\n%s", r.stdout)
	}
	r = e.run("history", "ext")
	mustCode(t, r, 0)
	if strings.Contains(r.stdout, "ClusterExtension") {
		t.Errorf("without the CRD, history names the ClusterExtension:\n%s", r.stdout)
	}

	cluster.InstallOLMv1(t, true)
	dyn := dynamic.NewForConfigOrDie(cluster.Config)
	ext := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterExtension, "metadata": map[string]any{"name": "ext"},
	}}
	ext, err := dyn.Resource(testcluster.ClusterExtensions).Create(ctx, ext, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ext.Object["status"] = map[string]any{
		"conditions": []any{map[string]any{"type": "Installed", "status": "True", "reason": "Succeeded", "message": "Installed bundle ext.v1.2.0 successfully", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		"install":    map[string]any{"bundle": map[string]any{"name": "ext.v1.2.0", "version": "1.2.0"}},
	}
	if _, err := dyn.Resource(testcluster.ClusterExtensions).UpdateStatus(ctx, ext, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	var h cli.History
	r = e.run("history", "ext", "-o", "json")
	mustCode(t, r, 0)
	decode(t, r, &h)
	ce := h.ClusterExtension
	if h.ControlledBy != "ClusterExtension/ext" || ce == nil || ce.Unreadable != "" || ce.Bundle.Version != "1.2.0" || len(ce.Conditions) != 1 || ce.Conditions[0].Reason != "Succeeded" {
		t.Fatalf("history -o json: controlledBy %q, clusterExtension %+v", h.ControlledBy, ce)
	}
	r = e.run("history", "ext")
	mustCode(t, r, 0)
	for _, want := range []string{"ClusterExtension ext: installed bundle ext.v1.2.0 (1.2.0)", "Installed", "Succeeded", "Installed bundle ext.v1.2.0 successfully"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("history lacks %q:\n%s", want, r.stdout)
		}
	}

	// OLMv1's Boxcutter runtime took over.
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterObjectSet,
		"metadata": map[string]any{"name": "ext-3", "labels": map[string]any{"olm.operatorframework.io/owner": "ext"}},
	}}
	if _, err := dyn.Resource(testcluster.ClusterObjectSets).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = e.run("history", "ext")
	if !strings.Contains(r.stdout, "These Helm records are historical") || !strings.Contains(r.stdout, "the newest is ext-3") {
		t.Errorf("history does not say the records are historical:\n%s", r.stdout)
	}

	// A user who may read the records, not the ClusterExtension.
	u := userEnv(t, e, "olm-cli-reader", e.ns)
	bind(t, e.ns, "olm-cli-reader", "reader", secretReader)
	r = retryUntil(t, u, 0, "history", "ext")
	mustCode(t, r, 0)
	if !strings.Contains(r.stdout, "ClusterExtension ext: not readable: forbidden") {
		t.Errorf("a reader is not told the ClusterExtension is not readable:\n%s", r)
	}
}
