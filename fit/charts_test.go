package fit_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeChart writes a chart directory of files (path: content) and returns its
// path.
func writeChart(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "chart")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func writeFile(tb testing.TB, path, data string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// hookChart has a Deployment, a ConfigMap of its values, hooks of every kind an
// install meets (pre-install without a delete policy, post-install with one, a
// test hook that an install does not run), a CRD and notes.
func hookChart(tb testing.TB) string {
	return writeChart(tb, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: hooks\nversion: 2.1.0\nappVersion: \"7\"\n",
		"values.yaml": "greeting: hello\nreplicas: 1\nnested: {a: 1, b: 2}\n",
		"templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}, labels: {revision: "{{ .Release.Revision }}", upgrade: "{{ .Release.IsUpgrade }}"}}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: x, image: nginx}]}
`,
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-cm, namespace: {{ .Release.Namespace }}}
data:
  greeting: {{ .Values.greeting | quote }}
  nested: {{ toJson .Values.nested | quote }}
`,
		"templates/pre.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-pre
  annotations: {"helm.sh/hook": "pre-install,pre-upgrade"}
`,
		"templates/post.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-post
  annotations: {"helm.sh/hook": post-install, "helm.sh/hook-delete-policy": hook-succeeded}
`,
		"templates/tests/t.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-test
  annotations: {"helm.sh/hook": test}
`,
		"templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
		"crds/things.yaml":    crdText("things", 1, 5),
	})
}

// crdText is a CustomResourceDefinition of plural name whose schema has fields
// properties, each described with generated words.
func crdText(name string, seed uint64, fields int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %[1]s.example.com\nspec:\n  group: example.com\n  names: {kind: K%[1]s, plural: %[1]s}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n", name)
	for f := 0; f < fields; f++ {
		fmt.Fprintf(&b, "          field%d:\n            type: string\n            description: >-\n              %s\n", f, words(seed*1000+uint64(f), 40))
	}
	return b.String()
}

var vocabulary = strings.Fields(`the a of to and in is for that by with on are as be this or from it at an which
resource field value name namespace spec status condition controller reconcile object reference secret config
map label annotation selector container image port volume mount path policy retry timeout interval replica pod
service endpoint ingress gateway route listener backend tls certificate issuer duration threshold weight priority`)

// words returns n words picked by a generator seeded with seed.
func words(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(out, " ")
}

// noise is n characters that gzip shrinks little.
func noise(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, ^seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// benchCharts are the charts fit and helm template are timed on: a typical
// application chart, one of many templates, and one heavy with CRDs (the
// envoyproxy/gateway case: about 4 MB of CRDs).
func benchCharts(tb testing.TB) []struct{ name, dir string } {
	app := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"values.yaml": "replicas: 2\nimage: {repository: nginx, tag: \"1.27\"}\nconfig: {}\n",
	}
	for i := 0; i < 12; i++ {
		app[fmt.Sprintf("templates/t%02d.yaml", i)] = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-%d
  labels: {{- include "labels" . | nindent 4 }}
data:
  text: %q
  config: {{ toYaml .Values.config | quote }}
`, i, words(uint64(i), 200))
	}
	app["templates/_helpers.tpl"] = `{{- define "labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
`
	many := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: many\nversion: 1.0.0\n",
		"values.yaml": "replicas: 2\n",
	}
	for i := 0; i < 300; i++ {
		many[fmt.Sprintf("templates/d%03d.yaml", i)] = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}-%[1]d}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: a%[1]d}}
  template:
    metadata: {labels: {app: a%[1]d}}
    spec:
      containers:
      - name: c
        image: "registry.example.com/team/app-%[1]d:{{ .Chart.Version }}"
        env: [{name: NOTE, value: %[2]q}]
`, i, words(uint64(1000+i), 60))
	}
	crds := map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: gateway\nversion: 1.0.0\n",
		"values.yaml":       "replicas: 1\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\ndata: {a: b}\n",
	}
	for i, n := 0, 0; n < 4_000_000; i++ {
		body := crdText(fmt.Sprintf("kind%d", i), uint64(100+i), 400)
		crds[fmt.Sprintf("crds/kind%d.yaml", i)] = body
		n += len(body)
	}
	return []struct{ name, dir string }{
		{"app", writeChart(tb, app)},
		{"300-deployments", writeChart(tb, many)},
		{"4MB-of-CRDs", writeChart(tb, crds)},
	}
}
