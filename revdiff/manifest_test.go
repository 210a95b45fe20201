package revdiff

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

func TestSplitManifest(t *testing.T) {
	type res struct{ key, kind, ns, name, source string }
	tests := []struct {
		name     string
		manifest string
		want     []res
	}{
		{
			name: "helm output with source comments, sorted by key",
			manifest: `---
# Source: web/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: prod
---
# Source: web/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
`,
			want: []res{
				{"ConfigMap/web-config", "ConfigMap", "", "web-config", "web/templates/configmap.yaml"},
				{"Service/prod/web", "Service", "prod", "web", "web/templates/service.yaml"},
			},
		},
		{
			name:     "separator variants: trailing space, tab, comment on the marker line",
			manifest: "--- \nkind: A\nmetadata: {name: a}\n---\t\nkind: B\nmetadata: {name: b}\n--- # Source: c.yaml\nkind: C\nmetadata: {name: c}\n",
			want: []res{
				{"A/a", "A", "", "a", ""},
				{"B/b", "B", "", "b", ""},
				{"C/c", "C", "", "c", "c.yaml"},
			},
		},
		{
			name:     "empty and comment-only documents are dropped",
			manifest: "---\n---\n\n---\n# Source: empty.yaml\n---\nkind: A\nmetadata:\n  name: a\n---\n   \n",
			want:     []res{{"A/a", "A", "", "a", ""}},
		},
		{
			name:     "no leading separator, no trailing newline",
			manifest: "kind: A\nmetadata:\n  name: a",
			want:     []res{{"A/a", "A", "", "a", ""}},
		},
		{
			name:     "documents without metadata or kind, and one that does not parse",
			manifest: "kind: List\nitems: []\n---\nfoo: bar\n---\nkind: [unclosed\n",
			want: []res{
				{"/", "", "", "", ""},
				{"/#2", "", "", "", ""},
				{"List/", "List", "", "", ""},
			},
		},
		{
			name:     "duplicate keys get a suffix in order of appearance",
			manifest: "kind: A\nmetadata: {name: x}\ndata: {n: \"1\"}\n---\nkind: A\nmetadata: {name: x}\ndata: {n: \"2\"}\n",
			want:     []res{{"A/x", "A", "", "x", ""}, {"A/x#2", "A", "", "x", ""}},
		},
		{
			name:     "non-string name is ignored",
			manifest: "kind: A\nmetadata: {name: [1, 2], namespace: ns}\n",
			want:     []res{{"A/ns/", "A", "ns", "", ""}},
		},
		{
			name:     "indented dashes are content, not separators",
			manifest: "kind: A\nmetadata: {name: a}\ndata:\n  x: |\n    ---\n    --- y\n",
			want:     []res{{"A/a", "A", "", "a", ""}},
		},
		{
			name:     "CRLF line ends",
			manifest: "---\r\nkind: A\r\nmetadata:\r\n  name: a\r\n---\r\nkind: B\r\nmetadata:\r\n  name: b\r\n",
			want:     []res{{"A/a", "A", "", "a", ""}, {"B/b", "B", "", "b", ""}},
		},
		{name: "empty manifest", manifest: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitManifest(tt.manifest)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d resources %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Key != w.key || g.Kind != w.kind || g.Namespace != w.ns || g.Name != w.name || g.Source != w.source {
					t.Errorf("resource %d = {%q %q %q %q %q}, want %+v", i, g.Key, g.Kind, g.Namespace, g.Name, g.Source, w)
				}
				if !strings.HasSuffix(g.Manifest, "\n") || strings.Contains(g.Manifest, "\r") {
					t.Errorf("resource %d manifest %q should end in a newline and have no CR", i, g.Manifest)
				}
				if strings.HasPrefix(g.Manifest, "---") {
					t.Errorf("resource %d manifest %q keeps its separator", i, g.Manifest)
				}
			}
		})
	}
}

func TestSplitManifestKeepsDocumentText(t *testing.T) {
	doc := "# Source: a.yaml\nkind: A\nmetadata:\n  name: a\ndata:\n  x: |\n    ---\n    y\n"
	got := SplitManifest("---\n" + doc + "\n\n")
	if len(got) != 1 || got[0].Manifest != doc {
		t.Fatalf("got %+v, want one document with text %q", got, doc)
	}
}

// maskTokenRE matches a mask token, "<masked:1a2b3c4d>".
var maskTokenRE = regexp.MustCompile(regexp.QuoteMeta(MaskPrefix) + `[0-9a-f]+>`)

func TestMaskManifest(t *testing.T) {
	const plain = "s3cr3t-PLANTED"
	b64 := base64.StdEncoding.EncodeToString([]byte(plain))
	tests := []struct {
		name     string
		manifest string
		hidden   []string // must not appear
		kept     []string // must still appear
		same     bool     // output document text equals the input's
	}{
		{
			name: "Secret data and stringData",
			manifest: `# Source: c/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: db
  labels:
    app: db
type: Opaque
data:
  password: ` + b64 + `
  username: YWRtaW4=
stringData:
  config.yaml: |
    user: admin
    pass: ` + plain + `
  tls.crt: abc
`,
			hidden: []string{plain, b64, "YWRtaW4=", "user: admin", "abc"},
			kept:   []string{"# Source: c/templates/secret.yaml", "name: db", "app: db", "type: Opaque", "password: <masked:", "username: <masked:", "config.yaml: <masked:", "tls.crt: <masked:"},
		},
		{
			name: "Secret items of a List",
			manifest: `kind: List
items:
  - kind: Secret
    metadata: {name: a}
    data: {k: ` + b64 + `}
`,
			hidden: []string{b64, plain},
			kept:   []string{"k: '<masked:"},
		},
		{
			name:     "ConfigMap without secrets is left exactly as it is",
			manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  mode: fast\n  secretName: db\n  tokenTTL: \"30\"\n",
			same:     true,
		},
		{
			name:     "sensitive keys in other kinds",
			manifest: "kind: ConfigMap\nmetadata:\n  name: c\ndata:\n  DB_PASSWORD: " + plain + "\n  apiKey: k-123456789\n  mode: fast\n",
			hidden:   []string{plain, "k-123456789"},
			kept:     []string{"DB_PASSWORD: <masked:", "apiKey: <masked:", "mode: fast"},
		},
		{
			name: "env value named like a secret; references stay visible",
			manifest: `kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      tolerations:
        - key: node-role.kubernetes.io/control-plane
          operator: Exists
      containers:
        - name: web
          env:
            - name: API_TOKEN
              value: ` + plain + `
            - name: LOG_LEVEL
              value: debug
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: db
                  key: password
          affinity:
            topologyKey: kubernetes.io/hostname
`,
			hidden: []string{plain},
			kept: []string{"name: API_TOKEN", "value: <masked:", "value: debug", "key: node-role.kubernetes.io/control-plane",
				"key: password", "topologyKey: kubernetes.io/hostname"},
		},
		{
			name:     "a secret copied elsewhere is scrubbed there too",
			manifest: "kind: Secret\nmetadata: {name: s}\nstringData:\n  password: " + plain + "\n---\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  url: postgres://app:" + plain + "@db:5432/app # was " + plain + "\n",
			hidden:   []string{plain},
			kept:     []string{"url: postgres://app:<masked:", "@db:5432/app"},
		},
		{
			name:     "booleans and nulls under sensitive keys are kept",
			manifest: "kind: X\nmetadata: {name: x}\nspec:\n  token:\n    enabled: true\n    value: null\n    ttl: 30\n",
			hidden:   []string{"ttl: 30"},
			kept:     []string{"enabled: true", "value: null", "ttl: <masked:"},
		},
		{
			name:     "a document that does not parse is masked whole",
			manifest: "# Source: bad.yaml\nkind: Secret\ndata:\n  password: " + plain + "\n  bad: [\n",
			hidden:   []string{plain, "kind: Secret"},
			kept:     []string{"# Source: bad.yaml", "could not be parsed", "<masked:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MaskManifest(tt.manifest)
			// A token's hex digits may spell a short value by chance ("abc"):
			// look for hidden values with the tokens taken out.
			bare := maskTokenRE.ReplaceAllString(got, MaskPrefix+">")
			for _, h := range tt.hidden {
				if strings.Contains(bare, h) {
					t.Errorf("masked manifest shows %q:\n%s", h, got)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(got, k) {
					t.Errorf("masked manifest lacks %q:\n%s", k, got)
				}
			}
			if tt.same && got != "---\n"+tt.manifest {
				t.Errorf("manifest changed:\n%s", got)
			}
			if again := MaskManifest(tt.manifest); again != got {
				t.Errorf("masking twice gave different text:\n%s\n%s", got, again)
			}
		})
	}
}

func TestMaskManifestKeepsOrderAndComments(t *testing.T) {
	in := "# Source: s.yaml\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  b: two\n  a: one\n---\nkind: ConfigMap\nmetadata:\n  name: c\n"
	got := MaskManifest(in)
	docs := strings.Split(got, "---\n")
	if len(docs) != 3 {
		t.Fatalf("want 2 documents, got:\n%s", got)
	}
	if !strings.HasPrefix(docs[1], "# Source: s.yaml\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  b: <masked:") {
		t.Errorf("first document lost its order or comment:\n%s", docs[1])
	}
	if docs[2] != "kind: ConfigMap\nmetadata:\n  name: c\n" {
		t.Errorf("second document = %q", docs[2])
	}
}
