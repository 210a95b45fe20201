package demo

import (
	"context"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// records lists every release record of c, in every namespace: by namespace and
// name, the labels the stores read and the data.
func records(t *testing.T, c *fakeapi.Cluster) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	secrets, err := c.Clientset().CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		lbs := without(s.Labels, "createdAt", "modifiedAt")
		out["secret/"+s.Namespace+"/"+s.Name] = []any{s.Type, lbs, s.Annotations, s.Data}
	}
	cms, err := c.Clientset().CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cms.Items {
		out["configmap/"+m.Namespace+"/"+m.Name] = []any{without(m.Labels, "createdAt", "modifiedAt"), m.Data}
	}
	return out
}

// without copies m without the keys drop: the times a record was written at.
func without(m map[string]string, drop ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	return out
}

// TestSeedInBackground: SeedInBackground returns with the quick samples written,
// before the others, and once done the cluster holds what Seed writes (the same
// records, damage included) and the same fleet.
func TestSeedInBackground(t *testing.T) {
	ctx := context.Background()
	bg := fakeapi.NewCluster()
	s, err := SeedInBackground(ctx, bg, SeedOptions{Now: seedNow})
	if err != nil {
		t.Fatal(err)
	}
	secrets := bg.Clientset().CoreV1().Secrets
	for _, q := range QuickSamples {
		ns := map[string]string{"podinfo": "demo", RedisRelease: WebNamespace}[q]
		list, err := secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "name=" + q})
		if err != nil || len(list.Items) == 0 {
			t.Errorf("%s is not written when SeedInBackground returns: %v", q, err)
		}
	}
	got, err := s.Wait()
	if err != nil {
		t.Fatal(err)
	}
	fg := fakeapi.NewCluster()
	want, err := Seed(ctx, fg, SeedOptions{Now: seedNow})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := records(t, bg), records(t, fg); !reflect.DeepEqual(a, b) {
		for k := range b {
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("%s differs from what Seed writes", k)
			}
		}
		t.Fatalf("the background seed holds %d records, Seed %d", len(a), len(b))
	}
	if len(got.Releases) != len(want.Releases) || len(got.Orphans) != len(want.Orphans) {
		t.Fatalf("fleet: %d releases and %d orphans, Seed's %d and %d", len(got.Releases), len(got.Orphans), len(want.Releases), len(want.Orphans))
	}
	for i := range want.Releases {
		a, b := got.Releases[i], want.Releases[i]
		if a.Name != b.Name || len(a.Revisions) != len(b.Revisions) {
			t.Fatalf("release %d: %s, want %s", i, a.Name, b.Name)
		}
		for j := range b.Revisions {
			if ra, rb := a.Revisions[j], b.Revisions[j]; ra.Key != rb.Key || ra.StoredBytes != rb.StoredBytes || ra.Damage != rb.Damage || ra.DamagedSecret != rb.DamagedSecret {
				t.Errorf("%s: %+v, want %+v", rb.Key, ra, rb)
			}
		}
	}
}

// TestSeedOnly: Only writes the samples it names, each with its damage unless
// Intact, and nothing for an empty list.
func TestSeedOnly(t *testing.T) {
	ctx := context.Background()
	c := fakeapi.NewCluster()
	f, err := Seed(ctx, c, SeedOptions{Now: seedNow, Only: []string{"ledger"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Releases) != 1 || f.Releases[0].Name != "ledger" || f.Releases[0].Latest().Damage != MissingChunk {
		t.Errorf("Only ledger: %+v", f.Releases)
	}
	f, err = Seed(ctx, fakeapi.NewCluster(), SeedOptions{Now: seedNow, Only: []string{"ledger"}, Intact: true})
	if err != nil || f.Releases[0].Latest().Damage != Undamaged {
		t.Errorf("Only ledger, intact: %v", err)
	}
	f, err = Seed(ctx, fakeapi.NewCluster(), SeedOptions{Now: seedNow, Only: []string{"cert-manager"}})
	if err != nil || len(f.Orphans) != 1 {
		t.Errorf("Only cert-manager: orphans %v, %v", f.Orphans, err)
	}
	empty := fakeapi.NewCluster()
	if f, err = Seed(ctx, empty, SeedOptions{Now: seedNow, Only: []string{}}); err != nil || len(f.Releases) != 0 {
		t.Errorf("Only none: %d releases, %v", len(f.Releases), err)
	}
	if recs := records(t, empty); len(recs) != 0 {
		t.Errorf("Only none wrote %d records", len(recs))
	}
}
