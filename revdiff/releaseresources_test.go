package revdiff

import (
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/release"
)

// TestReleaseResourcesNamespace: a namespaced resource without a namespace in its
// template is keyed in the release's namespace; a cluster-scoped one has none, and
// no key has an empty segment.
func TestReleaseResourcesNamespace(t *testing.T) {
	manifest := `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: podinfo
---
apiVersion: v1
kind: Service
metadata:
  name: podinfo
  namespace: elsewhere
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: podinfo-reader
`
	var got []string
	for _, r := range ReleaseResources(manifest, "demo") {
		got = append(got, r.Key)
	}
	want := []string{"ClusterRole/podinfo-reader", "ConfigMap/demo/podinfo", "Service/elsewhere/podinfo"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	got = nil
	for _, r := range SplitManifest(manifest) {
		got = append(got, r.Key)
	}
	want = []string{"ClusterRole/podinfo-reader", "ConfigMap/podinfo", "Service/elsewhere/podinfo"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitManifest keys %v, want %v", got, want)
	}

	// A diff names the resource where Helm put it.
	from := &release.Release{Name: "podinfo", Namespace: "demo", Version: 1, Manifest: manifest}
	to := &release.Release{Name: "podinfo", Namespace: "demo", Version: 2, Manifest: manifest + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: extra\n"}
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) == 0 || res.Resources[0].Key != "Secret/demo/extra" {
		t.Errorf("diff keys: %+v", res.Resources)
	}
}
