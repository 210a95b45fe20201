package ops_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/storage/driver"
	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kube4 "helm.sh/helm/v4/pkg/kube"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// widgetGroup is the group of the test's custom resource, whose CRD served
// v1alpha1 and v1 until v1alpha1 was removed from its spec.versions.
const widgetGroup = "fixapis.chunkview.dev"

// legacyTemplates is a chart of objects whose API versions a 1.37 API server
// still serves, each the successor of one it no longer serves, and a hook:
// what an upgraded chart renders today. stale writes them back as a cluster
// of Kubernetes 1.24 (and one with the CRD's old version) stored them.
var legacyTemplates = map[string]string{
	"config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  version: {{ .Chart.Version | quote }}
`,
	"secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-db
type: Opaque
stringData:
  password: {{ .Values.password | quote }}
`,
	"pdb.yaml": `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .Release.Name }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: {{ .Release.Name }}
`,
	"hpa.yaml": `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .Release.Name }}
  minReplicas: 1
  maxReplicas: 3
`,
	"vac.yaml": `apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata:
  name: {{ .Release.Namespace }}-{{ .Release.Name }}
driverName: csi.example.com
parameters:
  iops: "3000"
`,
	"widget.yaml": `apiVersion: fixapis.chunkview.dev/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}
spec:
  size: 1
`,
	"report.yaml": `apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ .Release.Name }}-report
  annotations:
    "helm.sh/hook": post-install,post-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: report
            image: busybox
`,
}

// legacyChart3 and legacyChart4 are the chart, in each Helm's types.
func legacyChart3(version string) *chart.Chart {
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "legacy", Version: version, AppVersion: "1.0"}, Values: map[string]any{"password": "changeme"}}
	for name, body := range legacyTemplates {
		c.Templates = append(c.Templates, &chart.File{Name: "templates/" + name, Data: []byte(body)})
	}
	return c
}

func legacyChart4(version string) *chart4.Chart {
	c := &chart4.Chart{Metadata: &chart4.Metadata{APIVersion: "v2", Name: "legacy", Version: version, AppVersion: "1.0"}, Values: map[string]any{"password": "changeme"}}
	for name, body := range legacyTemplates {
		c.Templates = append(c.Templates, &chartcommon4.File{Name: "templates/" + name, Data: []byte(body)})
	}
	return c
}

// staleVersions are what an old cluster's release stored in place of each
// successor, and the PodSecurityPolicy that Kubernetes 1.25 removed with no
// successor.
var staleVersions = strings.NewReplacer(
	"apiVersion: policy/v1\n", "apiVersion: policy/v1beta1\n",
	"apiVersion: autoscaling/v2\n", "apiVersion: autoscaling/v2beta2\n",
	"apiVersion: storage.k8s.io/v1\n", "apiVersion: storage.k8s.io/v1beta1\n",
	"apiVersion: "+widgetGroup+"/v1\n", "apiVersion: "+widgetGroup+"/v1alpha1\n",
	"apiVersion: batch/v1\n", "apiVersion: batch/v1beta1\n",
)

const stalePSP = `---
# Source: legacy/templates/psp.yaml
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: legacy-restricted
spec:
  privileged: false
`

// staleManifest is manifest as a cluster of Kubernetes 1.24 stored it.
func staleManifest(t *testing.T, manifest string) string {
	t.Helper()
	out := staleVersions.Replace(manifest) + stalePSP
	for _, old := range []string{"policy/v1beta1\nkind: PodDisruptionBudget", "autoscaling/v2beta2", "storage.k8s.io/v1beta1", widgetGroup + "/v1alpha1"} {
		if !strings.Contains(out, old) {
			t.Fatalf("the stale manifest lacks %s:\n%s", old, out)
		}
	}
	return out
}

// legacyRefs are the objects of the stale manifest and hooks the cluster does
// not serve, as Finding.Ref names them, with their stale versions.
func legacyRefs(name, ns string) []string {
	return []string{
		"PodDisruptionBudget/" + name + " (policy/v1beta1)",
		"HorizontalPodAutoscaler/" + name + " (autoscaling/v2beta2)",
		"VolumeAttributesClass/" + ns + "-" + name + " (storage.k8s.io/v1beta1)",
		"Widget/" + name + " (" + widgetGroup + "/v1alpha1)",
		"PodSecurityPolicy/legacy-restricted (policy/v1beta1)",
		"CronJob/" + name + "-report (batch/v1beta1)",
	}
}

// installWidgetCRD installs the Widget CRD with v1alpha1 and v1 served, v1
// stored, then removes v1alpha1 from spec.versions, as an operator's upgrade
// does once nothing is stored at it, and waits until discovery says so. It is
// removed when the test ends.
func installWidgetCRD(t *testing.T, c *kube.Client) {
	t.Helper()
	ctx := t.Context()
	cs, err := apiextensions.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	keep := true
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + widgetGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGroup, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Storage: false, Schema: schema},
				{Name: "v1", Served: true, Storage: true, Schema: schema},
			},
		},
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the Widget CRD: %v", err)
	}
	t.Cleanup(func() { _ = crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}) })
	waitServed(t, c, widgetGroup+"/v1alpha1", apis.IsServed)
	got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Versions = got.Spec.Versions[1:]
	if _, err := crds.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("remove v1alpha1 from the Widget CRD's spec.versions: %v", err)
	}
	waitServed(t, c, widgetGroup+"/v1alpha1", apis.NotServed)
	waitServed(t, c, widgetGroup+"/v1", apis.IsServed)
}

// waitServed waits until discovery says want of Widgets at apiVersion.
func waitServed(t *testing.T, c *kube.Client, apiVersion string, want apis.Serving) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		s, err := c.ServedAPIs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.Serves(apiVersion, "Widget") == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("discovery still says %v of Widgets at %s, want %v", s.Serves(apiVersion, "Widget"), apiVersion, want)
		}
	}
}

// staleRecord3 rewrites the latest record of release name, through Helm 3's
// driver d, as a cluster of Kubernetes 1.24 left it.
func staleRecord3(t *testing.T, d driver.Driver, name string) {
	t.Helper()
	key := "sh.helm.release.v1." + name + ".v1"
	rls, err := d.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	rls.Manifest = staleManifest(t, rls.Manifest)
	for _, h := range rls.Hooks {
		h.Manifest = staleVersions.Replace(h.Manifest)
	}
	if err := d.Update(key, rls); err != nil {
		t.Fatal(err)
	}
}

// staleRecord4 is staleRecord3 through Helm 4's driver.
func staleRecord4(t *testing.T, d driver4.Driver, name string) {
	t.Helper()
	rls := record4(t, d, name, 1)
	rls.Manifest = staleManifest(t, rls.Manifest)
	for _, h := range rls.Hooks {
		h.Manifest = staleVersions.Replace(h.Manifest)
	}
	if err := d.Update("sh.helm.release.v1."+name+".v1", rls); err != nil {
		t.Fatal(err)
	}
}

// install3 and upgrade3 run Helm 3's own actions on the legacy chart.
func install3(t *testing.T, cfg *action.Configuration, ns, name string) {
	t.Helper()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	if _, err := in.Run(legacyChart3("1.0.0"), map[string]any{"password": "s3cr3t-" + name}); err != nil {
		t.Fatalf("helm 3 install %s: %v", name, err)
	}
}

func upgrade3(cfg *action.Configuration, ns, name, version string) error {
	up := action.NewUpgrade(cfg)
	up.Namespace = ns
	_, err := up.Run(name, legacyChart3(version), map[string]any{"password": "s3cr3t-" + name})
	return err
}

// installLegacy4 and upgradeLegacy4 run Helm 4's own actions on the legacy
// chart, as its CLI does (server-side apply, --server-side=auto on upgrade).
func installLegacy4(t *testing.T, cfg *action4.Configuration, ns, name string) {
	t.Helper()
	in := action4.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	in.ServerSideApply = true
	in.WaitStrategy = kube4.HookOnlyStrategy
	if _, err := in.Run(legacyChart4("1.0.0"), map[string]any{"password": "s3cr3t-" + name}); err != nil {
		t.Fatalf("helm 4 install %s: %v", name, err)
	}
}

func upgradeLegacy4(cfg *action4.Configuration, ns, name, version string) error {
	up := action4.NewUpgrade(cfg)
	up.Namespace = ns
	up.WaitStrategy = kube4.HookOnlyStrategy
	_, err := up.Run(name, legacyChart4(version), map[string]any{"password": "s3cr3t-" + name})
	return err
}

// historyLine is one revision as a Helm's history action lists it.
type historyLine struct {
	Version     int
	Status      string
	Description string
}

func (h historyLine) String() string {
	return fmt.Sprintf("%d %s %q", h.Version, h.Status, h.Description)
}

// history3 lists release name's revisions with Helm 3's history action over d.
func history3(t *testing.T, kc, ns string, d driver.Driver, name string) []historyLine {
	t.Helper()
	rels, err := action.NewHistory(helmConfig(t, kc, ns, d)).Run(name)
	if err != nil {
		t.Fatalf("helm 3 history %s: %v", name, err)
	}
	var out []historyLine
	for _, r := range rels {
		out = append(out, historyLine{r.Version, r.Info.Status.String(), r.Info.Description})
	}
	return out
}

// historyOf4 lists release name's revisions with Helm 4's history action over d.
func historyOf4(t *testing.T, kc, ns string, d driver4.Driver, name string) []historyLine {
	t.Helper()
	ris, err := action4.NewHistory(config4(t, kc, ns, "secret", d)).Run(name)
	if err != nil {
		t.Fatalf("helm 4 history %s: %v", name, err)
	}
	var out []historyLine
	for _, ri := range ris {
		r, ok := ri.(*release4.Release)
		if !ok {
			t.Fatalf("helm 4 history returned a %T", ri)
		}
		out = append(out, historyLine{r.Version, r.Info.Status.String(), r.Info.Description})
	}
	return out
}

// rawFields reads a record of Helm's Secrets or ConfigMaps driver as its JSON
// fields, by hand (base64, gzip, JSON): no Helm type stands between the record
// and what is compared, so a field no type knows is compared too.
func rawFields(t *testing.T, store, ns, key string) map[string]any {
	t.Helper()
	var b64 string
	if store == kube.DriverConfigMap {
		cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b64 = cm.Data["release"]
	} else {
		s, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b64 = string(s.Data["release"])
	}
	gz, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fieldsOf4 is a Helm 4 release as its JSON's fields.
func fieldsOf4(t *testing.T, rls *release4.Release) map[string]any {
	t.Helper()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutFixed is a record's fields less those a fix writes anew: its
// version, manifest, hooks' manifests, status, description and last
// deployed time.
func withoutFixed(fields map[string]any) map[string]any {
	delete(fields, "version")
	delete(fields, "manifest")
	if info, ok := fields["info"].(map[string]any); ok {
		delete(info, "status")
		delete(info, "description")
		delete(info, "last_deployed")
	}
	if hooks, ok := fields["hooks"].([]any); ok {
		for _, h := range hooks {
			if m, ok := h.(map[string]any); ok {
				delete(m, "manifest")
			}
		}
	}
	return fields
}
