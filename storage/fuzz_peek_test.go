package storage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// The fuzz targets of the decoders that read a Helm record (DecodeHelmRecord) and
// the peeks that read a listing row's summary from the front of a record
// (PeekSummary, PeekHelmSummary). All three read bytes anyone who may write a
// Secret or ConfigMap controls. Each must not panic, must stay within its bound
// on memory whatever the bytes inflate to, and must agree with a decoder that is
// not chunkview's: Helm's own ConfigMaps driver (Helm 3.22's decodeRelease and
// encodeRelease, reached through its Get and Create), or encoding/json over
// compress/gzip for the chunked format. None needs a cluster.

// fuzzHelmMax is the bound on decoded JSON the Helm record fuzz target decodes
// under: small, so that a gzip bomb is refused cheaply.
const fuzzHelmMax = 64 << 10

// helmConfigMap is a ConfigMaps client holding one ConfigMap, for Helm's
// ConfigMaps driver: Get returns it, Create keeps what Helm stores. Helm's Secrets
// driver decodes alike but dereferences a nil release when the decode fails
// (v3.22's Secrets.Get sets r.Labels before it checks the error), so the
// ConfigMaps driver stands for both.
type helmConfigMap struct {
	corev1client.ConfigMapInterface
	cm *corev1.ConfigMap
}

func (h *helmConfigMap) Get(context.Context, string, metav1.GetOptions) (*corev1.ConfigMap, error) {
	return h.cm, nil
}

func (h *helmConfigMap) Create(_ context.Context, cm *corev1.ConfigMap, _ metav1.CreateOptions) (*corev1.ConfigMap, error) {
	h.cm = cm
	return cm, nil
}

// helmDecode decodes data["release"] as Helm's ConfigMaps driver does.
func helmDecode(data []byte) (*release.Release, error) {
	h := &helmConfigMap{cm: &corev1.ConfigMap{Data: map[string]string{storage.HelmDataKey: string(data)}}}
	rls, err := driver.NewConfigMaps(h).Get("sh.helm.release.v1.fuzz.v1")
	if err != nil {
		return nil, err
	}
	// Helm fills Labels from the object's, of which this one has none.
	rls.Labels = nil
	return rls, nil
}

// helmEncode returns data["release"] as Helm's ConfigMaps driver writes rls.
func helmEncode(t *testing.T, rls *release.Release) []byte {
	t.Helper()
	h := &helmConfigMap{}
	if err := driver.NewConfigMaps(h).Create("sh.helm.release.v1.fuzz.v1", rls); err != nil {
		t.Fatalf("Helm does not encode the release: %v", err)
	}
	return []byte(h.cm.Data[storage.HelmDataKey])
}

// allocated returns the bytes f allocated on the heap (whatever the garbage
// collector has freed since).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// gzipBytes compresses b (default level: the peeks do not care, and the fuzz
// targets compress on every execution).
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// peekAllocBound is what a peek may allocate beyond a multiple of its input,
// from its bound of 4 MiB of inflated JSON: a string of that size is buffered by
// the JSON decoder as it grows (8 MiB in all) and then copied out of the buffer
// and unquoted (4 MiB each), about 16.8 MiB measured; a peek without its bound
// allocates four times what the bytes inflate to.
const peekAllocBound = 21 << 20

// bombJSON is the JSON of a release whose notes are n bytes of one letter: it
// compresses about 1000:1.
func bombJSON(n int) []byte {
	return []byte(`{"name":"bomb","info":{"notes":"` + strings.Repeat("x", n) + `"},"chart":{"metadata":{"name":"c"}}}`)
}

// smallReleases are realistic releases of a few KiB, the seeds' shapes: a Helm 3
// record, one with hooks, values and labels, and one whose chart metadata sits
// late (notes before it).
func smallReleases() []*release.Release {
	plain := testRelease("plain", 2, release.StatusDeployed, 512)
	rich := testRelease("rich", 3, release.StatusSuperseded, 256)
	rich.Hooks = []*release.Hook{{Name: "h", Kind: "Job", Events: []release.HookEvent{release.HookPreInstall}}}
	rich.Config = map[string]interface{}{"db": map[string]interface{}{"password": "x"}, "n": 1.5}
	late := testRelease("late", 1, release.StatusFailed, 64)
	late.Info.Notes = strings.Repeat("notes ", 200)
	late.Info.Description = "Upgrade \"failed\": \u2028 é"
	return []*release.Release{plain, rich, late}
}

// FuzzDecodeHelmRecord feeds DecodeHelmRecord arbitrary data["release"] bytes. It
// must not panic; it must refuse with ErrCorrupt or ErrTooLarge; it must allocate
// about its bound and the input's size, not what the bytes inflate to; and it must
// decode what Helm's own driver decodes, to the same release, and refuse what Helm
// refuses (and a release without info, which Helm accepts but no Helm writes).
func FuzzDecodeHelmRecord(f *testing.F) {
	for _, rls := range smallReleases() {
		js, err := json.Marshal(rls)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(base64.StdEncoding.EncodeToString(gzipBytes(f, js))))
		// Records from before Helm compressed them: base64 of the JSON itself.
		f.Add([]byte(base64.StdEncoding.EncodeToString(js)))
	}
	for _, s := range []string{``, `=`, `e30=`, `bnVsbA==`, `H4sI`, `H4sIAAAAAAAA/w==`, "e30=\n", `{"info":{}}`} {
		f.Add([]byte(s))
	}
	// A gzip bomb: 16 MiB of JSON in a few KiB.
	f.Add([]byte(base64.StdEncoding.EncodeToString(gzipBytes(f, bombJSON(16<<20)))))

	f.Fuzz(func(t *testing.T, data []byte) {
		var rec *storage.HelmRecord
		var err error
		used := allocated(func() { rec, err = storage.DecodeHelmRecord(data, fuzzHelmMax) })
		// The base64 decode, the inflated JSON up to the bound, and the release
		// decoded from that JSON, a few times over each.
		if bound := 1<<20 + 16*uint64(len(data)) + 32*fuzzHelmMax; used > bound {
			t.Fatalf("decoding %d bytes allocated %d bytes, over %d", len(data), used, bound)
		}
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) && !errors.Is(err, storage.ErrTooLarge) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrTooLarge", err)
			}
			if rec != nil {
				t.Fatalf("returned a record with error %v", err)
			}
		} else {
			if rec == nil || rec.Release == nil || rec.Release.Info == nil {
				t.Fatalf("returned %+v without a release and its info", rec)
			}
			if rec.DecodedBytes > fuzzHelmMax || rec.GzipBytes > len(data) {
				t.Fatalf("decoded %d bytes of JSON from %d bytes of gzip in %d bytes, bound %d", rec.DecodedBytes, rec.GzipBytes, len(data), fuzzHelmMax)
			}
			if !slices.IsSorted(rec.UnknownFields) || len(rec.UnknownFields) > 64 {
				t.Fatalf("unknown fields %q: want at most 64, sorted", rec.UnknownFields)
			}
		}
		if errors.Is(err, storage.ErrTooLarge) {
			return // Helm's decode has no bound: not asked
		}
		want, herr := helmDecode(data)
		switch {
		case err == nil && herr != nil:
			t.Fatalf("decodes %.100q, which Helm's driver refuses: %v", data, herr)
		case err != nil && herr == nil && want.Info != nil:
			t.Fatalf("refuses %.100q (%v), which Helm's driver decodes", data, err)
		case err == nil && !reflect.DeepEqual(rec.Release, want):
			t.Fatalf("decodes %.100q to\n%#v\nHelm's driver to\n%#v", data, rec.Release, want)
		}
	})
}

// FuzzPeekHelmSummary feeds PeekHelmSummary a Helm record: the fuzzed JSON
// base64'd and gzipped as Helm stores it (mode 0), base64'd alone as older Helm
// stored it (1), or the fuzzed bytes as they are (2). It must not panic and must
// allocate about four times its 4 MiB bound on inflated JSON at most (see
// peekAllocBound). A summary it gives
// must be the one Helm's driver decodes from the whole record; and on any record
// Helm's own encoder writes of a release with info and chart metadata, it must
// give one.
func FuzzPeekHelmSummary(f *testing.F) {
	for _, rls := range smallReleases() {
		js, err := json.Marshal(rls)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js, uint8(0))
		f.Add(js, uint8(1))
	}
	f.Add([]byte(`{"info":{"description":"d"},"chart":{"metadata":{"name":"c"}},"apply_method":"ssa"}`), uint8(0))
	f.Add([]byte(`{"chart":{"metadata":{"name":"c"}},"namespace":"n","info":{"description":"late"}}`), uint8(1))
	f.Add([]byte(base64.StdEncoding.EncodeToString(gzipBytes(f, bombJSON(16<<20)))), uint8(2))

	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		data := in
		switch mode % 3 {
		case 0:
			data = []byte(base64.StdEncoding.EncodeToString(gzipBytes(t, in)))
		case 1:
			data = []byte(base64.StdEncoding.EncodeToString(in))
		}
		var s storage.Summary
		var ok bool
		used := allocated(func() { s, _, ok = storage.PeekHelmSummary(data) })
		if bound := peekAllocBound + 32*uint64(len(data)); used > bound {
			t.Fatalf("peeking %d bytes allocated %d bytes, over %d", len(data), used, bound)
		}
		if ok && s.StoredBytes != int64(len(data)) {
			t.Fatalf("stored bytes %d, want len(data) %d", s.StoredBytes, len(data))
		}
		if len(data) > 4<<20 {
			return // Helm's decode has no bound: not asked
		}
		want, err := helmDecode(data)
		if err != nil {
			return
		}
		if ok {
			mustSummarize(t, "the peek of the record", s, want)
		}
		if !summarizable(want) {
			return
		}
		// What Helm writes of the same release, it must read.
		again := helmEncode(t, want)
		s, _, ok = storage.PeekHelmSummary(again)
		if !ok {
			t.Fatalf("no summary of the record Helm's driver writes of %.200q", in)
		}
		mustSummarize(t, "the peek of Helm's own record", s, want)
	})
}

// FuzzPeekSummary feeds PeekSummary an index Secret whose slice is the fuzzed
// JSON gzipped and cut after cut bytes (an index holds the front of the stream),
// or the fuzzed bytes as they are (raw). It must not panic and must allocate
// about four times its 4 MiB bound on inflated JSON at most. A summary it gives must be what
// encoding/json decodes from the whole payload, and on a payload Helm's encoding
// orders (json.Marshal of the release) with info and chart metadata, in a slice
// that holds it whole, it must give one.
func FuzzPeekSummary(f *testing.F) {
	for _, rls := range smallReleases() {
		js, err := json.Marshal(&storage.Payload{Release: *rls, Labels: rls.Labels})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js, uint16(0), false)
		f.Add(js, uint16(200), false)
	}
	f.Add([]byte(`{"name":"n","info":{"description":"d","last_deployed":"2026-01-02T03:04:05Z"},"chart":{"metadata":{"name":"c","version":"1","appVersion":"2"}}}`), uint16(0), false)
	f.Add(gzipBytes(f, bombJSON(16<<20)), uint16(0), true)

	f.Fuzz(func(t *testing.T, in []byte, cut uint16, raw bool) {
		slice := in
		if !raw {
			slice = gzipBytes(t, in)
			if n := int(cut); n > 0 && n < len(slice) {
				slice = slice[:n]
			}
		}
		idx := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1.fuzz.v1"},
			Data:       map[string][]byte{storage.DataChunk: slice, storage.DataExtraChunks: []byte("[]")},
		}
		var s storage.Summary
		var ok bool
		used := allocated(func() { s, ok = storage.PeekSummary(idx) })
		if bound := peekAllocBound + 32*uint64(len(slice)); used > bound {
			t.Fatalf("peeking a slice of %d bytes allocated %d bytes, over %d", len(slice), used, bound)
		}
		if ok && s.Chunks != 1 {
			t.Fatalf("%d chunks, want 1 (extraChunks is empty)", s.Chunks)
		}
		if raw {
			return
		}
		var want release.Release
		if json.Unmarshal(in, &want) != nil {
			return
		}
		if ok {
			mustSummarize(t, "the peek of the slice", s, &want)
		}
		if !summarizable(&want) {
			return
		}
		js, err := json.Marshal(&storage.Payload{Release: want, Labels: want.Labels})
		if err != nil {
			t.Fatalf("encoding/json decodes %.200q but does not encode it again: %v", in, err)
		}
		idx.Data[storage.DataChunk] = gzipBytes(t, js)
		if s, ok = storage.PeekSummary(idx); !ok {
			t.Fatalf("no summary of the payload json.Marshal writes of %.200q", in)
		}
		mustSummarize(t, "the peek of the re-encoded payload", s, &want)
	})
}

// summarizable reports whether a peek must summarize rls as Helm encodes it: it
// has info and chart metadata, and its JSON is within the peek's 4 MiB bound.
func summarizable(rls *release.Release) bool {
	if rls.Info == nil || rls.Chart == nil || rls.Chart.Metadata == nil {
		return false
	}
	js, err := json.Marshal(rls)
	return err == nil && len(js) <= 4<<20
}

// mustSummarize fails unless s is the summary of want's chart metadata and info.
func mustSummarize(t *testing.T, what string, s storage.Summary, want *release.Release) {
	t.Helper()
	if want.Info == nil || want.Chart == nil || want.Chart.Metadata == nil {
		t.Fatalf("%s: a summary %+v of a release without info or chart metadata", what, s)
	}
	m := want.Chart.Metadata
	if s.Chart != m.Name || s.ChartVersion != m.Version || s.AppVersion != m.AppVersion ||
		s.Description != want.Info.Description || !s.LastDeployed.Equal(want.Info.LastDeployed.Time) {
		t.Fatalf("%s: %+v, want chart %q %q %q, description %q, deployed %v", what, s, m.Name, m.Version, m.AppVersion, want.Info.Description, want.Info.LastDeployed)
	}
}
