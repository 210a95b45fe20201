package revdiff

import "testing"

// TestMaskedHeadMatchesKubernetes: Diff takes a document's kind, name and
// namespace from the parse that masks it (YAML 1.2), falling back to a parse as
// Kubernetes reads manifests (YAML 1.1 through JSON, sigs.k8s.io/yaml) when that
// parse could read them otherwise. Both, and SplitManifest, must give what
// Kubernetes reads, written out by hand here: YAML 1.1 reads yes/On/n as booleans,
// 0777 as an octal number, 2001-12-14 as the string it is (sigs.k8s.io/yaml keeps
// timestamps as strings), takes the last of duplicate keys, and follows anchors
// and merge keys; a head that is not a string is no head, and a document that
// does not decode into an object has none.
func TestMaskedHeadMatchesKubernetes(t *testing.T) {
	for _, tc := range []struct {
		doc                   string
		kind, name, namespace string
	}{
		{"kind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n", "Deployment", "web", "shop"},
		{"kind: ConfigMap\nmetadata:\n  name: web-env\ndata:\n  password: hunter2hunter2\n", "ConfigMap", "web-env", ""},
		{"kind: \"Secret\"\nmetadata: {name: 'db', namespace: \"prod\"}\nstringData:\n  token: abcdefgh12345\n", "Secret", "db", "prod"},
		{"kind: ClusterRole\nmetadata:\n  name: reader\n", "ClusterRole", "reader", ""},
		{"kind: Service\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n", "Service", "", ""},
		{"kind: Service\nmetadata: ~\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: yes\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: On\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: 0777\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: 1password\n", "Service", "1password", ""},
		{"kind: Service\nmetadata:\n  name: 2001-12-14\n", "Service", "2001-12-14", ""},
		{"kind: Service\nmetadata:\n  name: 12\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: 1.5\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: null\n", "Service", "", ""},
		{"kind: Service\nmetadata:\n  name: !!str 123\n", "Service", "123", ""},
		{"kind: Service\nmetadata:\n  name: |\n    multi\n", "Service", "multi\n", ""},
		{"kind: Service\nmetadata: &m\n  name: a\nother: *m\n", "Service", "a", ""},
		{"kind: Service\nbase: &b\n  name: a\nmetadata:\n  <<: *b\n", "Service", "a", ""},
		{"kind: Service\nmetadata:\n  name: a\n  name: b\n", "Service", "b", ""},
		{"kind: A\nkind: B\nmetadata:\n  name: a\n", "B", "a", ""},
		{"kind: &k Service\nmetadata:\n  name: *k\n", "Service", "Service", ""},
		{"- kind: Service\n", "", "", ""},
		{"just a string\n", "", "", ""},
		{"kind: [Service]\nmetadata:\n  name: a\n", "", "a", ""},
		{"kind: Service\nmetadata:\n  name: [a]\n", "Service", "", ""},
		{"kind: Service\nmetadata: [a]\n", "", "", ""},
		{"kind: Service\nmetadata:\n  name: a\n  namespace: ''\n", "Service", "a", ""},
		{"\"kind\": Service\n'metadata':\n  \"name\": a\n", "Service", "a", ""},
		{"kind: Service\n? complex\n: value\nmetadata:\n  name: a\n", "Service", "a", ""},
		{"kind: Service\n1: one\nmetadata:\n  name: a\n", "Service", "a", ""},
		{"kind: Service\nmetadata:\n  name: a\n  labels: {x: y}\n  namespace: n\n", "Service", "a", ""}, // n is YAML 1.1's false
		{"kind: Service\nmetadata:\n  name: a\n  labels: {x: y}\n  namespace: nn\n", "Service", "a", "nn"},
		{"kind: Service\nmetadata:\n  name: web\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Secret\"}'\n", "Service", "web", ""},
		{"kind: Service\nmetadata:\n  name: bad: colon\n", "", "", ""},
	} {
		key := tc.kind + "/" + tc.name
		if tc.namespace != "" {
			key = tc.kind + "/" + tc.namespace + "/" + tc.name
		}
		for _, split := range []struct {
			name string
			res  []Resource
		}{
			{"the masking parse", splitMasked(tc.doc, "", newMasker(false).maskDoc)},
			{"SplitManifest", SplitManifest(tc.doc)},
		} {
			if len(split.res) != 1 {
				t.Errorf("%q: %s gives %d resources, want 1", tc.doc, split.name, len(split.res))
				continue
			}
			g := split.res[0]
			if g.Kind != tc.kind || g.Name != tc.name || g.Namespace != tc.namespace || g.Key != key {
				t.Errorf("%q: %s reads kind %q name %q namespace %q (key %q), want %q %q %q (%q)", tc.doc, split.name, g.Kind, g.Name, g.Namespace, g.Key, tc.kind, tc.name, tc.namespace, key)
			}
		}
	}
	// The plain case is read from the masking parse: the fallback is not all
	// that runs.
	if d := newMasker(false).maskDoc("kind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n"); !d.headOK || d.kind != "Deployment" || d.name != "web" || d.namespace != "shop" {
		t.Errorf("the plain document's head was not read from its parse: %+v", d)
	}
}
