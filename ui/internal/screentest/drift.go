package screentest

import (
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"sigs.k8s.io/yaml"

	"github.com/chunkview/chunkview/revdiff"
)

// FakeDrift is what a live diff of revision rev of release name could answer:
// a scaled Deployment, a rotated Secret, a deleted Service, a stray ConfigMap
// and a kind the user may not read.
func FakeDrift(t testing.TB, ns, name string, rev int, reveal bool) *revdiff.Drift {
	t.Helper()
	rel := &release.Release{Name: name, Namespace: ns, Version: rev, Manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `}
spec: {replicas: 2}
---
apiVersion: v1
kind: Secret
metadata: {name: ` + name + `-db}
stringData: {password: hunter2-original}
---
apiVersion: v1
kind: Service
metadata: {name: ` + name + `}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ` + name + `-config}
data: {color: blue}
`}
	live := func(y string) map[string]any {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(y), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var objs []revdiff.LiveObject
	for _, r := range revdiff.ReleaseResources(rel.Manifest, ns) {
		o := revdiff.LiveObject{Resource: r, APIVersion: "v1"}
		switch r.Kind {
		case "Deployment":
			o.APIVersion = "apps/v1"
			o.Live = live(`metadata:
  managedFields:
  - {manager: kubectl, operation: Update, subresource: scale, time: "2026-11-02T11:00:00Z", fieldsV1: {"f:spec": {"f:replicas": {}}}}
spec: {replicas: 5}`)
		case "Secret":
			o.Live = live("data: {password: aHVudGVyMi1yb3RhdGVk}") // hunter2-rotated
		case "ConfigMap":
			o.Unreadable = "your credentials may not get configmaps in namespace " + ns + "; not compared (check: kubectl auth can-i get configmaps -n " + ns + ")"
		}
		if o.Live != nil {
			md, _ := o.Live["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
				o.Live["metadata"] = md
			}
			md["name"] = r.Name
		}
		objs = append(objs, o)
	}
	objs = append(objs, revdiff.LiveObject{Resource: revdiff.Resource{Key: "ConfigMap/" + ns + "/" + name + "-stray", Kind: "ConfigMap", Namespace: ns, Name: name + "-stray"}, APIVersion: "v1", Extra: true})
	d, err := revdiff.CompareLive(rel, objs, revdiff.DriftOptions{Reveal: reveal})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
