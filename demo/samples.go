package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// op is what a Helm command did to a release.
type op int

const (
	opInstall op = iota
	opUpgrade
	opRollback
)

// step is one Helm command in a sample release's history.
type step struct {
	op     op
	ago    time.Duration // when it started, before Seed's now
	took   time.Duration // how long it ran
	chart  string        // chart version (install, upgrade)
	values string        // user-supplied values, YAML (install, upgrade)
	to     int           // target revision (rollback)
	fail   string        // the error it failed with, if it failed
	stuck  bool          // it never finished: the revision stays pending
}

// sample is one release of the demo: where it is stored, its chart and its history.
type sample struct {
	name             string
	storageNamespace string
	namespace        string // the release's own namespace
	owner            string
	store            Store
	labels           map[string]string // custom labels: in the payload with the chunked driver, on the object with Helm's
	chart            func(version string) chartSpec
	steps            []step
}

const (
	day    = 24 * time.Hour
	hour   = time.Hour
	minute = time.Minute
)

// olmLabels are the release labels operator-controller sets on a ClusterExtension's
// release.
func olmLabels(ext, pkg, version string) map[string]string {
	return map[string]string{
		"olm.operatorframework.io/owner-kind":     "ClusterExtension",
		"olm.operatorframework.io/owner-name":     ext,
		"olm.operatorframework.io/package-name":   pkg,
		"olm.operatorframework.io/bundle-name":    pkg + ".v" + version,
		"olm.operatorframework.io/bundle-version": version,
	}
}

// samples are the demo's releases, in the order Seed writes them: the chunked
// ones, then helmStoreSamples.
func samples() []sample {
	return append(chunkedSamples(), helmStoreSamples()...)
}

// chunkedSamples are the releases Seed writes through the chunked driver.
func chunkedSamples() []sample {
	out := slices.Concat(appSamples(), paymentsSamples(), olmSamples())
	for i := range out {
		out[i].store = StoreChunked
	}
	return out
}

// appSamples is the application teams' releases: web, dashboards.
func appSamples() []sample {
	return []sample{
		{
			name: "podinfo", storageNamespace: "demo", namespace: "demo", owner: storage.HelmOwner,
			labels: map[string]string{"team": "web"},
			chart:  podinfoChart,
			steps: []step{
				{op: opInstall, ago: 30 * day, took: 41 * time.Second, chart: "6.5.4", values: "replicaCount: 1\n"},
				{op: opUpgrade, ago: 21*day + 4*hour, took: 38 * time.Second, chart: "6.5.4", values: "replicaCount: 2\nui:\n  message: Hello from the demo cluster\n"},
				{op: opUpgrade, ago: 3*day + 2*hour, took: 5*minute + 2*time.Second, chart: "6.6.0",
					values: "replicaCount: 3\nimage:\n  tag: 6.6.0-rc.1\nui:\n  message: Hello from the demo cluster\nresources:\n  limits:\n    memory: 64Mi\n",
					fail:   `context deadline exceeded: resource Deployment/demo/podinfo not ready. status: InProgress, message: Available: 1/3`},
				{op: opRollback, ago: 3*day + 1*hour + 40*minute, took: 29 * time.Second, to: 2},
			},
		},
		{
			name: "web-frontend", storageNamespace: "demo", namespace: "demo", owner: storage.HelmOwner,
			labels: map[string]string{"team": "web", "tier": "frontend"},
			chart:  webFrontendChart,
			steps: []step{
				{op: opInstall, ago: 60 * day, took: 52 * time.Second, chart: "2.3.1", values: webValues("app.example.com", 2, "")},
				{op: opUpgrade, ago: 33 * day, took: 47 * time.Second, chart: "2.4.0", values: webValues("app.example.com", 3, "checkout-v2")},
				{op: opUpgrade, ago: 5*day + 6*hour, took: 1*minute + 3*time.Second, chart: "2.5.0", values: webValues("app.example.com", 4, "checkout-v2,dark-mode")},
			},
		},
		{
			name: "grafana-dashboards", storageNamespace: "demo", namespace: "monitoring", owner: storage.HelmOwner,
			labels: map[string]string{"team": "sre"},
			chart:  dashboardsChart,
			steps: []step{
				{op: opInstall, ago: 45 * day, took: 12 * time.Second, chart: "0.9.2", values: "grafana:\n  folder: SRE\n"},
				{op: opUpgrade, ago: 9 * day, took: 14 * time.Second, chart: "0.10.0", values: "grafana:\n  folder: SRE\n"},
			},
		},
	}
}

// paymentsSamples is the payments namespace's releases, whose values hold secrets.
func paymentsSamples() []sample {
	return []sample{
		{
			name: "payments-api", storageNamespace: "payments", namespace: "payments", owner: storage.HelmOwner,
			labels: map[string]string{"team": "payments", "pci": "true"},
			chart:  paymentsChart,
			steps: []step{
				{op: opInstall, ago: 90 * day, took: 1*minute + 12*time.Second, chart: "1.8.0", values: paymentsValues("1.8.0", 2, "Xk9#mP2v$Lq7", "sk_live_51HqLzRExAmPlE0a1b2c3", false)},
				{op: opUpgrade, ago: 62 * day, took: 58 * time.Second, chart: "1.9.0", values: paymentsValues("1.9.0", 3, "Xk9#mP2v$Lq7", "sk_live_51HqLzRExAmPlE0a1b2c3", false)},
				{op: opUpgrade, ago: 14 * day, took: 1*minute + 31*time.Second, chart: "1.9.1", values: paymentsValues("1.9.1", 3, "r0tated-2q4W!zT8", "sk_live_51HqLzRExAmPlE0a1b2c3", false)},
				{op: opUpgrade, ago: 2 * day, took: 1*minute + 5*time.Second, chart: "1.9.1", values: paymentsValues("1.9.1", 4, "r0tated-2q4W!zT8", "sk_live_51HqLzRNeWkEy9d8e7f6", true)},
				{op: opUpgrade, ago: 47 * minute, chart: "2.0.0", values: paymentsValues("2.0.0", 4, "r0tated-2q4W!zT8", "sk_live_51HqLzRNeWkEy9d8e7f6", true), stuck: true},
			},
		},
		{
			name: "ledger", storageNamespace: "payments", namespace: "payments", owner: storage.HelmOwner,
			labels: map[string]string{"team": "payments"},
			chart:  ledgerChart,
			steps: []step{
				{op: opInstall, ago: 120 * day, took: 2*minute + 3*time.Second, chart: "3.2.0", values: ledgerValues(2, "pg-ledger-0.payments.svc", "L3dger!2024")},
				{op: opUpgrade, ago: 40 * day, took: 1*minute + 48*time.Second, chart: "3.3.0", values: ledgerValues(3, "pg-ledger-0.payments.svc", "L3dger!2024")},
				{op: opUpgrade, ago: 6 * day, took: 1*minute + 51*time.Second, chart: "3.3.0", values: ledgerValues(3, "pg-ledger-ha.payments.svc", "L3dger!2025-rot")},
			},
		},
		{
			name: "fraud-model", storageNamespace: "payments", namespace: "payments", owner: storage.HelmOwner,
			labels: map[string]string{"team": "risk"},
			chart:  fraudModelChart,
			steps: []step{
				{op: opInstall, ago: 25 * day, took: 3*minute + 10*time.Second, chart: "0.4.0", values: "replicaCount: 2\nconfig:\n  THRESHOLD: \"0.82\"\n"},
				{op: opUpgrade, ago: 4 * day, took: 2*minute + 44*time.Second, chart: "0.5.0", values: "replicaCount: 3\nconfig:\n  THRESHOLD: \"0.78\"\n"},
			},
		},
	}
}

// olmSamples is the releases OLMv1 installed for its ClusterExtensions.
func olmSamples() []sample {
	return []sample{
		{
			name: "cert-manager", storageNamespace: OLMNamespace, namespace: "cert-manager", owner: OLMOwner,
			chart: certManagerChart,
			steps: []step{
				{op: opInstall, ago: 75 * day, took: 2*minute + 20*time.Second, chart: "1.14.5", values: "installCRDs: true\nreplicaCount: 1\n"},
				{op: opUpgrade, ago: 31 * day, took: 2*minute + 2*time.Second, chart: "1.15.1", values: "installCRDs: true\nreplicaCount: 2\n"},
				{op: opUpgrade, ago: 8 * day, took: 1*minute + 57*time.Second, chart: "1.15.3", values: "installCRDs: true\nreplicaCount: 2\n"},
			},
		},
		{
			name: "argocd-operator", storageNamespace: OLMNamespace, namespace: "argocd", owner: OLMOwner,
			chart: argocdChart,
			steps: []step{
				{op: opInstall, ago: 50 * day, took: 1*minute + 5*time.Second, chart: "0.8.0", values: "replicaCount: 1\n"},
				{op: opUpgrade, ago: 12 * day, took: 59 * time.Second, chart: "0.9.1", values: "replicaCount: 1\nconfig:\n  ARGOCD_CLUSTER_CONFIG_NAMESPACES: argocd\n"},
			},
		},
	}
}

// Labels of the OLMv1 samples depend on the revision's bundle, so they are set per
// step: see labelsFor.
func labelsFor(s sample, chartVersion string) map[string]string {
	if s.owner == OLMOwner {
		return olmLabels(s.name, s.name, chartVersion)
	}
	return s.labels
}

func webValues(host string, replicas int, flags string) string {
	return fmt.Sprintf(`replicaCount: %d
ingress:
  enabled: true
  host: %s
  tls: true
config:
  FEATURE_FLAGS: %q
  API_BASE_URL: https://api.example.com
`, replicas, host, flags)
}

func paymentsValues(tag string, replicas int, dbPassword, stripeKey string, autoscale bool) string {
	return fmt.Sprintf(`replicaCount: %d
image:
  tag: %q
autoscaling:
  enabled: %t
  minReplicas: 4
  maxReplicas: 12
database:
  host: pg-payments.payments.svc
  name: payments
  user: payments_app
  password: %q
secrets:
  STRIPE_SECRET_KEY: %q
  WEBHOOK_SIGNING_SECRET: whsec_9f8e7d6c5b4a
config:
  LOG_LEVEL: info
  CURRENCY_DEFAULT: EUR
migrations:
  enabled: true
`, replicas, tag, autoscale, dbPassword, stripeKey)
}

func ledgerValues(replicas int, dbHost, dbPassword string) string {
	return fmt.Sprintf(`replicaCount: %d
database:
  host: %s
  name: ledger
  user: ledger
  password: %q
migrations:
  enabled: true
`, replicas, dbHost, dbPassword)
}

func podinfoChart(version string) chartSpec {
	return chartSpec{
		name: "podinfo", version: version, appVersion: version,
		description: "Podinfo Helm chart for Kubernetes",
		home:        "https://github.com/stefanprodan/podinfo",
		icon:        "https://raw.githubusercontent.com/stefanprodan/podinfo/gh-pages/cuddle_clap.gif",
		keywords:    []string{"podinfo", "demo"},
		templates: map[string]string{
			"ui-configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-ui
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
  PODINFO_UI_COLOR: {{ .Values.ui.color | quote }}
  PODINFO_UI_MESSAGE: {{ .Values.ui.message | quote }}
`,
		},
		values: baseValues("ghcr.io/stefanprodan/podinfo", 9898, "\n  PODINFO_CACHE_SERVER: \"\"\n") + `
ui:
  color: "#34577c"
  message: ""
`,
	}
}

func webFrontendChart(version string) chartSpec {
	size := map[string]int{"2.3.1": 40_000, "2.4.0": 75_000, "2.5.0": 120_000}[version]
	return chartSpec{
		name: "web-frontend", version: version, appVersion: version,
		description: "The storefront's single-page application, served by nginx",
		home:        "https://git.example.com/web/frontend",
		templates: map[string]string{
			"static-configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-static
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
{{ (.Files.Glob "static/*").AsConfig | indent 2 }}
`,
		},
		files: map[string][]byte{
			"static/app.js":     jsBundle(prng("web-frontend/app.js@"+version), size),
			"static/index.html": []byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>Storefront</title><script defer src=\"/app.js\"></script></head><body><div id=\"root\"></div></body></html>\n"),
		},
		values: baseValues("registry.example.com/web/frontend", 8080, " {}"),
	}
}

func dashboardsChart(version string) chartSpec {
	names := []string{"api-latency", "kubernetes-pods", "payments-overview", "ledger-throughput", "node-exporter", "ingress-nginx"}
	if version != "0.9.2" {
		names = append(names, "slo-burn-rate", "postgres")
	}
	files := map[string][]byte{}
	for _, n := range names {
		files["dashboards/"+n+".json"] = dashboard(prng("dashboards/"+n+"@"+version), n, 14, 17_000)
	}
	return chartSpec{
		name: "grafana-dashboards", version: version, appVersion: "10.4.2",
		description: "Grafana dashboards as ConfigMaps for the Grafana sidecar",
		home:        "https://git.example.com/sre/dashboards",
		templates: map[string]string{
			"dashboards.yaml": `{{- range $path, $_ := .Files.Glob "dashboards/*.json" }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" $ }}-{{ base $path | trimSuffix ".json" }}
  labels:
    {{- include "CHART.labels" $ | nindent 4 }}
    grafana_dashboard: "1"
  annotations:
    grafana_folder: {{ $.Values.grafana.folder | quote }}
data:
  {{ base $path }}: |-
{{ $.Files.Get $path | indent 4 }}
{{- end }}
`,
		},
		files:  files,
		values: baseValues("grafana/grafana", 3000, " {}") + "\ngrafana:\n  folder: General\n",
	}
}

func paymentsChart(version string) chartSpec {
	return chartSpec{
		name: "payments-api", version: version, appVersion: version,
		description: "Card payments API: authorizations, captures and refunds",
		home:        "https://git.example.com/payments/api",
		values:      baseValues("registry.example.com/payments/api", 8443, "\n  LOG_LEVEL: warn\n"),
	}
}

func ledgerChart(version string) chartSpec {
	return chartSpec{
		name: "ledger", version: version, appVersion: version,
		description: "Double-entry ledger service with its CA trust bundle",
		home:        "https://git.example.com/payments/ledger",
		templates: map[string]string{
			"ca-bundle.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-ca-bundle
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
  ca-bundle.crt: |-
{{ .Files.Get "files/ca-bundle.crt" | indent 4 }}
`,
		},
		files:  map[string][]byte{"files/ca-bundle.crt": caBundle(prng("ledger/ca-bundle@"+version), 95)},
		values: baseValues("registry.example.com/payments/ledger", 8080, " {}"),
	}
}

func fraudModelChart(version string) chartSpec {
	return chartSpec{
		name: "fraud-model", version: version, appVersion: version,
		description: "Fraud scoring model server with its ONNX weights",
		home:        "https://git.example.com/risk/fraud-model",
		templates: map[string]string{
			"model-configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-weights
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
binaryData:
  model.onnx: {{ .Files.Get "files/model.onnx" | b64enc }}
`,
		},
		files:  map[string][]byte{"files/model.onnx": randomBytes(prng("fraud-model/model.onnx@"+version), 150_000)},
		values: baseValues("registry.example.com/risk/fraud-model", 8500, "\n  THRESHOLD: \"0.9\"\n"),
	}
}

func certManagerChart(version string) chartSpec {
	crds := []struct{ kind, plural string }{
		{"Certificate", "certificates"}, {"Issuer", "issuers"}, {"ClusterIssuer", "clusterissuers"},
		{"CertificateRequest", "certificaterequests"}, {"Order", "orders"}, {"Challenge", "challenges"},
	}
	var tpl string
	for _, c := range crds {
		tpl += "---\n" + crdYAML(prng("cert-manager/"+c.plural+"@"+version), "cert-manager.io", c.kind, c.plural, 110)
	}
	return chartSpec{
		name: "cert-manager", version: version, appVersion: "v" + version,
		description: "A Helm chart for cert-manager",
		home:        "https://cert-manager.io",
		icon:        "https://raw.githubusercontent.com/cert-manager/community/4d35a69437d21b76322157e6284be4cd64e6d2b7/logo/logo-small.png",
		keywords:    []string{"cert-manager", "kube-lego", "letsencrypt", "tls"},
		templates:   map[string]string{"crds.yaml": "{{- if .Values.installCRDs }}\n" + tpl + "{{- end }}\n"},
		values:      baseValues("quay.io/jetstack/cert-manager-controller", 9402, " {}") + "\ninstallCRDs: false\n",
	}
}

func argocdChart(version string) chartSpec {
	return chartSpec{
		name: "argocd-operator", version: version, appVersion: version,
		description: "Argo CD operator, from its registry+v1 bundle",
		home:        "https://argocd-operator.readthedocs.io",
		values:      baseValues("quay.io/argoprojlabs/argocd-operator", 8080, " {}"),
	}
}

// markOLMv1 gives the index Secret of an OLMv1 sample what operator-controller
// puts on its own: a controller ownerReference to the ClusterExtension named after
// the release, and the release's labels on the Secret too.
func markOLMv1(ctx context.Context, c *fakeapi.Cluster, s sample, key, chartVersion string) error {
	yes := true
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": olmLabels(s.name, s.name, chartVersion),
		"ownerReferences": []metav1.OwnerReference{{
			APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterExtension", Name: s.name,
			UID: types.UID("c1e0-" + s.name), Controller: &yes, BlockOwnerDeletion: &yes,
		}},
	}})
	if err != nil {
		return err
	}
	if _, err := c.Clientset().CoreV1().Secrets(s.storageNamespace).Patch(ctx, key, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("mark %s as OLMv1's: %w", key, err)
	}
	return nil
}
