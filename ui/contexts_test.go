package ui

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/screens/history"
)

// testContexts are three contexts: prod (the fixture's client), staging (another
// cluster, looking at shop) and gone, which cannot be reached.
func testContexts(f *fixture) *kube.Contexts {
	staging := newFixture(f.T()).Client.WithNamespace("shop", false)
	return &kube.Contexts{
		Current: "prod",
		List:    func() ([]string, error) { return []string{"gone", "prod", "staging"}, nil },
		Connect: func(name string) (*kube.Client, error) {
			switch name {
			case "prod":
				return f.Client, nil
			case "staging":
				return staging, nil
			}
			return nil, errors.New(`Get "https://10.9.9.9:6443/version": dial tcp 10.9.9.9:6443: connect: no route to host`)
		},
	}
}

// contextOptions are the options of a view started on context prod.
func contextOptions(f *fixture) Options {
	return Options{ContextName: "prod", Contexts: testContexts(f)}
}

// TestContextSwitch: :ctx picks a context, :ctx NAME switches straight away, the
// header names the context and namespace throughout, and a context that cannot
// be reached leaves the view where it was.
func TestContextSwitch(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, contextOptions(f), 80, 24)
	h.contains("ctx prod · ns default", "web", "worker")

	h.press("down", "down", "enter", ":").typeText("ctx").press("enter")
	if len(h.m.stack) != 1 {
		t.Fatalf(":ctx left %d screens open", len(h.m.stack))
	}
	h.contains("Switch to context", "gone", "staging", "prod (current)")
	h.typeText("stag").press("enter")
	h.contains("ctx staging · ns shop", "Switched to context staging", "api", "cache").lacks("worker")

	h.press(":").typeText("ctx gone").press("enter")
	h.contains("Still on staging: cannot switch to context gone", "ctx staging · ns shop", "api")

	h.press(":").typeText("ctx prod").press("enter")
	h.contains("ctx prod · ns default", "worker")
}

// TestDialogsNameTheCluster: every dialog that changes the cluster says which
// context and namespace it changes.
func TestDialogsNameTheCluster(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"uninstall", []string{"down", "down", "enter", "U"}},
		{"delete revision", []string{"enter", "X"}},
		{"fix stuck", []string{"G", "enter", "F"}},
		{"rollback", []string{"down", "down", "enter", "up", "R"}},
	} {
		h := newHarness(t, f.Client, contextOptions(f), 120, 40)
		h.press(c.keys...).contains("context prod · namespace default")
	}
}

// markOLMv1 gives the index Secrets of release name in namespace default
// OLMv1's metadata: a controller ownerReference to ClusterExtension name and
// operator-controller's labels.
func markOLMv1(f *fixture, name string) {
	ctx := context.Background()
	list, err := f.Cluster.Clientset().CoreV1().Secrets("default").List(ctx, metav1.ListOptions{LabelSelector: storage.LabelName + "=" + name + "," + storage.LabelType + "=" + storage.TypeIndex})
	if err != nil {
		f.T().Fatal(err)
	}
	yes := true
	for _, s := range list.Items {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"labels": map[string]string{"olm.operatorframework.io/package-name": name, history.OlmBundleLabel: name + ".v1.4.0"},
			"ownerReferences": []metav1.OwnerReference{{APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: name,
				UID: "0000-" + types.UID(name), Controller: &yes}},
		}})
		if _, err := f.Cluster.Clientset().CoreV1().Secrets("default").Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			f.T().Fatal(err)
		}
	}
}

// olmExtension is what OLMv1 says of ClusterExtension web in the golden files.
var olmExtension = &kube.ClusterExtension{
	Name:   "web",
	Bundle: kube.InstalledBundle{Name: "web.v1.4.0", Version: "1.4.0"},
	Conditions: []kube.ExtensionCondition{
		{Type: "Installed", Status: "True", Reason: "Succeeded"},
		{Type: "Progressing", Status: "False", Reason: "Blocked", Message: "upgrade blocked"},
	},
	ObjectSet: "web-7", ObjectSets: 2,
}

// TestHistoryShowsTheOwner: the history names the ClusterExtension that owns the
// release, from metadata; what OLMv1 says of it comes in when read.
func TestHistoryShowsTheOwner(t *testing.T) {
	f := newFixture(t)
	markOLMv1(f, "web")
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter").contains("Owner ClusterExtension/web · bundle web.v1.4.0")
	h.send(history.ExtensionMsg{Ns: "default", Name: "web", Ext: olmExtension})
	h.contains("installed web.v1.4.0 (1.4.0)", "Installed True (Succeeded) · Progressing False (Blocked)", "ClusterObjectSet web-7 (newest of 2) now holds web")
	h.send(history.ExtensionMsg{Ns: "default", Name: "web", Ext: &kube.ClusterExtension{Name: "web", Unreadable: "forbidden (kubectl auth can-i get clusterextensions.olm.operatorframework.io)"}})
	h.contains("ClusterExtension not readable: forbidden")
}
