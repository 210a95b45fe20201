package demo

import "fmt"

// The charts of the samples written through Helm's own drivers (helmStoreSamples).

func redisValues(replicas int, password, policy string) string {
	return fmt.Sprintf(`architecture: replication
auth:
  enabled: true
  password: %q
replica:
  replicaCount: %d
redisConfig:
  maxmemory: 768mb
  maxmemory-policy: %s
  appendonly: "yes"
metrics:
  enabled: true
`, password, replicas, policy)
}

func ingressValues(replicas int, metrics bool) string {
	return fmt.Sprintf(`controller:
  replicaCount: %d
  config:
    use-forwarded-headers: "true"
    proxy-body-size: 16m
    enable-real-ip: "true"
    log-format-escape-json: "true"
  metrics:
    enabled: %t
`, replicas, metrics)
}

func lokiValues(retentionDays int) string {
	return fmt.Sprintf(`loki:
  retention: %dd
  persistence:
    size: 50Gi
promtail:
  pipelineStages:
    - cri: {}
    - json:
        expressions:
          level: level
          trace_id: trace_id
    - labels:
        level: ""
`, retentionDays)
}

func redisChart(version string) chartSpec {
	return chartSpec{
		name: "redis", version: version, appVersion: map[string]string{"18.19.2": "7.2.4", "18.19.4": "7.2.4", "19.0.1": "7.2.4", "19.0.2": "7.2.5"}[version],
		description: "Redis(R) is an open source, advanced key-value store.",
		home:        "https://bitnami.com",
		icon:        "https://bitnami.com/assets/stacks/redis/img/redis-stack-220x234.png",
		keywords:    []string{"redis", "keyvalue", "database"},
		templates: map[string]string{
			"redis-configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-configuration
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
  redis.conf: |-
    # Generated from .Values.redisConfig
    {{- range $k, $v := .Values.redisConfig }}
    {{ $k }} {{ $v }}
    {{- end }}
  replica.conf: |-
    replica-read-only yes
    replica-serve-stale-data yes
`,
			"auth-secret.yaml": `{{- if .Values.auth.enabled }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
type: Opaque
data:
  redis-password: {{ .Values.auth.password | b64enc | quote }}
{{- end }}
`,
		},
		values: baseValues("docker.io/bitnami/redis", 6379, " {}") + `
architecture: standalone
auth:
  enabled: true
  password: ""
replica:
  replicaCount: 1
redisConfig:
  maxmemory: 256mb
  maxmemory-policy: noeviction
metrics:
  enabled: false
`,
	}
}

func ingressNginxChart(version string) chartSpec {
	return chartSpec{
		name: "ingress-nginx", version: version, appVersion: map[string]string{"4.10.1": "1.10.1", "4.11.2": "1.11.2", "4.11.3": "1.11.3"}[version],
		description: "Ingress controller for Kubernetes using NGINX as a reverse proxy and load balancer",
		home:        "https://github.com/kubernetes/ingress-nginx",
		icon:        "https://upload.wikimedia.org/wikipedia/commons/thumb/c/c5/Nginx_logo.svg/500px-Nginx_logo.svg.png",
		keywords:    []string{"ingress", "nginx"},
		templates:   ingressNginxTemplates,
		values: baseValues("registry.k8s.io/ingress-nginx/controller", 80, " {}") + `
controller:
  replicaCount: 1
  config: {}
  metrics:
    enabled: false
`,
	}
}

// ingressNginxTemplates are ingress-nginx's templates, the same in every version
// the demo holds.
var ingressNginxTemplates = map[string]string{
	"controller-configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-controller
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: controller
data:
  allow-snippet-annotations: "false"
  {{- range $k, $v := .Values.controller.config }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
`,
	"controller-ingressclass.yaml": `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: controller
spec:
  controller: k8s.io/ingress-nginx
`,
	"admission-webhooks/validating-webhook.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {{ include "CHART.fullname" . }}-admission
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: admission-webhook
webhooks:
  - name: validate.nginx.ingress.kubernetes.io
    matchPolicy: Equivalent
    rules:
      - apiGroups: ["networking.k8s.io"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["ingresses"]
    failurePolicy: Fail
    sideEffects: None
    admissionReviewVersions: ["v1"]
    clientConfig:
      service:
        name: {{ include "CHART.fullname" . }}-controller-admission
        namespace: {{ .Release.Namespace }}
        path: /networking/v1/ingresses
`,
	"admission-webhooks/job-create-secret.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "CHART.fullname" . }}-admission-create
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: admission-webhook
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
spec:
  template:
    spec:
      restartPolicy: OnFailure
      serviceAccountName: {{ include "CHART.serviceAccountName" . }}
      containers:
        - name: create
          image: "registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.4.3"
          args:
            - create
            - --host={{ include "CHART.fullname" . }}-controller-admission,{{ include "CHART.fullname" . }}-controller-admission.$(POD_NAMESPACE).svc
            - --namespace=$(POD_NAMESPACE)
            - --secret-name={{ include "CHART.fullname" . }}-admission
`,
}

// lokiVersions are the chart versions of LokiStackRelease's revisions, in order.
var lokiVersions = []string{"2.9.10", "2.9.11", "2.10.0", "2.10.1", "2.10.2"}

// lokiDashboards are the Grafana dashboards every loki-stack chart ships, and
// lokiTeamDashboards those its versions add, one more in each.
var (
	lokiDashboards = []string{
		"loki-chunks", "loki-deletion", "loki-logs", "loki-mixin-recording-rules",
		"loki-operational", "loki-reads", "loki-reads-resources", "loki-retention",
		"loki-writes", "loki-writes-resources", "promtail",
	}
	lokiTeamDashboards = []string{"logs-web", "logs-payments", "logs-ledger", "logs-risk", "logs-ingress"}
)

// Thumbnail sizes of the loki-stack dashboards, in random bytes: each one stores
// about three times its thumbnail (base64 in the chart's files and in the
// rendered manifest, gzipped, then base64 again). They set the release's size.
const (
	lokiThumbBytes     = 22_430
	lokiTeamThumbBytes = 9_000
)

// lokiStackChart ships Grafana dashboards as ConfigMaps for the Grafana sidecar.
// A dashboard's content does not depend on the chart version, so each version is
// larger than the one before by its one added dashboard.
func lokiStackChart(version string) chartSpec {
	n := 0
	for i, v := range lokiVersions {
		if v == version {
			n = i + 1
		}
	}
	files := map[string][]byte{}
	for _, d := range lokiDashboards {
		files["dashboards/"+d+".json"] = dashboard(prng("loki-stack/"+d), d, 12, lokiThumbBytes)
	}
	for _, d := range lokiTeamDashboards[:n] {
		files["dashboards/"+d+".json"] = dashboard(prng("loki-stack/"+d), d, 8, lokiTeamThumbBytes)
	}
	return chartSpec{
		name: "loki-stack", version: version, appVersion: "v2.9.3",
		description: "Loki: like Prometheus, but for logs.",
		home:        "https://grafana.com/loki",
		icon:        "https://raw.githubusercontent.com/grafana/loki/master/docs/sources/logo.png",
		keywords:    []string{"loki", "logs", "promtail", "grafana"},
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
    grafana_folder: Logs
data:
  {{ base $path }}: |-
{{ $.Files.Get $path | indent 4 }}
{{- end }}
`,
			"loki-config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}-loki
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
  loki.yaml: |
    auth_enabled: false
    compactor:
      retention_enabled: true
    limits_config:
      retention_period: {{ .Values.loki.retention }}
    schema_config:
      configs:
        - from: "2024-04-01"
          store: tsdb
          object_store: filesystem
          schema: v13
          index:
            prefix: index_
            period: 24h
  promtail.yaml: |
    pipeline_stages:
      {{- toYaml .Values.promtail.pipelineStages | nindent 6 }}
`,
		},
		files: files,
		values: baseValues("grafana/loki", 3100, " {}") + `
loki:
  retention: 7d
  persistence:
    size: 10Gi
promtail:
  pipelineStages:
    - cri: {}
`,
	}
}
