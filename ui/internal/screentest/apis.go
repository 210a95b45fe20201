package screentest

import (
	"fmt"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/storage"
)

// StalePassword is the Secret value of the stale release: what no plan may
// show unmasked.
const StalePassword = "s3cr3t-stale"

// StaleRelease is revision v of release stale, as a cluster before 1.25 left
// it: a Deployment, a PodDisruptionBudget at policy/v1beta1 (which 1.25
// stopped serving) and a Secret, deployed at.
func StaleRelease(ns string, v int, st release.Status, at time.Time) *release.Release {
	ts := helmtime.Time{Time: at}
	manifest := fmt.Sprintf(`---
# Source: stale/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: stale
  namespace: %[1]s
spec:
  replicas: %[2]d
---
# Source: stale/templates/pdb.yaml
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: stale
  namespace: %[1]s
spec:
  minAvailable: 1
---
# Source: stale/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: stale-db
  namespace: %[1]s
stringData:
  password: %[3]s
`, ns, v, StalePassword)
	return &release.Release{
		Name: "stale", Namespace: ns, Version: v, Manifest: manifest,
		Info:   &release.Info{FirstDeployed: ts, LastDeployed: ts, Status: st, Description: "Upgrade complete"},
		Chart:  &chart.Chart{Metadata: &chart.Metadata{Name: "stale", Version: fmt.Sprintf("0.%d.0", v), AppVersion: "1.0", APIVersion: "v2"}},
		Config: map[string]interface{}{"replicas": v},
	}
}

// AddStale writes release stale to namespace default: revision 1 superseded,
// revision 2 deployed, both on policy/v1beta1.
func (f *Fixture) AddStale(t testing.TB) {
	t.Helper()
	drv := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: ChunkSize})
	for v, st := range map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusDeployed} {
		if err := drv.Create(storage.RecordKey("stale", v), StaleRelease("default", v, st, Now.Add(-time.Duration(3-v)*24*time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
}

// Served is what a Kubernetes 1.37 cluster's discovery says of the kinds the
// samples use, as the TUI's tests feed it: the demo's cluster holds no
// objects and has no discovery of its own. policy is served at v1 only.
func Served() *apis.Served {
	kinds := []struct{ gv, kind, resource string }{
		{"v1", "ConfigMap", "configmaps"}, {"v1", "Secret", "secrets"}, {"v1", "Service", "services"}, {"v1", "Pod", "pods"},
		{"apps/v1", "Deployment", "deployments"},
		{"batch/v1", "Job", "jobs"}, {"batch/v1", "CronJob", "cronjobs"},
		{"policy/v1", "PodDisruptionBudget", "poddisruptionbudgets"},
	}
	lists := map[string]*metav1.APIResourceList{}
	var order []string
	for _, k := range kinds {
		l := lists[k.gv]
		if l == nil {
			l = &metav1.APIResourceList{GroupVersion: k.gv}
			lists[k.gv] = l
			order = append(order, k.gv)
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: k.resource, Kind: k.kind, Namespaced: true})
	}
	var groups []*metav1.APIGroup
	var out []*metav1.APIResourceList
	for _, gv := range order {
		pgv, _ := schema.ParseGroupVersion(gv)
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: pgv.Version}
		groups = append(groups, &metav1.APIGroup{Name: pgv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
		out = append(out, lists[gv])
	}
	return apis.NewServed(groups, out, nil, apis.ServerVersion("1", "37"))
}
