package kubetest

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube/apis"
)

// WidgetGroup is the group of the legacy chart's custom resource, whose CRD
// (InstallWidgetCRD) served v1alpha1 and v1 until v1alpha1 was removed from
// its spec.versions.
const WidgetGroup = "fixapis.chunkview.dev"

// LegacyTemplates is a chart of objects whose API versions a 1.37 API server
// still serves, each the successor of one it no longer serves, a Secret and a
// hook: what an upgraded chart renders today. StaleManifest writes them back
// as a cluster of Kubernetes 1.24 stored them. The Widget is rendered when
// .Values.widget is set (its CRD installed).
var LegacyTemplates = map[string]string{
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
	"widget.yaml": `{{- if .Values.widget }}
apiVersion: fixapis.chunkview.dev/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}
spec:
  size: 1
{{- end }}
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

// LegacyChart3 is the legacy chart in Helm 3's types.
func LegacyChart3(version string) *chart.Chart {
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "legacy", Version: version, AppVersion: "1.0"}, Values: map[string]any{"password": "changeme", "widget": false}}
	for name, body := range LegacyTemplates {
		c.Templates = append(c.Templates, &chart.File{Name: "templates/" + name, Data: []byte(body)})
	}
	return c
}

// LegacyValues are release name's values: its password, and whether it
// renders the Widget.
func LegacyValues(name string, widget bool) map[string]any {
	return map[string]any{"password": "s3cr3t-" + name, "widget": widget}
}

// StaleVersions is what an old cluster's release stored in place of each
// successor.
var StaleVersions = strings.NewReplacer(
	"apiVersion: policy/v1\n", "apiVersion: policy/v1beta1\n",
	"apiVersion: autoscaling/v2\n", "apiVersion: autoscaling/v2beta2\n",
	"apiVersion: storage.k8s.io/v1\n", "apiVersion: storage.k8s.io/v1beta1\n",
	"apiVersion: "+WidgetGroup+"/v1\n", "apiVersion: "+WidgetGroup+"/v1alpha1\n",
	"apiVersion: batch/v1\n", "apiVersion: batch/v1beta1\n",
)

// StalePSP is the PodSecurityPolicy the old cluster's release also held:
// Kubernetes 1.25 removed it, with no successor.
const StalePSP = `---
# Source: legacy/templates/psp.yaml
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: legacy-restricted
spec:
  privileged: false
`

// StaleManifest is manifest as a cluster of Kubernetes 1.24 stored it.
func StaleManifest(t testing.TB, manifest string) string {
	t.Helper()
	out := StaleVersions.Replace(manifest) + StalePSP
	for _, old := range []string{"policy/v1beta1\nkind: PodDisruptionBudget", "autoscaling/v2beta2", "storage.k8s.io/v1beta1"} {
		if !strings.Contains(out, old) {
			t.Fatalf("the stale manifest lacks %s:\n%s", old, out)
		}
	}
	return out
}

// LegacyRefs are the objects of the stale manifest and hooks the cluster does
// not serve, as apis.Finding names them (Ref and version), in order.
func LegacyRefs(name, ns string, widget bool) []string {
	out := []string{
		"PodDisruptionBudget/" + name + " (policy/v1beta1)",
		"HorizontalPodAutoscaler/" + name + " (autoscaling/v2beta2)",
		"VolumeAttributesClass/" + ns + "-" + name + " (storage.k8s.io/v1beta1)",
	}
	if widget {
		out = append(out, "Widget/"+name+" ("+WidgetGroup+"/v1alpha1)")
	}
	return append(out, "PodSecurityPolicy/legacy-restricted (policy/v1beta1)", "CronJob/"+name+"-report (batch/v1beta1)")
}

// InstallLegacy3 installs the legacy chart as release name with Helm 3's own
// install, then rewrites its record through d as an old cluster left it.
func InstallLegacy3(t testing.TB, cfg *action.Configuration, d driver.Driver, ns, name string, widget bool) {
	t.Helper()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	if _, err := in.Run(LegacyChart3("1.0.0"), LegacyValues(name, widget)); err != nil {
		t.Fatalf("helm 3 install %s: %v", name, err)
	}
	key := "sh.helm.release.v1." + name + ".v1"
	rls, err := d.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	rls.Manifest = StaleManifest(t, rls.Manifest)
	for _, h := range rls.Hooks {
		h.Manifest = StaleVersions.Replace(h.Manifest)
	}
	if err := d.Update(key, rls); err != nil {
		t.Fatal(err)
	}
}

// UpgradeLegacy3 runs Helm 3's own upgrade of release name to the legacy
// chart at version.
func UpgradeLegacy3(cfg *action.Configuration, ns, name, version string, widget bool) error {
	up := action.NewUpgrade(cfg)
	up.Namespace = ns
	_, err := up.Run(name, LegacyChart3(version), LegacyValues(name, widget))
	return err
}

// InstallWidgetCRD installs the Widget CRD with v1alpha1 and v1 served, v1
// stored, then removes v1alpha1 from spec.versions, as an operator's upgrade
// does once nothing is stored at it, and waits until discovery (served)
// says so. It is removed when the test ends.
func InstallWidgetCRD(t testing.TB, cfg *rest.Config, served func(context.Context) (*apis.Served, error)) {
	t.Helper()
	ctx := t.Context()
	cs, err := apiextensions.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	keep := true
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + WidgetGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: WidgetGroup, Scope: apiextensionsv1.NamespaceScoped,
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
	t.Cleanup(func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	waitWidgets(t, served, "v1alpha1", apis.IsServed)
	got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Versions = got.Spec.Versions[1:]
	if _, err := crds.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("remove v1alpha1 from the Widget CRD's spec.versions: %v", err)
	}
	waitWidgets(t, served, "v1alpha1", apis.NotServed)
	waitWidgets(t, served, "v1", apis.IsServed)
}

// waitWidgets waits until discovery says want of Widgets at version.
func waitWidgets(t testing.TB, served func(context.Context) (*apis.Served, error), version string, want apis.Serving) {
	t.Helper()
	apiVersion := WidgetGroup + "/" + version
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		s, err := served(t.Context())
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
