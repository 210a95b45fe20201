package storage_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// TestDeepCopyShares nothing mutable: a change to any map, slice, pointer or
// []byte of the copy leaves the original as it was, and the copy equals the
// original until then, unexported fields and time zones included.
func TestDeepCopySharesNothing(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	orig := testRelease("dc", 2, release.StatusDeployed, 1<<10)
	orig.Info.LastDeployed.Time = time.Date(2026, 1, 2, 3, 4, 5, 6, cet)
	orig.Config = map[string]interface{}{
		"list":   []interface{}{"a", map[string]interface{}{"k": "v"}, float64(1)},
		"nested": map[string]interface{}{"deep": map[string]interface{}{"x": true}},
		"nil":    nil,
	}
	orig.Chart.Templates = []*chart.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap")}}
	orig.Chart.Values = map[string]interface{}{"replicas": float64(3)}
	orig.Hooks = []*release.Hook{{Name: "pre", Events: []release.HookEvent{release.HookPreInstall}}}
	before, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}

	cp := storage.DeepCopy(orig)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatal("the copy differs from the original")
	}
	if cp.Info.LastDeployed.Location() != cet || cp.Info == orig.Info || cp.Chart == orig.Chart {
		t.Fatal("the copy shares its info or chart, or lost the time zone")
	}
	cp.Info.Status = release.StatusSuperseded
	cp.Config["list"].([]interface{})[1].(map[string]interface{})["k"] = "changed"
	cp.Config["nested"].(map[string]interface{})["deep"].(map[string]interface{})["x"] = false
	cp.Config["new"] = 1
	cp.Chart.Templates[0].Data[0] = 'X'
	cp.Chart.Templates = append(cp.Chart.Templates, &chart.File{Name: "more"})
	cp.Chart.Values["replicas"] = float64(9)
	cp.Hooks[0].Events[0] = release.HookPostDelete
	cp.Labels["team"] = "changed"

	after, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) || orig.Labels["team"] != "payments" {
		t.Fatalf("a change to the copy reached the original:\n%s\n%s", before, after)
	}
	if storage.DeepCopy[release.Release](nil) != nil {
		t.Fatal("the copy of nil is not nil")
	}
}

// TestHeapSizeFollowsContent: the estimate grows with what a release holds, and
// counts a manifest of n bytes as at least n.
func TestHeapSizeFollowsContent(t *testing.T) {
	small := testRelease("hs", 1, release.StatusDeployed, 1<<10)
	large := testRelease("hs", 1, release.StatusDeployed, 100<<10)
	s, l := storage.HeapSize(small), storage.HeapSize(large)
	if s < int64(len(small.Manifest)) || l < int64(len(large.Manifest)) || l <= s {
		t.Fatalf("heap size %d for a %d-byte manifest, %d for %d", s, len(small.Manifest), l, len(large.Manifest))
	}
}
