package storage_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// noise returns n bytes of base64-like text that gzip cannot shrink much, so a
// release of a chosen compressed size can be built.
func noise(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// testRelease returns a release whose payload compresses to roughly payload bytes.
func testRelease(name string, version int, status release.Status, payload int) *release.Release {
	return testReleaseSeed(name, version, status, payload, uint64(version)*7919+uint64(len(name)))
}

// testReleaseSeed is testRelease with the seed of its manifest's noise chosen, so that
// two releases of one name and revision can differ throughout.
func testReleaseSeed(name string, version int, status release.Status, payload int, seed uint64) *release.Release {
	ts := helmtime.Time{Time: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(version) * time.Hour)}
	manifest := fmt.Sprintf("---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-big\ndata:\n  blob: %s\n", name, noise(seed, payload*4/3))
	return &release.Release{
		Name:      name,
		Namespace: "default",
		Version:   version,
		Manifest:  manifest,
		Info: &release.Info{
			FirstDeployed: ts,
			LastDeployed:  ts,
			Status:        status,
			Description:   "Install complete",
			Notes:         "thanks for installing",
		},
		Chart:  &chart.Chart{Metadata: &chart.Metadata{Name: "demo", Version: "1.2.3", AppVersion: "4.5.6", APIVersion: "v2"}},
		Config: map[string]interface{}{"replicas": float64(version)},
		Labels: map[string]string{"team": "payments", "tier": "gold"},
	}
}

func key(name string, version int) string {
	return fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, version)
}

func mustEqualRelease(t *testing.T, want, got *release.Release) {
	t.Helper()
	if got == nil {
		t.Fatalf("got nil release, want %s v%d", want.Name, want.Version)
	}
	if got.Name != want.Name || got.Version != want.Version || got.Manifest != want.Manifest ||
		got.Info.Status != want.Info.Status || got.Namespace != want.Namespace ||
		!got.Info.LastDeployed.Equal(want.Info.LastDeployed) {
		t.Fatalf("release differs: got %s v%d %s (%d manifest bytes), want %s v%d %s (%d manifest bytes)",
			got.Name, got.Version, got.Info.Status, len(got.Manifest), want.Name, want.Version, want.Info.Status, len(want.Manifest))
	}
	if fmt.Sprint(got.Labels) != fmt.Sprint(want.Labels) {
		t.Fatalf("labels differ: got %v, want %v", got.Labels, want.Labels)
	}
	if fmt.Sprint(got.Config) != fmt.Sprint(want.Config) {
		t.Fatalf("config differs: got %v, want %v", got.Config, want.Config)
	}
}
