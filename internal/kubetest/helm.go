package kubetest

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// WebappChart is a chart built in code: a ConfigMap of settings, a Secret with the
// database password, a ConfigMap of poorly compressible data (so a release spans
// several chunks) and, when .Values.extra is set, one more ConfigMap.
func WebappChart(version string) *chart.Chart {
	tpl := func(name, body string) *chart.File { return &chart.File{Name: "templates/" + name, Data: []byte(body)} }
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "webapp", Version: version, AppVersion: "2.0", APIVersion: "v2"},
		Templates: []*chart.File{
			tpl("config.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  color: {{ .Values.color | quote }}
  replicas: {{ .Values.replicaCount | quote }}
`),
			tpl("secret.yaml", `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-db
type: Opaque
stringData:
  user: {{ .Values.db.user | quote }}
  password: {{ .Values.db.password | quote }}
`),
			tpl("blob.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-blob
data:
  blob: {{ .Values.blob | quote }}
`),
			tpl("extra.yaml", `{{- if .Values.extra }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-extra
data:
  enabled: "true"
{{- end }}
`),
		},
		Values: map[string]interface{}{
			"color":        "blue",
			"replicaCount": 1,
			"extra":        false,
			"blob":         "",
			"db":           map[string]interface{}{"user": "app", "password": "changeme"},
		},
	}
}

// WebappValues returns the user-supplied values of step i of a release's life.
func WebappValues(name string, i int, blob int) map[string]interface{} {
	return map[string]interface{}{
		"color":        []string{"blue", "green", "red", "amber"}[i%4],
		"replicaCount": i + 1,
		"extra":        i%2 == 1,
		"blob":         Noise(fmt.Sprintf("%s-%d", name, i), blob),
		"db":           map[string]interface{}{"password": fmt.Sprintf("s3cr3t-%s-%d", name, i)},
	}
}

// HelmConfig is Helm's action configuration as an operator or the helm CLI would
// set it up, with d as its storage driver and resources going to releaseNS.
func HelmConfig(t testing.TB, kubeconfig, releaseNS string, d driver.Driver) *action.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	cache := t.TempDir()
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &kubeconfig, &releaseNS, &cache
	cfg := new(action.Configuration)
	if err := cfg.Init(flags, releaseNS, "memory", func(string, ...interface{}) {}); err != nil {
		t.Fatalf("helm action configuration: %v", err)
	}
	cfg.Releases = helmstorage.Init(d)
	return cfg
}

// HelmInstall installs the webapp chart as release name.
func HelmInstall(t *testing.T, cfg *action.Configuration, releaseNS, name string, vals map[string]interface{}) *release.Release {
	t.Helper()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, releaseNS
	rls, err := in.Run(WebappChart("1.0.0"), vals)
	if err != nil {
		t.Fatalf("helm install %s: %v", name, err)
	}
	return rls
}

// HelmUpgrade upgrades release name to chart version version with vals.
func HelmUpgrade(t *testing.T, cfg *action.Configuration, releaseNS, name, version string, vals map[string]interface{}) *release.Release {
	t.Helper()
	rls, err := TryHelmUpgrade(cfg, releaseNS, name, version, vals)
	if err != nil {
		t.Fatalf("helm upgrade %s: %v", name, err)
	}
	return rls
}

func TryHelmUpgrade(cfg *action.Configuration, releaseNS, name, version string, vals map[string]interface{}) (*release.Release, error) {
	up := action.NewUpgrade(cfg)
	up.Namespace = releaseNS
	return up.Run(name, WebappChart(version), vals)
}

// ConfigMapData returns the data of ConfigMap ns/name, nil if it does not exist.
func ConfigMapData(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	cm, err := Cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data == nil {
		return map[string]string{}
	}
	return cm.Data
}
