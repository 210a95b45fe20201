package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// OLMv1-shaped release content: the objects of an operator bundle (CRDs, the
// operator's Deployment, its RBAC and a Service) as text that compresses like real
// bundles do. OLMv1 turns a bundle into a chart with one JSON template per object,
// so a release holds every object twice: in the chart's templates (base64 in the
// release's JSON) and in the rendered YAML manifest.
//
// What gzip makes of it depends on how repetitive the text is. Real CRDs are
// OpenAPI schemas whose descriptions are prose, with the same embedded types (a
// label selector, resource requirements, tolerations) repeated in many places:
// Gateway API's standard CRDs and Prometheus's gzip about 6.8:1 as YAML and 3.8:1
// base64-encoded. The generator mixes fresh prose and field names with a few
// embedded types reused verbatim, in the proportions that land near those ratios.

// bundleGen generates the objects of one bundle; the same seed gives the same
// bundle.
type bundleGen struct {
	r      *rand.Rand
	shared []map[string]any // embedded types, reused verbatim across the CRDs
	group  string
}

func newBundleGen(seed uint64, group string) *bundleGen {
	g := &bundleGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), group: group}
	// Embedded types do not embed each other.
	shared := make([]map[string]any, 8)
	for i := range shared {
		shared[i] = g.object(2, 5)
	}
	g.shared = shared
	return g
}

var words = strings.Fields(`the a an of to in for is are be that this which when if
	it its by on with as or and not may must can will should from at each all any
	field value object resource reference name namespace label selector key used
	specifies defines describes configuration specification status condition
	controller operator cluster pod container image port protocol service account
	secret volume mount path policy rule role binding node affinity toleration
	taint priority class storage request limit memory cpu replica template strategy
	rolling update deployment endpoint certificate issuer domain host address network
	ingress gateway route backend timeout interval duration retry attempt threshold
	period seconds minimum maximum default optional required immutable deprecated
	scheduling termination grace probe liveness readiness startup command argument
	environment variable source annotation metadata owner finalizer generation
	observed phase reason message type last transition time version kind group api
	list item entry map string integer boolean array format pattern length size
	more info https kubernetes io docs concepts see also defaults to empty means
	no set unset omitted ignored applies only applied every between among within
	such other than current previous next new old specific given matching match
	expression operator exists equal weight preferred during execution topology
	spread zone region constraint skew whenunsatisfiable schedule anyway do not
	security context user id run privileged capabilities add drop read write file
	system root filesystem seccomp profile apparmor selinux level options monitor
	scrape metric alert rule query remote storage retention shard replica external
	labels relabel config job target tls ca cert insecure skip verify server bearer
	token authorization basic auth oauth2 proxy url scheme honor timestamps params`)

var identStems = strings.Fields(`name namespace replicas selector template containers
	image resources limits requests tolerations affinity nodeSelector labels annotations
	port protocol service account secret volume mount path policy rules role binding
	priority storage class strategy rolling update endpoint certificate issuer domain
	host address network ingress gateway route backend timeout interval retry
	threshold period minimum maximum default command args env source owner condition
	phase reason message version kind group items key value operator weight topology
	zone region security context user run privileged capabilities seccomp profile
	scrape metric alert query remote retention shard external relabel config job
	target tls insecure token authorization basic proxy url scheme params shards`)

// sentence is a sentence of n words.
func (g *bundleGen) sentence(n int) string {
	var b strings.Builder
	for i := range n {
		var w string
		switch k := g.r.IntN(8); {
		case k < 4: // the words every description uses
			w = words[g.r.IntN(24)]
		case k == 3: // a field named in the prose
			w = g.ident()
		default:
			w = words[g.r.IntN(len(words))]
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

func (g *bundleGen) description() string {
	n := 1 + g.r.IntN(3)
	s := make([]string, n)
	for i := range s {
		s[i] = g.sentence(6 + g.r.IntN(22))
	}
	return strings.Join(s, " ")
}

// ident is a camelCase field name of one to three stems.
func (g *bundleGen) ident() string {
	n := 1 + g.r.IntN(3)
	var b strings.Builder
	for i := range n {
		w := identStems[g.r.IntN(len(identStems))]
		if i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// leaf is a scalar property's schema.
func (g *bundleGen) leaf() map[string]any {
	p := map[string]any{"description": g.description()}
	switch g.r.IntN(6) {
	case 0, 1, 2:
		p["type"] = "string"
		if g.r.IntN(4) == 0 {
			p["enum"] = []any{g.ident(), g.ident(), g.ident()}
		}
	case 3:
		p["type"] = "integer"
		p["format"] = "int32"
	case 4:
		p["type"] = "boolean"
	default:
		p["type"] = "string"
		p["pattern"] = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	}
	return p
}

// object is an object schema of a few properties, nested up to depth.
func (g *bundleGen) object(depth, width int) map[string]any {
	props := map[string]any{}
	n := 2 + g.r.IntN(width)
	for range n {
		switch k := g.r.IntN(10); {
		case depth > 0 && k < 2:
			props[g.ident()] = g.object(depth-1, width)
		case depth > 0 && k == 2:
			props[g.ident()] = map[string]any{"type": "array", "description": g.description(), "items": g.object(depth-1, width)}
		case k <= 4 && len(g.shared) > 0:
			// An embedded type, as CRDs embed core types: the same schema
			// text in many places.
			props[g.ident()] = g.shared[g.r.IntN(len(g.shared))]
		default:
			props[g.ident()] = g.leaf()
		}
	}
	return map[string]any{"type": "object", "description": g.description(), "properties": props}
}

// crd is a CustomResourceDefinition of about size bytes of JSON, with extra
// added to its spec (what changes between a bundle's versions).
func (g *bundleGen) crd(kind string, size int, extra map[string]any) map[string]any {
	spec := map[string]any{}
	for n := 0; n < size; {
		p := g.object(2, 6)
		b, _ := json.Marshal(p)
		n += len(b)
		spec[g.ident()] = p
	}
	for k, v := range extra {
		spec[k] = v
	}
	plural := strings.ToLower(kind) + "s"
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
			"kind":       map[string]any{"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
			"metadata":   map[string]any{"type": "object"},
			"spec":       map[string]any{"type": "object", "description": g.description(), "properties": spec},
			"status":     map[string]any{"type": "object", "description": g.description(), "x-kubernetes-preserve-unknown-fields": true},
		},
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + g.group},
		"spec": map[string]any{
			"group": g.group,
			"names": map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": strings.ToLower(kind)},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema":       map[string]any{"openAPIV3Schema": schema},
				"subresources": map[string]any{"status": map[string]any{}},
			}},
		},
	}
}

// operatorObjects are the objects of the operator itself: its ServiceAccount,
// ClusterRole and binding, Deployment and metrics Service, at version rev.
func (g *bundleGen) operatorObjects(pkg, ns string, rev int) []map[string]any {
	name := pkg + "-controller-manager"
	labels := map[string]any{"app.kubernetes.io/name": pkg, "control-plane": "controller-manager"}
	var rules []any
	for range 12 + g.r.IntN(20) {
		rules = append(rules, map[string]any{
			"apiGroups": []any{g.group},
			"resources": []any{strings.ToLower(g.ident()) + "s", strings.ToLower(g.ident()) + "s/status"},
			"verbs":     []any{"get", "list", "watch", "create", "update", "patch", "delete"},
		})
	}
	image := fmt.Sprintf("quay.io/%s/%s-operator:v1.%d.0", pkg, pkg, rev)
	return []map[string]any{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name, "namespace": ns}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name}, "rules": rules},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": name},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": ns}}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
			"spec": map[string]any{
				"replicas": 1,
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels, "annotations": map[string]any{"olm.targetNamespaces": "", "operatorframework.io/properties": g.sentence(30)}},
					"spec": map[string]any{
						"serviceAccountName": name,
						"containers": []any{map[string]any{
							"name": "manager", "image": image,
							"args": []any{"--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"},
							"env":  []any{map[string]any{"name": "OPERATOR_VERSION", "value": fmt.Sprintf("1.%d.0", rev)}},
							"resources": map[string]any{
								"limits":   map[string]any{"cpu": "500m", "memory": "512Mi"},
								"requests": map[string]any{"cpu": "10m", "memory": "64Mi"},
							},
							"livenessProbe":  map[string]any{"httpGet": map[string]any{"path": "/healthz", "port": 8081}, "initialDelaySeconds": 15},
							"readinessProbe": map[string]any{"httpGet": map[string]any{"path": "/readyz", "port": 8081}, "initialDelaySeconds": 5},
						}},
					},
				},
			}},
		{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name + "-metrics", "namespace": ns, "labels": labels},
			"spec": map[string]any{"selector": labels, "ports": []any{map[string]any{"name": "https", "port": 8443, "targetPort": 8443, "protocol": "TCP"}}}},
	}
}

// crdSize is about the JSON size of each CRD of a bundle.
const crdSize = 160 << 10

// bundleCRDs is how many CRDs a bundle of about size bytes of JSON has.
func bundleCRDs(size int) int { return max(1, size/crdSize) }

// bundleCRD is CRD i of the bundle of package pkg, of about size bytes of JSON, as
// revision rev ships it: the same at every revision, but that the revision
// changing it (one in n, n the bundle's CRD count) adds a property, as a bundle's
// next version adds a field.
func bundleCRD(seed uint64, pkg string, i, n, size, rev int) map[string]any {
	g := newBundleGen(seed*1000+uint64(i), pkg+".example.io")
	var extra map[string]any
	if rev > 0 && i == rev%n {
		x := newBundleGen(seed*1000+uint64(i)+uint64(rev)<<32, pkg+".example.io")
		extra = map[string]any{fmt.Sprintf("addedInV1%d", rev): x.leaf()}
	}
	kind := fmt.Sprintf("%s%d", strings.ToUpper(pkg[:1])+pkg[1:], i)
	return g.crd(kind, min(size, crdSize), extra)
}
