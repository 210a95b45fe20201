package cli_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
)

// writeChart writes a chart directory of files (path: content) under a fresh
// temporary directory and returns its path.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chart")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// smallChart is a chart as many are: a Deployment, a ConfigMap of the values, a
// pre-install/pre-upgrade hook, a test hook, a CRD, notes and a README.
func smallChart(t *testing.T) string {
	return writeChart(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: small\nversion: 1.4.2\nappVersion: \"2.0\"\ndescription: a small chart\n",
		"values.yaml": "replicas: 1\ngreeting: hello\nblob: \"\"\nbig: false\nimage: {repository: nginx, tag: \"1.27\"}\n",
		"README.md":   "# small\n\n" + words(7, 400) + "\n",
		"templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: {app: {{ .Release.Name }}, revision: "{{ .Release.Revision }}"}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
      - name: web
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`,
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-config}
data:
  greeting: {{ .Values.greeting | quote }}
  blob: {{ .Values.blob | quote }}
`,
		"templates/big.yaml": `{{- if .Values.big }}
{{- range $i := until 6 }}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {{ $.Release.Name }}-big-{{ $i }}}
data:
  text: {{ printf "%s-%d" $.Values.bigText $i | quote }}
{{- end }}
{{- end }}
`,
		"templates/hook.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-pre
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
data: {at: "{{ .Release.Revision }}"}
`,
		"templates/tests/check.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-test
  annotations:
    "helm.sh/hook": test
data: {check: "yes"}
`,
		"templates/NOTES.txt": "Thanks for installing {{ .Release.Name }}.\n",
		"crds/widgets.yaml":   crdText("widgets", 3, 8),
	})
}

// bigCRDChart is smallChart's templates with crds/ of about total bytes of CRD
// text: prose-like descriptions that gzip shrinks about as much as real schema
// documentation.
func bigCRDChart(t *testing.T, total int) string {
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: bigcrds\nversion: 0.9.0\n",
		"values.yaml": "greeting: hello\n",
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-config}
data: {greeting: {{ .Values.greeting | quote }}}
`,
	}
	for i, n := 0, 0; n < total; i++ {
		body := crdText(fmt.Sprintf("kind%d", i), uint64(100+i), 400)
		files[fmt.Sprintf("crds/kind%d.yaml", i)] = body
		n += len(body)
	}
	return writeChart(t, files)
}

// crdText is a CustomResourceDefinition of plural name whose schema has fields
// properties, each with a description of generated words.
func crdText(name string, seed uint64, fields int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]s.example.com
spec:
  group: example.com
  names: {kind: K%[1]s, plural: %[1]s, singular: %[1]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
`, name)
	for f := 0; f < fields; f++ {
		fmt.Fprintf(&b, "          field%d:\n            type: string\n            description: >-\n              %s\n", f, words(seed*1000+uint64(f), 40))
	}
	return b.String()
}

// vocabulary is what generated descriptions are made of.
var vocabulary = strings.Fields(`the a of to and in is for that by with on are as be this or from it at an which
resource field value name namespace spec status condition controller reconcile object reference secret config
map label annotation selector container image port volume mount path policy retry timeout interval replica pod
service endpoint ingress gateway route listener backend tls certificate issuer duration threshold weight priority
default optional required must should may when if unless only each every other set list array string integer
boolean format pattern minimum maximum items properties additional preserve unknown deprecated version served
storage subresource scale observed generation message reason type true false`)

// words returns n words of vocabulary picked by a generator seeded with seed.
func words(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(out, " ")
}

// helmValues merges values as helm install's flags do: Helm's own merge is the
// oracle the predictions are held to.
func helmValues(t *testing.T, opts values.Options) map[string]interface{} {
	t.Helper()
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		t.Fatalf("merge values: %v", err)
	}
	return vals
}

// loadChart loads a chart directory as helm install does.
func loadChart(t *testing.T, dir string) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatalf("load chart %s: %v", dir, err)
	}
	return ch
}

// helmInstall installs the chart in dir as release name in the env's namespace
// with Helm's install action through d, and returns what it returned.
func (e *env) helmInstall(d driver.Driver, dir, name string, vals map[string]interface{}, skipCRDs bool) (*release.Release, error) {
	e.t.Helper()
	in := action.NewInstall(e.actionConfigIn(d, e.ns))
	in.ReleaseName, in.Namespace, in.SkipCRDs = name, e.ns, skipCRDs
	return in.Run(loadChart(e.t, dir), vals)
}

// helmUpgrade upgrades release name to the chart in dir with Helm's upgrade
// action through d.
func (e *env) helmUpgrade(d driver.Driver, dir, name string, vals map[string]interface{}) (*release.Release, error) {
	e.t.Helper()
	up := action.NewUpgrade(e.actionConfigIn(d, e.ns))
	up.Namespace = e.ns
	return up.Run(name, loadChart(e.t, dir), vals)
}

// TestFitReleaseUsesItsStoreLimits: fit --release measures against the limits of
// the store that holds the release, not the flags' defaults: the demo's samples
// are stored in 11 chunks of 64 KiB, so its chunked store allows 704 KiB
// (before, "limit none"), and a flag the user gives still wins.
func TestFitReleaseUsesItsStoreLimits(t *testing.T) {
	t.Parallel()
	dir := smallChart(t)
	limit := func(args ...string) (int64, int64) {
		t.Helper()
		r := runDemo(t, &cli.App{}, append([]string{"fit", dir, "--release", "podinfo", "-o", "json"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		var out cli.FitResult
		decode(t, r, &out)
		if out.Current == nil {
			t.Fatalf("fit --release has no current revision: %s", r)
		}
		return storeOf(t, out, kube.DriverChunked).LimitBytes, out.Current.LimitBytes
	}
	want := int64(demo.MaxChunks * demo.ChunkSize)
	if got, own := limit(); got != want || own != want {
		t.Errorf("fit --release podinfo: chunked limit %d, the release's store %d; want %d (11 × 64 KiB) for both", got, own, want)
	}
	if got, _ := limit("--max-write-chunks", "20"); got != 20*demo.ChunkSize {
		t.Errorf("fit --release podinfo --max-write-chunks 20: chunked limit %d, want %d", got, 20*demo.ChunkSize)
	}
	r := runDemo(t, &cli.App{}, "fit", dir, "--release", "podinfo")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "704 KiB") || strings.Contains(r.stdout, "none") {
		t.Errorf("fit --release podinfo does not say the store allows 704 KiB: %s", r)
	}
}
