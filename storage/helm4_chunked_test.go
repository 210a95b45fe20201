package storage_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	release4 "helm.sh/helm/v4/pkg/release/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// helm4Payload returns the chunked format's payload for a release Helm 4 wrote:
// Helm 4's release as JSON plus the format's "labels", gzip-compressed at best
// compression as the format's writers do. This is what a chunked driver built on
// Helm 4 (a future operator) would store.
func helm4Payload(t testing.TB, rls *release4.Release, labels map[string]string) []byte {
	t.Helper()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(js, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["labels"], err = json.Marshal(labels); err != nil {
		t.Fatal(err)
	}
	if js, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = zw.Write(js)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// helm4Unknown are the paths of helm4Release's fields that Helm 3's types drop.
// Helm 4 omits a zero mod time (README.md has none) but not a zero schema mod time.
var helm4Unknown = []string{"apply_method", "chart.modtime", "chart.schemamodtime", "chart.templates[].modtime", "info.rollback_revision"}

// TestChunkedHelm4UnknownFields: a record Helm 4 would write into the chunked
// format, stored in several chunks on the real API server, decodes with its apply
// method and the paths of the fields Helm 3 drops, and not the format's own
// "labels"; its custom labels still come back. Records Helm 3 wrote, through
// chunkview's driver or the original one, report none. Helm's own reads (Get) of
// the Helm 4 record go on working.
func TestChunkedHelm4UnknownFields(t *testing.T) {
	ctx := t.Context()
	_, secrets := newNamespace(t)
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize})

	rls4 := helm4Release("four")
	rls4.Chart.Files[0].Data = []byte(noise(4, 3*integrityChunkSize)) // over several chunks
	k := key(rls4.Name, rls4.Version)
	gz := helm4Payload(t, rls4, map[string]string{"team": "a"})
	if n := handStore(t, secrets, k, gz, integrityChunkSize); n < 2 {
		t.Fatalf("the Helm 4 record fits in %d chunk; want several", n)
	}
	idx, err := d.ReadIndex(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	rls, sum, info, err := d.DecodeStats(ctx, idx)
	if err != nil {
		t.Fatal(err)
	}
	if info.ApplyMethod != "ssa" {
		t.Errorf("apply method %q, want ssa", info.ApplyMethod)
	}
	if !slices.Equal(info.UnknownFields, helm4Unknown) {
		t.Errorf("unknown fields %q, want %q", info.UnknownFields, helm4Unknown)
	}
	if slices.Contains(info.UnknownFields, "labels") {
		t.Errorf("the format's own labels field reported as unknown: %q", info.UnknownFields)
	}
	if !maps.Equal(rls.Labels, map[string]string{"team": "a"}) || rls.Chart.Metadata.AppVersion != "4.5.6" || rls.Info.Description != "Rollback to 2" {
		t.Errorf("decoded labels %v, chart %+v, info %+v", rls.Labels, rls.Chart.Metadata, rls.Info)
	}
	if sum.Chunks < 2 || sum.StoredBytes != int64(len(gz)) || sum.Chart != "demo" {
		t.Errorf("summary %+v", sum)
	}
	if got, err := d.Get(k); err != nil || got.Name != "four" {
		t.Fatalf("Helm's read of the Helm 4 record: %v", err)
	}

	// Records Helm 3 wrote, with every part a record carries and custom labels.
	h3 := helmRecordRelease("three", 1)
	h3.Labels = map[string]string{"team": "b"}
	if err := d.Create(key(h3.Name, h3.Version), h3); err != nil {
		t.Fatal(err)
	}
	orig := helmRecordRelease("orig", 1)
	orig.Labels = map[string]string{"team": "c"}
	if err := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize}).Create(key(orig.Name, orig.Version), orig); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*release.Release{h3, orig} {
		idx, err := d.ReadIndex(ctx, key(r.Name, r.Version))
		if err != nil {
			t.Fatal(err)
		}
		got, _, info, err := d.DecodeStats(ctx, idx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(info, storage.DecodeInfo{}) {
			t.Errorf("%s: a Helm 3 record reports %+v", r.Name, info)
		}
		if !maps.Equal(got.Labels, r.Labels) {
			t.Errorf("%s: labels %v, want %v", r.Name, got.Labels, r.Labels)
		}
	}
}

// unknownFieldsCorpus is JSON the walk must read as the json.Decoder walk it
// replaced did: every shape encoding/json accepts where Helm 3's types expect a
// struct, keys it matches only by folding case or after unescaping, escapes inside
// strings, and unknown keys at every depth.
func unknownFieldsCorpus(t testing.TB) [][]byte {
	t.Helper()
	rls4, err := json.Marshal(helm4Release("four"))
	if err != nil {
		t.Fatal(err)
	}
	h3, err := json.Marshal(helmRecordRelease("three", 1))
	if err != nil {
		t.Fatal(err)
	}
	corpus := [][]byte{rls4, h3, gunzip(t, helm4Payload(t, helm4Release("four"), map[string]string{"a": "b"}))}
	for _, s := range []string{
		`{}`,
		`null`,
		`{"info":null,"chart":null,"hooks":null,"labels":null}`,
		`{"apply_method":"csa","labels":{"x":"y"},"LABELS":{}}`,
		`{"apply_method":7,"x":[1,2,{"y":"}"}]}`,
		`{"apply_method":"s\"sa\\","apply_method":"ssa"}`,
		`{"\u0061pply_method":"ssa","n\u0061me":"x","NAME":"y","Info":{"Status":"deployed","zz":1}}`,
		`{"name":"a\\\"b\\\\","info":{"notes":"\\\\\"","deleted":"2020-01-01T00:00:00Z","extra":{"deep":[{"deeper":true}]}}}`,
		`{"chart":{"metadata":{"name":"c","dependencies":[{"name":"d","alias":"e","new":1},null]},"templates":[{"name":"t","data":"AA==","modtime":"x"}],"lock":{"digest":"d","dependencies":[{"name":"x","unknown":[]}]}}}`,
		`{"chart":{"values":{"a":{"b":{"c":[1,2,3]}}},"schema":"e30=","files":[]},"config":{"deep":{"unknown":"fine"}}}`,
		`{"hooks":[{"name":"h","last_run":{"phase":"Succeeded","started_at":"2020-01-01T00:00:00Z","extra":null},"output_log_policies":["x"]}],"version":1}`,
		" \n\t{ \"info\" : { \"status\" : \"deployed\" , \"q\" : [ ] } , \"z\" : -1.5e+10 , \"t\" : true , \"f\" : false } ",
		`{"info":{"resources":{"v1/Pod":[{"kind":"Pod","unknown":1}]}}}`,
	} {
		corpus = append(corpus, []byte(s))
	}
	return corpus
}

func gunzip(t testing.TB, gz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestUnknownFieldsMatchesDecoder: the in-place scanner finds what the json.Decoder
// walk found, on the corpus and on the fuzz target's seeds.
func TestUnknownFieldsMatchesDecoder(t *testing.T) {
	for _, js := range unknownFieldsCorpus(t) {
		mustWalkAlike(t, js)
	}
}

// FuzzUnknownFields checks the scanner against the json.Decoder walk on any JSON
// that a payload decode accepts.
func FuzzUnknownFields(f *testing.F) {
	for _, js := range unknownFieldsCorpus(f) {
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		var p struct {
			release.Release
			Labels map[string]string `json:"labels"`
		}
		if json.Unmarshal(js, &p) != nil {
			return
		}
		mustWalkAlike(t, js)
	})
}

func mustWalkAlike(t *testing.T, js []byte) {
	t.Helper()
	paths, method, err := storage.UnknownFieldsOfPayload(js)
	wantPaths, wantMethod, wantErr := storage.UnknownFieldsOfPayloadDecoder(js)
	if (err == nil) != (wantErr == nil) || !slices.Equal(paths, wantPaths) || method != wantMethod {
		t.Errorf("%.300s:\nscanner %q %q %v\ndecoder %q %q %v", js, paths, method, err, wantPaths, wantMethod, wantErr)
	}
}
