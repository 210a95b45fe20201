package storage_test

// Fixtures of the tests that hold Helm 4's driver (storage/helm4) to Helm 3's and
// to helm-operator-plugins': copies of storage/helm4's own, whose module does not
// depend on Helm 3.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
)

// helm4Chunk makes the Helm 4 tests' releases span several chunks cheaply.
const helm4Chunk = 4 << 10

// fullRelease is a release as Helm 4 writes one, with every field Helm 4 has and
// Helm 3 has not: apply_method, info.rollback_revision, the mod times of the
// chart, its templates and files, and schemamodtime; times in a zone other than
// UTC, to the nanosecond; and a manifest of about payload bytes of noise, for a
// record of several chunks.
func fullRelease(name string, version int, status common.Status, payload int, seed uint64) *rspb.Release {
	cet := time.FixedZone("CET", 3600)
	deployed := time.Date(2026, 11, 1, 12, 0, 0, 123456789, cet).Add(time.Duration(version) * time.Hour)
	mod := time.Date(2026, 10, 30, 8, 15, 0, 42, time.UTC)
	return &rspb.Release{
		Name:      name,
		Namespace: "apps",
		Version:   version,
		Info: &rspb.Info{
			FirstDeployed:    deployed.Add(-time.Duration(version) * time.Hour),
			LastDeployed:     deployed,
			Description:      "Rollback to 2",
			Status:           status,
			RollbackRevision: 2,
			Notes:            "thanks for installing",
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.2.3", AppVersion: "4.5.6",
				Dependencies: []*chart.Dependency{{Name: "common", Version: "2.0.0", Repository: "oci://example.com/charts"}}},
			Lock:          &chart.Lock{Generated: mod, Digest: "sha256:abc", Dependencies: []*chart.Dependency{{Name: "common", Version: "2.0.0"}}},
			Templates:     []*chartcommon.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n"), ModTime: mod}},
			Files:         []*chartcommon.File{{Name: "README.md", Data: []byte("# demo\n"), ModTime: mod}},
			Values:        map[string]any{"replicas": float64(1), "image": map[string]any{"tag": "v1"}},
			Schema:        []byte(`{"type":"object"}`),
			SchemaModTime: mod,
			ModTime:       mod,
		},
		Config:   map[string]any{"replicas": float64(version)},
		Manifest: fmt.Sprintf("---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  blob: %s\n", name, noise(seed, payload*4/3)),
		Hooks: []*rspb.Hook{{
			Name: "pre", Kind: "Job", Path: "templates/job.yaml", Manifest: "kind: Job\n", Weight: 5,
			Events:            []rspb.HookEvent{rspb.HookPreInstall, rspb.HookPreUpgrade},
			LastRun:           rspb.HookExecution{StartedAt: deployed, CompletedAt: deployed.Add(time.Second), Phase: rspb.HookPhaseSucceeded},
			DeletePolicies:    []rspb.HookDeletePolicy{rspb.HookBeforeHookCreation},
			OutputLogPolicies: []rspb.HookOutputLogPolicy{rspb.HookOutputOnFailed},
		}},
		Labels:      map[string]string{"team": "payments", "tier": "gold"},
		ApplyMethod: string(rspb.ApplyMethodServerSideApply),
	}
}

// helm4JSON is the release's JSON as Helm 4 encodes it: the oracle every read is
// held to, byte for byte.
func helm4JSON(t *testing.T, rls *rspb.Release) []byte {
	t.Helper()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// mustSameRelease fails unless got is a *rspb.Release whose JSON, as Helm 4
// encodes it, is want's byte for byte, with want's custom labels.
func mustSameRelease(t *testing.T, what string, want *rspb.Release, got any) {
	t.Helper()
	r, ok := got.(*rspb.Release)
	if !ok || r == nil {
		t.Fatalf("%s returned %T, want a *release/v1.Release", what, got)
	}
	if w, g := helm4JSON(t, want), helm4JSON(t, r); !bytes.Equal(w, g) {
		t.Fatalf("%s: the release's JSON differs from the one written (%d bytes, want %d):\n%s", what, len(g), len(w), firstDiff(w, g))
	}
	if fmt.Sprint(r.Labels) != fmt.Sprint(want.Labels) {
		t.Fatalf("%s: labels %v, want %v", what, r.Labels, want.Labels)
	}
}

// firstDiff shows where two JSON documents start to differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d:\nwant …%s\ngot  …%s", i, a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}

// storedPayload reads the record of k as the format stores it, without
// chunkview's decoder: the index's slice and the chunks its extraChunks list
// names, in order, inflated with compress/gzip.
func storedPayload(t *testing.T, secrets corev1client.SecretInterface, k string) (js []byte, chunks int) {
	t.Helper()
	ctx := context.Background()
	idx, err := secrets.Get(ctx, k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := json.Unmarshal(idx.Data["extraChunks"], &names); err != nil {
		t.Fatalf("index %s: extraChunks: %v", k, err)
	}
	gz := bytes.Clone(idx.Data["chunk"])
	for _, n := range names {
		c, err := secrets.Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gz = append(gz, c.Data["chunk"]...)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), 1 + len(names)
}

// helm4Only are the JSON fields of fullRelease that Helm 4 has and Helm 3 has not.
var helm4Only = []string{"apply_method", "chart.files.modtime", "chart.modtime", "chart.schemamodtime", "chart.templates.modtime", "info.rollback_revision"}

// helm4Size makes a Helm 4 release of about three chunks.
const helm4Size = 2*helm4Chunk + helm4Chunk/2
