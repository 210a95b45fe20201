package demo

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// The sample charts are real charts: templates in Helm's template language, a
// values.yaml, files. Seed renders them with Helm's engine, so every manifest is
// what Helm would have stored. Their bulk (certificates, model weights, dashboard
// thumbnails, a JavaScript bundle, CRD schemas) comes from a PRNG with a fixed seed:
// it is poorly compressible, so the large releases really span several chunks, and
// the same on every run.

// contentSeed seeds every generated file; each file mixes in its own name.
const contentSeed = 0x5eed_c4a2_7d01

// prng returns the generator for one named piece of content.
func prng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(contentSeed, h.Sum64()))
}

// chartSpec is a chart before it is assembled: CHART in templates stands for the
// chart's name, as in the define names `helm create` writes.
type chartSpec struct {
	name, version, appVersion, description, home, icon string
	keywords                                           []string
	templates                                          map[string]string // path under templates/
	files                                              map[string][]byte // path in the chart
	values                                             string            // values.yaml
}

// build assembles the chart as Helm's loader would: Chart.yaml into Metadata,
// values.yaml into Values, templates/ into Templates, the rest into Files.
func (s chartSpec) build() (*chart.Chart, error) {
	vals, err := chartutil.ReadValues([]byte(s.values))
	if err != nil {
		return nil, fmt.Errorf("chart %s-%s: values.yaml: %w", s.name, s.version, err)
	}
	c := &chart.Chart{
		Metadata: &chart.Metadata{
			APIVersion:  chart.APIVersionV2,
			Name:        s.name,
			Version:     s.version,
			AppVersion:  s.appVersion,
			Description: s.description,
			Home:        s.home,
			Icon:        s.icon,
			Keywords:    s.keywords,
			Type:        "application",
			Maintainers: []*chart.Maintainer{{Name: "Platform Team", Email: "platform@example.com"}},
			Sources:     []string{s.home},
		},
		Values: vals,
	}
	all := map[string]string{"_helpers.tpl": helpersTpl, "NOTES.txt": notesTxt}
	for k, v := range commonTemplates {
		all[k] = v
	}
	for k, v := range s.templates {
		all[k] = v
	}
	for _, p := range slices.Sorted(maps.Keys(all)) {
		c.Templates = append(c.Templates, &chart.File{Name: "templates/" + p, Data: []byte(strings.ReplaceAll(all[p], "CHART", s.name))})
	}
	files := map[string][]byte{
		"README.md":   []byte(fmt.Sprintf("# %s\n\n%s\n\n## Installing\n\n    helm install %s ./%s\n", s.name, s.description, s.name, s.name)),
		".helmignore": []byte(".DS_Store\n.git/\n*.swp\n*.bak\n*.tmp\n.idea/\n.vscode/\n"),
	}
	for k, v := range s.files {
		files[k] = v
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		c.Files = append(c.Files, &chart.File{Name: p, Data: files[p]})
	}
	c.Raw = append([]*chart.File{{Name: "values.yaml", Data: []byte(s.values)}}, c.Files...)
	return c, nil
}

// baseValues is the values.yaml every sample chart starts from, `helm create`
// style; chart-specific keys follow it.
func baseValues(repo string, port int, config string) string {
	return fmt.Sprintf(`# Default values. Override them with -f or --set.
replicaCount: 1

image:
  repository: %s
  pullPolicy: IfNotPresent
  # Overrides the image tag whose default is the chart appVersion.
  tag: ""

nameOverride: ""
fullnameOverride: ""

serviceAccount:
  create: true
  annotations: {}
  name: ""

podAnnotations: {}

service:
  type: ClusterIP
  port: 80
  targetPort: %d

ingress:
  enabled: false
  className: nginx
  host: ""
  tls: false

resources:
  limits:
    cpu: 500m
    memory: 256Mi
  requests:
    cpu: 100m
    memory: 64Mi

autoscaling:
  enabled: false
  minReplicas: 2
  maxReplicas: 10
  targetCPUUtilizationPercentage: 80

probes:
  path: /healthz

# config becomes the ConfigMap the pods read their environment from.
config:%s

# database, when host is set, becomes a Secret the pods and the migration hook read.
database: {}

# secrets are extra keys of that Secret.
secrets: {}

migrations:
  enabled: false
`, repo, port, config)
}

const helpersTpl = `{{/*
Expand the name of the chart.
*/}}
{{- define "CHART.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
*/}}
{{- define "CHART.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "CHART.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "CHART.labels" -}}
helm.sh/chart: {{ include "CHART.chart" . }}
{{ include "CHART.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "CHART.selectorLabels" -}}
app.kubernetes.io/name: {{ include "CHART.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "CHART.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "CHART.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}
`

const notesTxt = `1. Get the application URL by running these commands:
{{- if .Values.ingress.enabled }}
  http{{ if .Values.ingress.tls }}s{{ end }}://{{ .Values.ingress.host }}/
{{- else }}
  export POD_NAME=$(kubectl get pods --namespace {{ .Release.Namespace }} -l "app.kubernetes.io/name={{ include "CHART.name" . }},app.kubernetes.io/instance={{ .Release.Name }}" -o jsonpath="{.items[0].metadata.name}")
  kubectl --namespace {{ .Release.Namespace }} port-forward $POD_NAME 8080:{{ .Values.service.targetPort }}
  echo "Visit http://127.0.0.1:8080 to use your application"
{{- end }}
{{- if .Values.migrations.enabled }}

2. Database migrations run as a pre-install/pre-upgrade hook:
  kubectl --namespace {{ .Release.Namespace }} logs job/{{ include "CHART.fullname" . }}-migrate
{{- end }}
`

// commonTemplates are the templates every sample chart has.
var commonTemplates = map[string]string{
	"serviceaccount.yaml": `{{- if .Values.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "CHART.serviceAccountName" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
`,
	"configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
data:
  {{- range $k, $v := .Values.config }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
`,
	"secret.yaml": `{{- if .Values.database.host }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "CHART.fullname" . }}-db
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
type: Opaque
data:
  DATABASE_HOST: {{ .Values.database.host | b64enc | quote }}
  DATABASE_NAME: {{ .Values.database.name | b64enc | quote }}
  DATABASE_USER: {{ .Values.database.user | b64enc | quote }}
  DATABASE_PASSWORD: {{ .Values.database.password | b64enc | quote }}
  {{- range $k, $v := .Values.secrets }}
  {{ $k }}: {{ $v | b64enc | quote }}
  {{- end }}
{{- end }}
`,
	"deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "CHART.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      labels:
        {{- include "CHART.selectorLabels" . | nindent 8 }}
    spec:
      serviceAccountName: {{ include "CHART.serviceAccountName" . }}
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
          ports:
            - name: http
              containerPort: {{ .Values.service.targetPort }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "CHART.fullname" . }}
            {{- if .Values.database.host }}
            - secretRef:
                name: {{ include "CHART.fullname" . }}-db
            {{- end }}
          livenessProbe:
            httpGet:
              path: {{ .Values.probes.path }}
              port: http
          readinessProbe:
            httpGet:
              path: {{ .Values.probes.path }}
              port: http
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
`,
	"service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
      name: http
  selector:
    {{- include "CHART.selectorLabels" . | nindent 4 }}
`,
	"hpa.yaml": `{{- if .Values.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "CHART.fullname" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .Values.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
`,
	"ingress.yaml": `{{- if .Values.ingress.enabled -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "CHART.fullname" . }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt-prod
spec:
  ingressClassName: {{ .Values.ingress.className }}
  {{- if .Values.ingress.tls }}
  tls:
    - hosts:
        - {{ .Values.ingress.host | quote }}
      secretName: {{ include "CHART.fullname" . }}-tls
  {{- end }}
  rules:
    - host: {{ .Values.ingress.host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ include "CHART.fullname" . }}
                port:
                  number: {{ .Values.service.port }}
{{- end }}
`,
	"hooks/migrate-job.yaml": `{{- if .Values.migrations.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "CHART.fullname" . }}-migrate
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": "-5"
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
spec:
  backoffLimit: 2
  activeDeadlineSeconds: 600
  template:
    metadata:
      labels:
        {{- include "CHART.selectorLabels" . | nindent 8 }}
    spec:
      restartPolicy: Never
      serviceAccountName: {{ include "CHART.serviceAccountName" . }}
      containers:
        - name: migrate
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          args: ["migrate", "up", "--lock-timeout=60s"]
          envFrom:
            - secretRef:
                name: {{ include "CHART.fullname" . }}-db
{{- end }}
`,
	"tests/test-connection.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: "{{ include "CHART.fullname" . }}-test-connection"
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
  annotations:
    "helm.sh/hook": test
    "helm.sh/hook-delete-policy": before-hook-creation
spec:
  containers:
    - name: wget
      image: busybox:1.36
      command: ['wget']
      args: ['{{ include "CHART.fullname" . }}:{{ .Values.service.port }}{{ .Values.probes.path }}']
  restartPolicy: Never
`,
}

// --- generated content ---

var words = strings.Fields(`the a of to is for and in that with be by on as this are
it or from field when an which if must not resource object value will specified
name namespace certificate issuer secret key private public duration renew before
default used reference kind group status condition reason message type true false
selector label annotation domain DNS URI IP address email subject organization
country locality province street postal code serial number usage signing encipherment
server client authentication authority chain trust bundle revision request approved
denied ready issuing order challenge solver http01 dns01 ingress class gateway
route provider webhook token account registration external binding ACME endpoint
preferred algorithm RSA ECDSA Ed25519 size encoding PKCS1 PKCS8 rotation policy
always never observed generation time last transition keystore password JKS PKCS12
truststore template annotations labels additional output format combined PEM DER
literal subject alternative names common deprecated instead use set will be ignored
maximum minimum number seconds minutes hours timeout retry backoff interval`)

// prose returns n words of generated documentation text.
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := words[r.IntN(len(words))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i%11 == 10 && i < n-1 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('.')
	return b.String()
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// wrap64 is base64 in 64-character lines, as PEM has it.
func wrap64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 64 {
		out.WriteString(s[:64])
		out.WriteByte('\n')
		s = s[64:]
	}
	out.WriteString(s)
	out.WriteByte('\n')
	return out.String()
}

// caBundle returns a PEM bundle of n certificates, each with the comment block
// distribution bundles carry.
func caBundle(r *rand.Rand, n int) []byte {
	orgs := []string{"GlobalTrust", "Certum", "DigiSign", "Entrust", "SecureNet", "QuoVadis", "Sectigo", "Actalis", "Buypass", "HARICA", "IdenTrust", "TrustCor"}
	var b strings.Builder
	b.WriteString("# Mozilla CA certificate store in PEM format, as shipped by the ledger base image.\n")
	for i := range n {
		org := orgs[r.IntN(len(orgs))]
		fmt.Fprintf(&b, "\n# %s Root CA %d\n# Serial: %d\n-----BEGIN CERTIFICATE-----\n", org, 2000+r.IntN(25), r.Uint64())
		b.WriteString(wrap64(randomBytes(r, 850+r.IntN(600))))
		b.WriteString("-----END CERTIFICATE-----\n")
		_ = i
	}
	return []byte(b.String())
}

// jsBundle returns a minified-looking JavaScript bundle of about n bytes.
func jsBundle(r *rand.Rand, n int) []byte {
	kw := []string{"function", "return", "var", "const", "let", "if", "else", "for", "new", "this", "null", "typeof", "void", "=>", "===", "!==", "&&", "||"}
	api := []string{"createElement", "useState", "useEffect", "fetch", "then", "catch", "JSON.parse", "Object.assign", "Array.isArray", "Promise.all", "addEventListener", "querySelector", "setTimeout", "localStorage", "dispatch", "render"}
	var b strings.Builder
	b.WriteString("/*! web-frontend | (c) Example Corp | MIT */\n(()=>{\"use strict\";")
	for b.Len() < n {
		switch r.IntN(6) {
		case 0:
			b.WriteString(kw[r.IntN(len(kw))])
		case 1:
			b.WriteString(api[r.IntN(len(api))])
		case 2:
			fmt.Fprintf(&b, "_0x%04x", r.IntN(1<<16))
		case 3:
			fmt.Fprintf(&b, "%c%c", 'a'+r.IntN(26), 'a'+r.IntN(26))
		case 4:
			fmt.Fprintf(&b, "\"%s\"", base64.RawStdEncoding.EncodeToString(randomBytes(r, 6+r.IntN(18))))
		default:
			b.WriteString([]string{"(", ")", "{", "}", ";", ",", ".", "=", "+", "[", "]", ":", "?"}[r.IntN(13)])
		}
	}
	b.WriteString("})();\n")
	return []byte(b.String())
}

// dashboard returns a Grafana dashboard with panels and a PNG thumbnail.
func dashboard(r *rand.Rand, title string, panels, thumbBytes int) []byte {
	type target struct {
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
		RefID        string `json:"refId"`
	}
	type panel struct {
		ID      int               `json:"id"`
		Title   string            `json:"title"`
		Type    string            `json:"type"`
		GridPos map[string]int    `json:"gridPos"`
		Targets []target          `json:"targets"`
		Options map[string]string `json:"options"`
	}
	metrics := []string{"http_requests_total", "http_request_duration_seconds_bucket", "process_cpu_seconds_total", "container_memory_working_set_bytes", "kube_pod_container_status_restarts_total", "grpc_server_handled_total", "payments_authorized_total", "ledger_entries_written_total", "go_gc_duration_seconds"}
	types := []string{"timeseries", "stat", "gauge", "table", "heatmap", "bargauge"}
	d := map[string]any{
		"title":         title,
		"uid":           base64.RawURLEncoding.EncodeToString(randomBytes(r, 9)),
		"schemaVersion": 39,
		"version":       1 + r.IntN(40),
		"tags":          []string{"generated", "sre"},
		"time":          map[string]string{"from": "now-6h", "to": "now"},
		"thumbnail":     "data:image/png;base64," + base64.StdEncoding.EncodeToString(randomBytes(r, thumbBytes)),
	}
	var ps []panel
	for i := range panels {
		m := metrics[r.IntN(len(metrics))]
		ps = append(ps, panel{
			ID: i + 1, Title: strings.TrimSuffix(prose(r, 3+r.IntN(4)), "."), Type: types[r.IntN(len(types))],
			GridPos: map[string]int{"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i / 2)},
			Targets: []target{{Expr: fmt.Sprintf("sum(rate(%s{namespace=~\"$namespace\",pod=~\"$pod\"}[5m])) by (%s)", m, []string{"pod", "code", "le", "route"}[r.IntN(4)]), LegendFormat: "{{pod}}", RefID: "A"}},
			Options: map[string]string{"legend": "bottom", "tooltip": "multi"},
		})
	}
	d["panels"] = ps
	b, _ := json.MarshalIndent(d, "", "  ")
	return b
}

// crdYAML returns a CustomResourceDefinition with a generated OpenAPI schema of
// about props properties per version, documented at length as real CRDs are.
func crdYAML(r *rand.Rand, group, kind, plural string, props int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s.%s
  labels:
    app.kubernetes.io/name: cert-manager
    app.kubernetes.io/instance: '{{ .Release.Name }}'
    app.kubernetes.io/version: '{{ .Chart.AppVersion }}'
  annotations:
    helm.sh/resource-policy: keep
spec:
  group: %s
  names:
    kind: %s
    listKind: %sList
    plural: %s
    singular: %s
    categories:
      - cert-manager
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
      schema:
        openAPIV3Schema:
          description: |-
            %s
          type: object
          properties:
            spec:
              type: object
              properties:
`, plural, group, group, kind, kind, plural, strings.ToLower(kind), prose(r, 40))
	for i := range props {
		name := fmt.Sprintf("%s%s%d", words[r.IntN(len(words))], strings.ToUpper(words[r.IntN(len(words))][:1]), i)
		typ := []string{"string", "integer", "boolean", "array", "object"}[r.IntN(5)]
		fmt.Fprintf(&b, "                %s:\n                  description: |-\n                    %s\n                  type: %s\n", name, prose(r, 25+r.IntN(60)), typ)
		if typ == "array" {
			b.WriteString("                  items:\n                    type: string\n")
		}
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, "                  x-kubernetes-validations:\n                    - rule: self.size() <= %d\n                      message: %s\n", 1+r.IntN(512), prose(r, 8))
		}
	}
	b.WriteString("            status:\n              type: object\n              x-kubernetes-preserve-unknown-fields: true\n")
	return b.String()
}
