package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// extension is one ClusterExtension of the fleet and the bundle it installs.
type extension struct {
	Name      string // the ClusterExtension's and the release's name
	Namespace string // where its objects are installed
	Seed      uint64
	Size      int // bytes of JSON of its bundle's objects
	Class     string
	chunks    int // of a large extension's revisions; 0 for a small one
	// Owner is the ClusterExtension's controller reference, which the operator's
	// post-renderer puts on every object of the manifest.
	Owner metav1.OwnerReference

	obj  *unstructured.Unstructured // the ClusterExtension, once created
	base []objectText               // the CRDs as most revisions ship them, rendered once
}

// objectText is an object as a chart template (JSON) and in the manifest (YAML
// with the owner's controller reference, as the operator's post-renderer writes it).
type objectText struct {
	kind string
	js   []byte
	yml  []byte
}

// text renders obj for e.
func (e *extension) text(obj map[string]any) (objectText, error) {
	js, err := json.Marshal(obj)
	if err != nil {
		return objectText{}, err
	}
	// A cluster-scoped owner may own every object, namespaced or not.
	obj["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": e.Owner.APIVersion, "kind": e.Owner.Kind, "name": e.Owner.Name,
		"uid": string(e.Owner.UID), "controller": true, "blockOwnerDeletion": true,
	}}
	y, err := yaml.Marshal(obj)
	if err != nil {
		return objectText{}, err
	}
	return objectText{kind: obj["kind"].(string), js: js, yml: y}, nil
}

// objectsAt returns the texts of the bundle's objects at revision rev. The CRDs
// that rev does not change are rendered once and reused.
func (e *extension) objectsAt(rev int) ([]objectText, error) {
	n := bundleCRDs(e.Size)
	if e.base == nil {
		for i := range n {
			t, err := e.text(bundleCRD(e.Seed, e.Name, i, n, e.Size, 0))
			if err != nil {
				return nil, err
			}
			e.base = append(e.base, t)
		}
	}
	out := make([]objectText, 0, n+5)
	for i := range n {
		if i != rev%n {
			out = append(out, e.base[i])
			continue
		}
		t, err := e.text(bundleCRD(e.Seed, e.Name, i, n, e.Size, rev))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	for _, o := range newBundleGen(e.Seed, e.Name+".example.io").operatorObjects(e.Name, e.Namespace, rev) {
		t, err := e.text(o)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// chartAt is the chart OLMv1 makes of the bundle at revision rev: one JSON
// template per object, named after its hash.
func (e *extension) chartAt(rev int) (*chart.Chart, []objectText, error) {
	objs, err := e.objectsAt(rev)
	if err != nil {
		return nil, nil, err
	}
	ch := &chart.Chart{Metadata: &chart.Metadata{
		APIVersion: chart.APIVersionV2, Name: e.Name, Version: fmt.Sprintf("1.%d.0", rev),
	}}
	for _, o := range objs {
		sum := sha256.Sum256(o.js)
		ch.Templates = append(ch.Templates, &chart.File{Name: fmt.Sprintf("templates/object-%x.json", sum[:8]), Data: o.js})
	}
	return ch, objs, nil
}

// releaseAt is the release of revision rev as Helm stores it after an install or
// upgrade: the chart, the manifest the operator's post-renderer wrote, and the
// given status.
func (e *extension) releaseAt(rev int, status release.Status, at time.Time) (*release.Release, error) {
	ch, objs, err := e.chartAt(rev)
	if err != nil {
		return nil, err
	}
	// Helm renders the templates in the order of their paths, then sorts the
	// objects by kind, stably, in its install order.
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	rank := map[string]int{}
	for i, k := range releaseutil.InstallOrder {
		rank[k] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return ch.Templates[order[a]].Name < ch.Templates[order[b]].Name
	})
	sort.SliceStable(order, func(a, b int) bool { return rank[objs[order[a]].kind] < rank[objs[order[b]].kind] })
	var manifest bytes.Buffer
	for _, i := range order {
		manifest.WriteString("---\n")
		manifest.Write(objs[i].yml)
	}
	desc := "Upgrade complete"
	if rev == 1 {
		desc = "Install complete"
	}
	first := helmtime.Time{Time: at.Add(-time.Duration(rev) * time.Hour)}
	return &release.Release{
		Name: e.Name, Namespace: e.Namespace, Version: rev,
		Chart: ch, Config: map[string]interface{}{}, Manifest: manifest.String(),
		Info: &release.Info{FirstDeployed: first, LastDeployed: helmtime.Time{Time: at}, Status: status, Description: desc},
	}, nil
}

// gzipLen is the length of b compressed as the drivers compress (best compression).
func gzipLen(b []byte) int {
	var cw byteCounter
	zw, _ := gzip.NewWriterLevel(&cw, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return int(cw)
}

type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) { *c += byteCounter(len(p)); return len(p), nil }

var _ io.Writer = (*byteCounter)(nil)
