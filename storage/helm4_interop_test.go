package storage_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"
	"time"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	chart3 "helm.sh/helm/v3/pkg/chart"
	release3 "helm.sh/helm/v3/pkg/release"
	driver3 "helm.sh/helm/v3/pkg/storage/driver"
	helmtime3 "helm.sh/helm/v3/pkg/time"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// The cross tests hold each driver's reads to what Helm's own types make of the
// JSON another Helm wrote: Helm 3's release decoding Helm 4's JSON (what Helm 3
// keeps of a Helm 4 record), and Helm 4's decoding Helm 3's (what Helm 4's own
// drivers make of a Helm 3 record), by encoding/json. Neither oracle goes through
// chunkview's decoder.

// helm3Unknown are the fields of fullRelease's Helm 4 JSON that a read through Helm
// 3's types loses, and helm3Added those it writes that Helm 4 does not: Helm 3
// encodes a zero time (info.deleted of a live release) as "", where Helm 4 omits it.
var (
	helm3Unknown = helm4Only
	helm3Added   = []string{"info.deleted"}
)

// asHelm3 is what Helm 3's types keep of rls: Helm 4's JSON decoded into Helm 3's
// release, with the custom labels, which no JSON carries.
func asHelm3(t *testing.T, rls *rspb.Release) *release3.Release {
	t.Helper()
	var out release3.Release
	if err := json.Unmarshal(helm4JSON(t, rls), &out); err != nil {
		t.Fatal(err)
	}
	out.Labels = maps.Clone(rls.Labels)
	return &out
}

// asHelm4 is what Helm 4's types make of rls: Helm 3's JSON decoded into Helm 4's
// release, as Helm 4's drivers decode a record Helm 3 wrote, with its labels.
func asHelm4(t *testing.T, rls *release3.Release) *rspb.Release {
	t.Helper()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var out rspb.Release
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	out.Labels = maps.Clone(rls.Labels)
	return &out
}

// mustSameHelm3 fails unless got, read by a Helm 3 driver, is want field for field:
// the same JSON, byte for byte, as Helm 3 encodes it, and the same labels.
func mustSameHelm3(t *testing.T, what string, want, got *release3.Release) {
	t.Helper()
	mustSameHelm3JSON(t, what, want, got)
	if fmt.Sprint(got.Labels) != fmt.Sprint(want.Labels) {
		t.Fatalf("%s: labels %v, want %v", what, got.Labels, want.Labels)
	}
}

// mustSameHelm3JSON is mustSameHelm3 without the labels.
func mustSameHelm3JSON(t *testing.T, what string, want, got *release3.Release) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w, g) {
		t.Fatalf("%s: Helm 3's JSON of the release read differs from what Helm 3 keeps of the one written (%d bytes, want %d):\n%s", what, len(g), len(w), firstDiff(w, g))
	}
}

// leaves returns every leaf of the JSON document js by its path
// (a.b[0].c), with its JSON value.
func leaves(t *testing.T, js []byte) map[string]string {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			b, _ := json.Marshal(v)
			out[path] = string(b)
		}
	}
	walk("", v)
	return out
}

var index = regexp.MustCompile(`\[\d+\]`)

// fieldsOf returns the paths, without array indexes, of the fields among paths.
func fieldsOf(paths []string) []string {
	set := map[string]bool{}
	for _, p := range paths {
		set[index.ReplaceAllString(p, "")] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// mustLoseExactly fails unless the Helm 3 JSON read3 has every leaf of the Helm 4
// JSON written4 with the same value, but for the leaves of the fields
// helm3Unknown, which it lacks, and of helm3Added, which it adds.
func mustLoseExactly(t *testing.T, what string, written4, read3 []byte) {
	t.Helper()
	l4, l3 := leaves(t, written4), leaves(t, read3)
	var lost, added []string
	for p, v := range l4 {
		w, ok := l3[p]
		switch {
		case !ok:
			lost = append(lost, p)
		case w != v:
			t.Errorf("%s: %s is %s through Helm 3, %s as Helm 4 wrote it", what, p, w, v)
		}
	}
	for p := range l3 {
		if _, ok := l4[p]; !ok {
			added = append(added, p)
		}
	}
	if got := fieldsOf(lost); !slices.Equal(got, helm3Unknown) {
		t.Errorf("%s: Helm 3 loses %v, want exactly %v", what, got, helm3Unknown)
	}
	if got := fieldsOf(added); !slices.Equal(got, helm3Added) {
		t.Errorf("%s: Helm 3 adds %v, want exactly %v", what, got, helm3Added)
	}
}

// TestHelm4RecordsReadByHelm3Drivers: records of several chunks that the Helm 4
// driver creates and updates read back through chunkview's Helm 3 driver and
// through helm-operator-plugins v0.9.1's, by Get, List and Query, as what Helm 3's
// types keep of them, field for field; they lose exactly the fields Helm 3 has no
// place for, every other field the same.
func TestHelm4RecordsReadByHelm3Drivers(t *testing.T) {
	_, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}
	w := helm4.NewDriver(secrets, testOwner, cfg)
	readers := map[string]driver3.Driver{
		"chunkview-helm3": storage.NewChunkedSecrets(secrets, testOwner, cfg),
		"original":        hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}),
	}
	const name = "cross4"
	v1 := fullRelease(name, 1, common.StatusDeployed, 3*helm4Chunk, 1)
	v2 := fullRelease(name, 2, common.StatusDeployed, 4*helm4Chunk, 2)
	for _, r := range []*rspb.Release{v1, v2} {
		if err := w.Create(key(r.Name, r.Version), r); err != nil {
			t.Fatal(err)
		}
	}
	// An update, as Helm's upgrade supersedes the revision before.
	got, err := w.Get(key(name, 1))
	if err != nil {
		t.Fatal(err)
	}
	v1 = got.(*rspb.Release)
	v1.SetStatus(common.StatusSuperseded, "Superseded by 2")
	if err := w.Update(key(name, 1), v1); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*rspb.Release{v1, v2} {
		if _, chunks := storedPayload(t, secrets, key(r.Name, r.Version)); chunks < 3 {
			t.Fatalf("revision %d takes %d chunks; want several", r.Version, chunks)
		}
	}

	for rname, rd := range readers {
		t.Run(rname, func(t *testing.T) {
			listed, err := rd.List(func(*release3.Release) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			queried, err := rd.Query(map[string]string{"name": name, "owner": "helm"})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []*rspb.Release{v1, v2} {
				k := key(want.Name, want.Version)
				got, err := rd.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				mustSameHelm3(t, rname+" Get "+k, asHelm3(t, want), got)
				read3, err := json.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				mustLoseExactly(t, rname+" Get "+k, helm4JSON(t, want), read3)
				for what, rs := range map[string][]*release3.Release{"List": listed, "Query": queried} {
					i := slices.IndexFunc(rs, func(r *release3.Release) bool { return r.Version == want.Version })
					if i < 0 || len(rs) != 2 {
						t.Fatalf("%s %s: %d releases, revision %d among them: %v", rname, what, len(rs), want.Version, i >= 0)
					}
					if rname == "original" && what == "List" {
						// The original driver's List gives the index Secret's labels
						// as the release's (chunked-format.md): its JSON is still
						// the record's.
						mustSameHelm3JSON(t, rname+" "+what+" "+k, asHelm3(t, want), rs[i])
						if rs[i].Labels["owner"] != testOwner {
							t.Fatalf("the original driver's List gave labels %v, not the index's", rs[i].Labels)
						}
						continue
					}
					mustSameHelm3(t, rname+" "+what+" "+k, asHelm3(t, want), rs[i])
				}
			}
		})
	}

	// chunkview's Helm 3 driver names them too, by its own walk of the payload.
	for _, want := range []*rspb.Release{v1, v2} {
		d := storage.NewDriver(secrets, testOwner, cfg)
		idx, err := d.ReadIndex(t.Context(), key(want.Name, want.Version))
		if err != nil {
			t.Fatal(err)
		}
		_, _, info, err := d.DecodeStats(t.Context(), idx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(info.UnknownFields, []string{"apply_method", "chart.files[].modtime", "chart.modtime", "chart.schemamodtime", "chart.templates[].modtime", "info.rollback_revision"}) || info.ApplyMethod != "ssa" {
			t.Errorf("DecodeStats of revision %d: unknown fields %v, apply method %q", want.Version, info.UnknownFields, info.ApplyMethod)
		}
	}
}

// helm3Release is a release as Helm 3 writes one, with every part a record holds,
// times in a zone other than UTC, and a manifest of about payload bytes of noise.
func helm3Release(name string, version int, status release3.Status, payload int, seed uint64) *release3.Release {
	cet := time.FixedZone("CET", 3600)
	ts := helmtime3.Time{Time: time.Date(2026, 11, 1, 12, 0, 0, 987654321, cet).Add(time.Duration(version) * time.Hour)}
	return &release3.Release{
		Name:      name,
		Namespace: "apps",
		Version:   version,
		Info: &release3.Info{FirstDeployed: ts, LastDeployed: ts, Status: status,
			Description: "Upgrade complete", Notes: "thanks for installing"},
		Chart: &chart3.Chart{
			Metadata:  &chart3.Metadata{APIVersion: "v2", Name: "demo", Version: "1.2.3", AppVersion: "4.5.6"},
			Templates: []*chart3.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n")}},
			Files:     []*chart3.File{{Name: "README.md", Data: []byte("# demo\n")}},
			Values:    map[string]any{"replicas": float64(1)},
			Schema:    []byte(`{"type":"object"}`),
		},
		Config:   map[string]any{"replicas": float64(version)},
		Manifest: fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  blob: %s\n", name, noise(seed, payload*4/3)),
		Hooks: []*release3.Hook{{Name: "pre", Kind: "Job", Path: "templates/job.yaml", Manifest: "kind: Job\n",
			Events:  []release3.HookEvent{release3.HookPreInstall},
			LastRun: release3.HookExecution{StartedAt: ts, CompletedAt: ts, Phase: release3.HookPhaseSucceeded}}},
		Labels: map[string]string{"team": "payments"},
	}
}

// TestHelm3RecordsReadByHelm4: records of several chunks that chunkview's Helm 3
// driver and helm-operator-plugins v0.9.1's create and update read back through
// the Helm 4 driver, by Get, List and Query, as what Helm 4's types make of them,
// field for field.
func TestHelm3RecordsReadByHelm4(t *testing.T) {
	cfg := storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}
	writers := map[string]func(secrets corev1client.SecretInterface) driver3.Driver{
		"chunkview-helm3": func(s corev1client.SecretInterface) driver3.Driver {
			return storage.NewChunkedSecrets(s, testOwner, cfg)
		},
		"original": func(s corev1client.SecretInterface) driver3.Driver {
			return hopstorage.NewChunkedSecrets(s, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: helm4Chunk})
		},
	}
	for wname, mk := range writers {
		t.Run(wname, func(t *testing.T) {
			_, secrets := newNamespace(t)
			w := mk(secrets)
			const name = "cross3"
			v1 := helm3Release(name, 1, release3.StatusDeployed, 3*helm4Chunk, 1)
			v2 := helm3Release(name, 2, release3.StatusDeployed, 4*helm4Chunk, 2)
			for _, r := range []*release3.Release{v1, v2} {
				if err := w.Create(key(r.Name, r.Version), r); err != nil {
					t.Fatal(err)
				}
			}
			v1.Info.Status, v1.Info.Description = release3.StatusSuperseded, "Superseded by 2"
			if err := w.Update(key(name, 1), v1); err != nil {
				t.Fatal(err)
			}
			for _, r := range []*release3.Release{v1, v2} {
				if _, chunks := storedPayload(t, secrets, key(r.Name, r.Version)); chunks < 3 {
					t.Fatalf("revision %d takes %d chunks; want several", r.Version, chunks)
				}
			}
			rd := helm4.NewDriver(secrets, testOwner, cfg)
			listed, err := rd.List(nil)
			if err != nil {
				t.Fatal(err)
			}
			queried, err := rd.Query(map[string]string{"name": name, "owner": "helm"})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*release3.Release{v1, v2} {
				want := asHelm4(t, r)
				k := key(r.Name, r.Version)
				got, err := rd.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				mustSameRelease(t, "Get "+k, want, got)
				for what, rs := range map[string][]any{"List": anys(listed), "Query": anys(queried)} {
					i := slices.IndexFunc(rs, func(x any) bool { return x.(*rspb.Release).Version == r.Version })
					if i < 0 || len(rs) != 2 {
						t.Fatalf("%s: %d releases, revision %d among them: %v", what, len(rs), r.Version, i >= 0)
					}
					mustSameRelease(t, what+" "+k, want, rs[i])
				}
			}
		})
	}
}

// TestUpdatesAcrossDrivers: a record one driver wrote, the other updates, as an
// operator on helm-operator-plugins and chunkview on Helm 4 take turns: each
// update reads back through the other driver as what its Helm's types make of it.
func TestUpdatesAcrossDrivers(t *testing.T) {
	_, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}
	h4 := helm4.NewDriver(secrets, testOwner, cfg)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: helm4Chunk})
	k := key("turns", 1)

	// The original driver creates; the Helm 4 driver supersedes it.
	if err := orig.Create(k, helm3Release("turns", 1, release3.StatusDeployed, 3*helm4Chunk, 1)); err != nil {
		t.Fatal(err)
	}
	got, err := h4.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	r4 := got.(*rspb.Release)
	r4.SetStatus(common.StatusSuperseded, "Superseded by 2")
	r4.Manifest += noise(9, 2*helm4Chunk)
	r4.ApplyMethod = string(rspb.ApplyMethodServerSideApply)
	if err := h4.Update(k, r4); err != nil {
		t.Fatal(err)
	}
	back3, err := orig.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	mustSameHelm3(t, "the original driver's Get of the Helm 4 update", asHelm3(t, r4), back3)

	// The original driver updates it again; the Helm 4 driver reads it.
	back3.Info.Description = "changed by the operator"
	if err := orig.Update(k, back3); err != nil {
		t.Fatal(err)
	}
	got, err = helm4.NewDriver(secrets, testOwner, cfg).Get(k)
	if err != nil {
		t.Fatal(err)
	}
	mustSameRelease(t, "the Helm 4 driver's Get of the original's update", asHelm4(t, back3), got)
	if _, chunks := storedPayload(t, secrets, k); chunks < 3 {
		t.Fatalf("the record takes %d chunks; want several", chunks)
	}
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
