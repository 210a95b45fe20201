package storage_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// jsonCorpus is the JSON the decode tests hold json/v1 to encoding/json on: the
// payloads of real-shaped releases (a chart with files, values, hooks, Helm 4's
// fields), the unknown-field walk's corpus, and JSON that tells decoders apart.
func jsonCorpus(t testing.TB) [][]byte {
	t.Helper()
	// Small enough to seed the fuzz target (fuzzSeedMax) with every shape.
	rich := testRelease("rich", 3, release.StatusDeployed, 256)
	rich.Chart.Templates = []*chart.File{{Name: "templates/a.yaml", Data: []byte("kind: A\n\x00\xff")}, {Name: "templates/b.yaml"}}
	rich.Chart.Files = []*chart.File{{Name: "README.md", Data: bytes.Repeat([]byte("é\"\\\n"), 40)}}
	rich.Chart.Schema = []byte(`{"type":"object"}`)
	rich.Chart.Values = map[string]interface{}{"a": map[string]interface{}{"b": []interface{}{1.5, "x", nil, true, map[string]interface{}{"ü": "\u2028"}}}}
	rich.Config = map[string]interface{}{"big": 1e300, "neg": -0.0, "int": 9007199254740993.0, "s": "<&>"}
	rich.Hooks = []*release.Hook{{Name: "h", Kind: "Job", Events: []release.HookEvent{release.HookPreInstall}, LastRun: release.HookExecution{Phase: release.HookPhaseSucceeded}}}
	rich.Labels = map[string]string{"team": "a", "ünïcode": "ok"}
	var corpus [][]byte
	for _, rls := range []*release.Release{rich, benchRelease("bench", 2, 200<<10, 9), helmRecordRelease("three", 1)} {
		js, err := json.Marshal(&storage.Payload{Release: *rls, Labels: rls.Labels})
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, js)
	}
	corpus = append(corpus, unknownFieldsCorpus(t)...)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, s := range []string{
		``, ` `, `nul`, `[]`, `"x"`, `1`, `{}x`, `{} {}`, `{"name":"a"}}`, `{"name":"a",}`, `{"name":'a'}`,
		`{"name":"\ud800"}`, `{"name":"\udc00\ud800"}`, `{"name":"\ud83d\ude00"}`, "{\"name\":\"\xff\xfe\"}", "{\"name\":\"a\x01\"}",
		`{"name":"\u00"}`, `{"name":"\x"}`, `{"name":"a","name":"b","NAME":"c"}`, `{"Name":"a","name":"b"}`,
		`{"version":1.0}`, `{"version":1e2}`, `{"version":-0}`, `{"version":9223372036854775808}`, `{"version":"1"}`, `{"version":01}`,
		`{"version":null,"info":null,"chart":{"metadata":null,"templates":[null]}}`, `{"config":{"a":1e400}}`, `{"config":{"a":-}}`,
		`{"info":{"first_deployed":"2020-01-01T00:00:00Z","last_deployed":"not a time"}}`, `{"info":{"first_deployed":null}}`,
		`{"info":{"first_deployed":""}}`, `{"chart":{"templates":[{"data":"AA"}]}}`, `{"chart":{"templates":[{"data":"A==="}]}}`,
		`{"chart":{"templates":[{"data":"QUJD\nREVG"}]}}`, `{"chart":{"templates":[{"data":null}]}}`, `{"chart":{"schema":[1,2]}}`,
		`{"labels":{"a":1}}`, `{"labels":[]}`, `{"hooks":{}}`, `{"manifest":123}`, `{"config":` + deep + `}`, `{"config":{"a":` + deep + `}}`,
		`{"info":{"status":"deployed"},"release":{"name":"x"}}`, "\ufeff{}", `{"name":"a"/**/}`, `{"name":"a" , "version" : 2 }`,
	} {
		corpus = append(corpus, []byte(s))
	}
	return corpus
}

// decodeBoth decodes js as the reads do and with encoding/json, and fails t when
// they differ: in whether they accept it, in their error, or in what they decode.
// json/v1 alone is held to encoding/json too, whatever decoder the reads would
// pick for js (small or quote-dense JSON goes to encoding/json): whatever it
// accepts, encoding/json accepts and decodes alike.
func decodeBoth(t *testing.T, js []byte) {
	t.Helper()
	var got, want, fast storage.Payload
	err := storage.UnmarshalPayloadJSON(js, &got)
	wantErr := json.Unmarshal(js, &want)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%.200q: decode error %v, encoding/json %v", js, err, wantErr)
	}
	if fastErr := storage.FastUnmarshalPayloadJSON(js, &fast); fastErr == nil {
		if wantErr != nil {
			t.Fatalf("%.200q: json/v1 accepts it, encoding/json says %v", js, wantErr)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%.200q: json/v1 decodes to\n%#v\nencoding/json to\n%#v", js, fast, want)
		}
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("%.200q: error %q, encoding/json says %q", js, err, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: decodes to\n%#v\nencoding/json to\n%#v", js, got, want)
	}
}

func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	for i, js := range jsonCorpus(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) { decodeBoth(t, js) })
	}
}

// TestUnmarshalFastPath: the releases the drivers write decode through json/v1
// itself, not its fall back, and to what encoding/json decodes.
func TestUnmarshalFastPath(t *testing.T) {
	for _, js := range jsonCorpus(t)[:3] {
		var got, want storage.Payload
		if err := storage.FastUnmarshalPayloadJSON(js, &got); err != nil {
			t.Fatalf("json/v1 refused a release's JSON: %v", err)
		}
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("json/v1 decodes %s differently", want.Name)
		}
	}
}

// TestUnmarshalCopiesStrings: a decoded release refers to no buffer of the
// decode. The reads hand it a pooled buffer, reused by the next read, and a
// string kept from it (a chart name in a listing row) must keep neither that
// buffer nor the decoder's copy alive, nor change when they are reused.
func TestUnmarshalCopiesStrings(t *testing.T) {
	encode := func(name string, seed uint64) []byte {
		rls := benchRelease(name, 1, 4<<20, seed)
		js, err := json.Marshal(&storage.Payload{Release: *rls, Labels: rls.Labels})
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	js := encode("first", 1)
	var want storage.Payload
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatal(err)
	}
	var got storage.Payload
	if err := storage.UnmarshalPayloadJSON(js, &got); err != nil {
		t.Fatal(err)
	}
	// The buffer reused, and the decoder's own buffers with it.
	copy(js, encode("other", 2))
	var other storage.Payload
	if err := storage.UnmarshalPayloadJSON(encode("third", 3), &other); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("a decoded release changed when the buffers of its decode were reused")
	}

	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	var kept []string
	for i := range 4 {
		var p storage.Payload
		if err := storage.UnmarshalPayloadJSON(encode(fmt.Sprint("kept-", i), uint64(i)), &p); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p.Name, p.Chart.Metadata.Name, p.Config["tag"].(string))
	}
	// Four decodes of len(js) bytes each: strings that held their decode's JSON
	// would keep 4×len(js) alive.
	if grown := int64(heap()) - int64(before); grown > int64(len(js)) {
		t.Fatalf("the heap grew by %d bytes for %d short strings kept from 4 decodes of %d bytes each", grown, len(kept), len(js))
	}
	runtime.KeepAlive(kept)
}

// FuzzUnmarshalRelease holds the decode to encoding/json's result on any bytes:
// the same acceptance, the same error, the same release.
//
// Its seeds are the corpus's small JSON, of a few KiB at most: a mutation of a
// large seed costs as much to decode as the seed, and a large input that finds new
// coverage is then minimized for up to -fuzzminimizetime, during which nothing
// else runs (with seeds of 40 KiB, 0 executions a second after the baseline). The
// large ones are held to encoding/json by TestUnmarshalMatchesEncodingJSON.
func FuzzUnmarshalRelease(f *testing.F) {
	for _, js := range jsonCorpus(f) {
		if len(js) <= fuzzSeedMax {
			f.Add(js)
		}
	}
	f.Fuzz(func(t *testing.T, js []byte) { decodeBoth(t, js) })
}

// fuzzSeedMax is the largest seed the JSON fuzz targets start from.
const fuzzSeedMax = 4 << 10

// TestUnmarshalPicksDecoder: a release of a large manifest goes to json/v1 first,
// one whose bytes are a values map of short strings to encoding/json, where
// json/v1 is the slower (BenchmarkUnmarshalRelease).
func TestUnmarshalPicksDecoder(t *testing.T) {
	for _, c := range []struct {
		name string
		rls  *release.Release
		fast bool
	}{{"manifest", manifestRelease(1 << 20), true}, {"values", valuesRelease(2000), false}, {"helm record", helmRecordRelease("three", 1), true}} {
		js, err := json.Marshal(&storage.Payload{Release: *c.rls, Labels: c.rls.Labels})
		if err != nil {
			t.Fatal(err)
		}
		if got := storage.StringHeavy(js); got != c.fast {
			t.Errorf("%s (%d bytes, %d quotes): decoded with json/v1 first %v, want %v", c.name, len(js), bytes.Count(js, []byte{'"'}), got, c.fast)
		}
	}
}

// manifestRelease is a release whose JSON is mostly its manifest and a chart
// file: most releases.
func manifestRelease(gz int) *release.Release {
	rls := benchRelease("bench", 1, gz, 5)
	rls.Chart.Templates = []*chart.File{{Name: "templates/blob.yaml", Data: []byte(rls.Manifest[:len(rls.Manifest)/4])}}
	return rls
}

// valuesRelease is a release whose JSON is mostly its values: n entries of
// short strings, as chart values and as the user's.
func valuesRelease(n int) *release.Release {
	rls := benchRelease("bench", 1, 16<<10, 5)
	vals := map[string]interface{}{}
	for i := range n {
		vals[fmt.Sprintf("key-%05d", i)] = map[string]interface{}{"enabled": i%2 == 0, "replicas": float64(i % 7), "image": fmt.Sprintf("example.com/app-%d:1.%d", i, i%13)}
	}
	rls.Chart.Values, rls.Config = vals, vals
	return rls
}

// BenchmarkUnmarshalRelease decodes a release's payload JSON as the reads do and
// with encoding/json, in turns, and reports the ratio (reads/encoding/json): a
// release whose bytes are its manifest and chart files (most releases), at two
// sizes, and one whose bytes are a values map of 20,000 entries.
func BenchmarkUnmarshalRelease(b *testing.B) {
	for _, c := range []struct {
		name string
		rls  *release.Release
	}{{"manifest/gzip=64KiB", manifestRelease(64 << 10)}, {"manifest/gzip=8MiB", manifestRelease(8 << 20)}, {"values=20000", valuesRelease(20000)}} {
		b.Run(c.name, func(b *testing.B) {
			js, err := json.Marshal(&storage.Payload{Release: *c.rls, Labels: c.rls.Labels})
			if err != nil {
				b.Fatal(err)
			}
			var fast, std float64
			b.SetBytes(int64(len(js)))
			b.ReportAllocs()
			for b.Loop() {
				var p, q storage.Payload
				fast += timeIt(func() error { return storage.UnmarshalPayloadJSON(js, &p) }, b)
				std += timeIt(func() error { return json.Unmarshal(js, &q) }, b)
			}
			b.ReportMetric(fast/std, "ratio")
		})
	}
}

// timeIt returns how long f took, in seconds, and fails b on its error.
func timeIt(f func() error, b *testing.B) float64 {
	start := time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start).Seconds()
}
