package revdiff

import "testing"

// Diff takes a document's kind and name from the parse that masks it; each
// document must get the same ones as SplitManifest's own parse gives it, the
// unusual ones (which go back to that parse) included.
func TestMaskedHeadMatchesSplit(t *testing.T) {
	docs := []string{
		"kind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n",
		"kind: ConfigMap\nmetadata:\n  name: web-env\ndata:\n  password: hunter2hunter2\n",
		"kind: \"Secret\"\nmetadata: {name: 'db', namespace: \"prod\"}\nstringData:\n  token: abcdefgh12345\n",
		"kind: ClusterRole\nmetadata:\n  name: reader\n",
		"kind: Service\n",
		"kind: Service\nmetadata:\n",
		"kind: Service\nmetadata: ~\n",
		"kind: Service\nmetadata:\n  name: yes\n",
		"kind: Service\nmetadata:\n  name: On\n",
		"kind: Service\nmetadata:\n  name: 0777\n",
		"kind: Service\nmetadata:\n  name: 1password\n",
		"kind: Service\nmetadata:\n  name: 2001-12-14\n",
		"kind: Service\nmetadata:\n  name: 12\n",
		"kind: Service\nmetadata:\n  name: 1.5\n",
		"kind: Service\nmetadata:\n  name: null\n",
		"kind: Service\nmetadata:\n  name: !!str 123\n",
		"kind: Service\nmetadata:\n  name: |\n    multi\n",
		"kind: Service\nmetadata: &m\n  name: a\nother: *m\n",
		"kind: Service\nbase: &b\n  name: a\nmetadata:\n  <<: *b\n",
		"kind: Service\nmetadata:\n  name: a\n  name: b\n",
		"kind: A\nkind: B\nmetadata:\n  name: a\n",
		"kind: &k Service\nmetadata:\n  name: *k\n",
		"- kind: Service\n",
		"just a string\n",
		"kind: [Service]\nmetadata:\n  name: a\n",
		"kind: Service\nmetadata:\n  name: [a]\n",
		"kind: Service\nmetadata: [a]\n",
		"kind: Service\nmetadata:\n  name: a\n  namespace: ''\n",
		"\"kind\": Service\n'metadata':\n  \"name\": a\n",
		"kind: Service\n? complex\n: value\nmetadata:\n  name: a\n",
		"kind: Service\n1: one\nmetadata:\n  name: a\n",
		"kind: Service\nmetadata:\n  name: a\n  labels: {x: y}\n  namespace: n\n",
		"kind: Service\nmetadata:\n  name: web\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Secret\"}'\n",
		"kind: Service\nmetadata:\n  name: bad: colon\n",
	}
	for _, doc := range docs {
		want := SplitManifest(doc)
		got := splitMasked(doc, "", newMasker(false).maskDoc)
		if len(got) != len(want) {
			t.Errorf("%q: %d resources, want %d", doc, len(got), len(want))
			continue
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Key != w.Key || g.Kind != w.Kind || g.Name != w.Name || g.Namespace != w.Namespace {
				t.Errorf("%q: kind %q name %q namespace %q (key %q), want %q %q %q (%q)", doc, g.Kind, g.Name, g.Namespace, g.Key, w.Kind, w.Name, w.Namespace, w.Key)
			}
		}
	}
	// The plain case is read from the masking parse: the fallback is not all
	// that runs.
	if d := newMasker(false).maskDoc(docs[0]); !d.headOK || d.kind != "Deployment" || d.name != "web" || d.namespace != "shop" {
		t.Errorf("the plain document's head was not read from its parse: %+v", d)
	}
}
