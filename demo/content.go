package demo

// The generated bulk of the sample charts: prose, random bytes and what is made
// of them (certificate bundles, JavaScript, dashboards, CRDs), each from its own
// seeded generator (prng), so the same on every run.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

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
