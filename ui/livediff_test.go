package ui

import (
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"sigs.k8s.io/yaml"

	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/screens/diff"
)

// fakeDrift is what a live diff of revision rev of release name could answer:
// a scaled Deployment, a rotated Secret, a deleted Service, a stray ConfigMap
// and a kind the user may not read.
func fakeDrift(t testing.TB, ns, name string, rev int, reveal bool) *revdiff.Drift {
	t.Helper()
	rel := &release.Release{Name: name, Namespace: ns, Version: rev, Manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `}
spec: {replicas: 2}
---
apiVersion: v1
kind: Secret
metadata: {name: ` + name + `-db}
stringData: {password: hunter2-original}
---
apiVersion: v1
kind: Service
metadata: {name: ` + name + `}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ` + name + `-config}
data: {color: blue}
`}
	live := func(y string) map[string]any {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(y), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var objs []revdiff.LiveObject
	for _, r := range revdiff.ReleaseResources(rel.Manifest, ns) {
		o := revdiff.LiveObject{Resource: r, APIVersion: "v1"}
		switch r.Kind {
		case "Deployment":
			o.APIVersion = "apps/v1"
			o.Live = live(`metadata:
  managedFields:
  - {manager: kubectl, operation: Update, subresource: scale, time: "2026-11-02T11:00:00Z", fieldsV1: {"f:spec": {"f:replicas": {}}}}
spec: {replicas: 5}`)
		case "Secret":
			o.Live = live("data: {password: aHVudGVyMi1yb3RhdGVk}") // hunter2-rotated
		case "ConfigMap":
			o.Unreadable = "your credentials may not get configmaps in namespace " + ns + "; not compared (check: kubectl auth can-i get configmaps -n " + ns + ")"
		}
		if o.Live != nil {
			md, _ := o.Live["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
				o.Live["metadata"] = md
			}
			md["name"] = r.Name
		}
		objs = append(objs, o)
	}
	objs = append(objs, revdiff.LiveObject{Resource: revdiff.Resource{Key: "ConfigMap/" + ns + "/" + name + "-stray", Kind: "ConfigMap", Namespace: ns, Name: name + "-stray"}, APIVersion: "v1", Extra: true})
	d, err := revdiff.CompareLive(rel, objs, revdiff.DriftOptions{Reveal: reveal})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// answerLive answers the live diff on top with fakeDrift.
func answerLive(h *harness) {
	s, ok := h.top().(*diff.Screen)
	if !ok || !s.Live {
		h.t.Fatalf("top screen is %T, not a live diff", h.top())
	}
	h.send(diff.LiveLoadedMsg{Ns: s.Ns, Name: s.Name, Rev: s.From, Reveal: s.Reveal, Drift: fakeDrift(h.t, s.Ns, s.Name, s.From, s.Reveal)})
}

// TestLiveDiffFlow: L in the history opens the live diff of the selected
// revision; the demo says live objects are not there; an answer for another
// revision or reveal state is dropped; the right one is shown masked, and v
// asks again, revealed.
func TestLiveDiffFlow(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "L")
	s, ok := h.top().(*diff.Screen)
	if !ok || !s.Live || s.From == 0 {
		t.Fatalf("L opened %T %+v", h.top(), s)
	}
	h.contains("diff "+table.Itoa(s.From)+"→live", "live objects are not available")

	// A late answer for another revision, or for the revealed view, is dropped.
	stale := fakeDrift(t, s.Ns, s.Name, s.From-1, false)
	s.Update(diff.LiveLoadedMsg{Ns: s.Ns, Name: s.Name, Rev: s.From - 1, Drift: stale})
	s.Update(diff.LiveLoadedMsg{Ns: s.Ns, Name: s.Name, Rev: s.From, Reveal: true, Drift: fakeDrift(t, s.Ns, s.Name, s.From, true)})
	h.lacks("hunter2", "Objects:")

	answerLive(h)
	h.contains("revision "+table.Itoa(s.From)+" → live", "Objects: 2 changed, 1 missing, 1 extra, 1 unreadable",
		"~ Deployment/", "(missing)", "(extra)", "(unreadable)", "auth can-i").lacks("hunter2")
	if s.Changes() != 4 {
		t.Errorf("want a heading per object with a diff (4), got %d", s.Changes())
	}
	h.press("n")
	h.contains("spec.replicas · changed by kubectl (Update /scale)", "change 1 of 4")

	// v asks for the revealed comparison: the demo cannot answer, a fake can.
	if cmd := s.Update(keyMsg("v")); cmd == nil || !s.Loading {
		t.Fatalf("v did not ask for the revealed live diff")
	}
	answerLive(h)
	if !s.Reveal || s.Drifts[true] == nil {
		t.Fatalf("revealed answer not taken")
	}
	h.press("home").contains("secrets REVEALED")
	h.press("n", "n").contains("-hunter2-original", "+hunter2-rotated")
}
