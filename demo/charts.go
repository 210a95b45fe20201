package demo

import (
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
