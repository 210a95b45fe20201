package screentest

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// MarkOLMv1 gives the index Secrets of release name in namespace default
// OLMv1's metadata: a controller ownerReference to ClusterExtension name and
// operator-controller's labels.
func (f *Fixture) MarkOLMv1(name string) {
	ctx := context.Background()
	list, err := f.Cluster.Clientset().CoreV1().Secrets("default").List(ctx, metav1.ListOptions{LabelSelector: storage.LabelName + "=" + name + "," + storage.LabelType + "=" + storage.TypeIndex})
	if err != nil {
		f.T().Fatal(err)
	}
	yes := true
	for _, s := range list.Items {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"labels": map[string]string{"olm.operatorframework.io/package-name": name, "olm.operatorframework.io/bundle-name": name + ".v1.4.0"},
			"ownerReferences": []metav1.OwnerReference{{APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: name,
				UID: "0000-" + types.UID(name), Controller: &yes}},
		}})
		if _, err := f.Cluster.Clientset().CoreV1().Secrets("default").Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			f.T().Fatal(err)
		}
	}
}

// OLMExtension is what OLMv1 says of ClusterExtension web in the golden files.
var OLMExtension = &kube.ClusterExtension{
	Name:   "web",
	Bundle: kube.InstalledBundle{Name: "web.v1.4.0", Version: "1.4.0"},
	Conditions: []kube.ExtensionCondition{
		{Type: "Installed", Status: "True", Reason: "Succeeded"},
		{Type: "Progressing", Status: "False", Reason: "Blocked", Message: "upgrade blocked"},
	},
	ObjectSet: "web-7", ObjectSets: 2,
}
