package helm4_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"helm.sh/helm/v4/pkg/release"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// helm4Only are the JSON fields of fullRelease that Helm 4 has and Helm 3 has not.
var helm4Only = []string{"apply_method", "chart.files.modtime", "chart.modtime", "chart.schemamodtime", "chart.templates.modtime", "info.rollback_revision"}

// TestFieldsKept: a release with every field Helm 4 writes, stored in several
// chunks, reads back through Get, List and Query of a driver that never saw it,
// and after an Update, as JSON byte for byte the JSON Helm 4 encodes of it, with
// its custom labels. What the Secrets hold, read without chunkview's decoder, is
// Helm 4's JSON of the release plus the format's "labels", every Helm 4 field in
// it.
func TestFieldsKept(t *testing.T) {
	_, secrets := newNamespace(t)
	cfg := chunked.Config{ChunkSize: chunkSize}
	want := fullRelease("full", 3, common.StatusDeployed, 3*chunkSize, 1)
	k := key(want.Name, want.Version)
	if err := helm4.NewDriver(secrets, testOwner, cfg).Create(k, want); err != nil {
		t.Fatal(err)
	}
	reads := func(t *testing.T, want *rspb.Release) {
		t.Helper()
		d := helm4.NewDriver(secrets, testOwner, cfg)
		got, err := d.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Get", want, got)
		listed, err := d.List(func(r release.Releaser) bool { return r.(*rspb.Release).Name == want.Name })
		if err != nil || len(listed) != 1 {
			t.Fatalf("List: %d releases, %v", len(listed), err)
		}
		mustSameRelease(t, "List", want, listed[0])
		queried, err := d.Query(map[string]string{"name": want.Name, "owner": "helm", "tier": "gold"})
		if err != nil || len(queried) != 1 {
			t.Fatalf("Query: %d releases, %v", len(queried), err)
		}
		mustSameRelease(t, "Query", want, queried[0])

		js, chunks := storedPayload(t, secrets, k)
		if chunks < 3 {
			t.Fatalf("the record takes %d chunks; want several", chunks)
		}
		var stored map[string]json.RawMessage
		if err := json.Unmarshal(js, &stored); err != nil {
			t.Fatal(err)
		}
		var labels map[string]string
		if err := json.Unmarshal(stored["labels"], &labels); err != nil || !maps.Equal(labels, want.Labels) {
			t.Fatalf("stored labels %s (%v), want %v", stored["labels"], err, want.Labels)
		}
		var rls rspb.Release
		if err := json.Unmarshal(js, &rls); err != nil {
			t.Fatal(err)
		}
		rls.Labels = want.Labels
		mustSameRelease(t, "the stored JSON, decoded by encoding/json", want, &rls)
		if paths := jsonPaths(t, js); !containsAll(paths, helm4Only) {
			t.Fatalf("the stored JSON lacks Helm 4 fields: has %v, want all of %v", paths, helm4Only)
		}
	}
	reads(t, want)

	// Update: as Helm's upgrade marks the revision it read superseded.
	d := helm4.NewDriver(secrets, testOwner, cfg)
	got, err := d.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	up := got.(*rspb.Release)
	up.SetStatus(common.StatusSuperseded, "Superseded by 4")
	if err := d.Update(k, up); err != nil {
		t.Fatal(err)
	}
	want.SetStatus(common.StatusSuperseded, "Superseded by 4")
	reads(t, want)
}

// jsonPaths returns the paths of every object key in js, array indexes left out.
func jsonPaths(t *testing.T, js []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				set[p] = true
				walk(p, e)
			}
		case []any:
			for _, e := range v {
				walk(prefix, e)
			}
		}
	}
	walk("", v)
	return slices.Sorted(maps.Keys(set))
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
