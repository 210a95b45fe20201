package fit_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// noisyRelease is a release whose chart holds a file of n characters gzip
// shrinks little, and labels.
func noisyRelease(name string, n int) *release.Release {
	return &release.Release{
		Name: name, Namespace: "ns", Version: 3,
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{Name: "noisy", Version: "1.0.0"},
			Files:    []*chart.File{{Name: "files/blob.txt", Data: []byte(noise(uint64(n), n))}},
		},
		Manifest: "---\n# Source: noisy/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n",
		Info:     &release.Info{Status: release.StatusDeployed},
		Labels:   map[string]string{"team": "payments"},
	}
}

// helmRecordLen is Helm's encodeRelease (pkg/storage/driver/util.go) written
// out: base64 of the gzip stream, at best compression, of the JSON.
func helmRecordLen(t *testing.T, rls *release.Release) int64 {
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(js)
	zw.Close()
	return int64(len(base64.StdEncoding.EncodeToString(buf.Bytes())))
}

// chunkedLen is the chunked format's payload written out: the release's JSON
// with its labels, as json.Encoder writes it, gzipped at best compression.
func chunkedLen(t *testing.T, rls *release.Release) int {
	var js bytes.Buffer
	err := json.NewEncoder(&js).Encode(struct {
		release.Release
		Labels map[string]string `json:"labels"`
	}{*rls, rls.Labels})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(js.Bytes())
	zw.Close()
	return buf.Len()
}

// TestMeasureStores holds each store's measurement to the encodings written out
// by hand, and its verdict to the store's rules: Helm's drivers refuse more than
// 1 MiB of data; the chunked driver refuses more than MaxWriteChunks slices,
// readers more than MaxReadChunks, and the API server an index whose slice and
// chunk list pass 1 MiB.
func TestMeasureStores(t *testing.T) {
	small := noisyRelease("shop", 20_000)
	big := noisyRelease(strings.Repeat("n", 40), 1_500_000)
	smallGz := chunkedLen(t, small)
	chunks := (smallGz + 1023) / 1024
	for _, tc := range []struct {
		name     string
		rls      *release.Release
		s        fit.Settings
		driver   string
		fits     bool
		reason   string
		limit    int64
		chunks   int
		objects  int
		storedFn func() int64
	}{
		{"secret, small", small, fit.Settings{}, kube.DriverSecret, true, "", storage.HelmRecordLimit, 0, 1, func() int64 { return helmRecordLen(t, small) }},
		{"configmap, small", small, fit.Settings{}, kube.DriverConfigMap, true, "", storage.HelmRecordLimit, 0, 1, func() int64 { return helmRecordLen(t, small) }},
		{"secret, over 1 MiB", big, fit.Settings{}, kube.DriverSecret, false, "Too long", storage.HelmRecordLimit, 0, 1, func() int64 { return helmRecordLen(t, big) }},
		{"chunked, no chunk limit", small, fit.Settings{ChunkSize: 1024}, kube.DriverChunked, true, "", 0, chunks, chunks, func() int64 { return int64(smallGz) }},
		{"chunked, exactly the write limit", small, fit.Settings{ChunkSize: 1024, MaxWriteChunks: chunks}, kube.DriverChunked, true, "", int64(chunks) * 1024, chunks, chunks, func() int64 { return int64(smallGz) }},
		{"chunked, one chunk over the write limit", small, fit.Settings{ChunkSize: 1024, MaxWriteChunks: chunks - 1}, kube.DriverChunked, false, "--max-write-chunks", int64(chunks-1) * 1024, chunks, chunks, func() int64 { return int64(smallGz) }},
		{"chunked, over the read limit", small, fit.Settings{ChunkSize: 1024, MaxReadChunks: chunks - 1}, kube.DriverChunked, false, "--max-read-chunks", 0, chunks, chunks, func() int64 { return int64(smallGz) }},
		{"chunked, default chunk size", big, fit.Settings{}, kube.DriverChunked, true, "", 0, 2, 2, func() int64 { return int64(chunkedLen(t, big)) }},
		{"chunked, an index with no room for its chunk list", big, fit.Settings{ChunkSize: storage.MaxSecretDataBytes - 50}, kube.DriverChunked, false, "lower --chunk-size", 0, 2, 2, func() int64 { return int64(chunkedLen(t, big)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := fit.Measure(tc.rls, []string{tc.driver}, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Stores) != 1 {
				t.Fatalf("want the one store asked for, got %+v", m.Stores)
			}
			s := m.Stores[0]
			if s.Driver != tc.driver || s.StoredBytes != tc.storedFn() || s.LimitBytes != tc.limit || s.Fits != tc.fits || s.Chunks != tc.chunks || s.Objects != tc.objects {
				t.Errorf("want %s %d bytes, limit %d, fits %v, %d chunks, %d objects; got %+v", tc.driver, tc.storedFn(), tc.limit, tc.fits, tc.chunks, tc.objects, s)
			}
			if tc.reason == "" && s.Reason != "" || !strings.Contains(s.Reason, tc.reason) {
				t.Errorf("reason: want %q, got %q", tc.reason, s.Reason)
			}
			if m.Fits() != tc.fits {
				t.Errorf("Fits: want %v", tc.fits)
			}
		})
	}
}

// TestMeasureIndexBytes: the largest object of a chunked record is its index,
// a full slice plus the JSON list of the other slices' Secret names, when
// slices are full.
func TestMeasureIndexBytes(t *testing.T) {
	rls := noisyRelease("shop", 20_000)
	m, err := fit.Measure(rls, []string{kube.DriverChunked}, fit.Settings{ChunkSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Stores[0]
	key := storage.RecordKey("shop", 3)
	// ["key-<13>", ...]: each name quoted, commas between, brackets around.
	names := s.Chunks - 1
	want := 1024 + 2 + names*(len(key)+1+13+2) + (names - 1)
	if s.LargestObjectBytes != int64(want) {
		t.Errorf("largest object: want the index, %d bytes, got %d", want, s.LargestObjectBytes)
	}
	all, err := fit.Measure(rls, nil, fit.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range all.Stores {
		got = append(got, s.Driver)
	}
	if fmt.Sprint(got) != fmt.Sprint(kube.AllDrivers) || all.JSONBytes <= 20_000 {
		t.Errorf("no drivers named: want every store in listing order and the JSON's length, got %v, %d", got, all.JSONBytes)
	}
}

// TestBreakLargestIsExact: the largest items Break reports are those a brute
// force finds, compressing every item, though it stops compressing early.
func TestBreakLargestIsExact(t *testing.T) {
	rls := noisyRelease("shop", 10)
	var files []*chart.File
	for i := 0; i < 60; i++ {
		// Sizes and compressibility that disagree: a long text of few words
		// compresses below a shorter noisy one.
		data := words(uint64(i), 50*(i%7+1))
		if i%3 == 0 {
			data = noise(uint64(i), 300*(i%5+1))
		}
		files = append(files, &chart.File{Name: fmt.Sprintf("templates/t%02d.yaml", i), Data: []byte(data)})
	}
	rls.Chart.Templates = files
	got := fit.Break(rls).Largest
	type scored struct {
		name string
		gz   int
	}
	var all []scored
	for _, f := range files {
		js, _ := json.Marshal(f)
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(js)
		zw.Close()
		all = append(all, scored{f.Name, buf.Len()})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].gz > all[j].gz })
	if len(got) != fit.LargestItems {
		t.Fatalf("want %d items, got %d", fit.LargestItems, len(got))
	}
	for i, it := range got {
		if it.GzipBytes != all[i].gz || it.Kind != "template" {
			t.Errorf("item %d: want %s (%d bytes of gzip), got %+v", i, all[i].name, all[i].gz, it)
		}
	}
}

// TestBreakParts: the breakdown names every part of a record, manifest documents
// by their source template, and leaves subcharts out: a record does not hold
// them.
func TestBreakParts(t *testing.T) {
	rls := noisyRelease("shop", 1000)
	rls.Chart.Templates = []*chart.File{{Name: "templates/a.yaml", Data: []byte("a: 1\n")}}
	rls.Chart.Files = append(rls.Chart.Files, &chart.File{Name: "crds/c.yaml", Data: []byte(words(3, 500))})
	rls.Chart.Values = map[string]interface{}{"a": 1}
	rls.Config = map[string]interface{}{"b": 2}
	rls.Manifest = "---\n# Source: noisy/templates/a.yaml\na: 1\n---\n# Source: noisy/templates/b.yaml\n" + words(4, 2000) + "\n"
	rls.Hooks = []*release.Hook{{Name: "h", Path: "noisy/templates/h.yaml", Manifest: "kind: Job\n"}}
	rls.Chart.AddDependency(&chart.Chart{Metadata: &chart.Metadata{Name: "sub"}, Templates: []*chart.File{{Name: "templates/x", Data: []byte(noise(9, 50_000))}}})
	bd := fit.Break(rls)
	parts := map[string]int{}
	for _, p := range bd.Parts {
		parts[p.Name] = p.Items
	}
	for name, items := range map[string]int{"chart templates": 1, "chart files": 1, "chart CRDs": 1, "chart values": 1, "user-supplied values": 1, "rendered manifest": 1, "hooks": 1} {
		if parts[name] != items {
			t.Errorf("part %q: want %d items, got %d (%v)", name, items, parts[name], parts)
		}
	}
	if _, ok := parts["subcharts"]; ok {
		t.Errorf("subcharts: a record does not hold them, want no part, got %v", parts)
	}
	kinds := map[string]string{}
	for _, it := range bd.Largest {
		kinds[it.Name] = it.Kind
	}
	want := map[string]string{"files/blob.txt": "file", "crds/c.yaml": "crd", "noisy/templates/b.yaml": "manifest", "noisy/templates/h.yaml": "hook", "templates/a.yaml": "template", "chart values": "values", "user-supplied values": "values"}
	for name, kind := range want {
		if kinds[name] != kind {
			t.Errorf("largest items: want %s as %s, got %v", name, kind, kinds)
		}
	}
}

// TestForecast: the history's growth is carried to every store at the ratio of
// the upgrade's sizes there, with the upgrade as the newest point, and counted
// to each store's limit by hand.
func TestForecast(t *testing.T) {
	m := &fit.Measurement{Stores: []fit.Store{
		{Driver: kube.DriverChunked, StoredBytes: 300_000, LimitBytes: 11 * 40_000 * 2, Fits: true},
		{Driver: kube.DriverSecret, StoredBytes: 400_000, LimitBytes: storage.HelmRecordLimit, Fits: true},
		{Driver: kube.DriverConfigMap, StoredBytes: 400_000, LimitBytes: storage.HelmRecordLimit, Fits: false, Reason: "x"},
	}}
	history := []fit.SizePoint{{Revision: 1, Bytes: 340_000}, {Revision: 2, Bytes: 360_000}, {Revision: 3, Bytes: 380_000}}
	fit.Forecast(m, 400_000, history, 4)
	sec, ch, cm := m.Stores[1].Growth, m.Stores[0].Growth, m.Stores[2].Growth
	// Secret: +20,000 a revision from 400,000 to 1,048,576: floor(648,576/20,000)+1 = 33.
	if sec.PerRevision != 20_000 || sec.RevisionsLeft != 33 || sec.FailsAt != 37 {
		t.Errorf("secret: want +20000 a revision, 33 left, revision 37 failing; got %+v", sec)
	}
	// Chunked: 3/4 of it, +15,000 from 300,000 to 880,000: floor(580,000/15,000)+1 = 39.
	if ch.PerRevision != 15_000 || ch.RevisionsLeft != 39 || ch.FailsAt != 43 {
		t.Errorf("chunked: want +15000 a revision, 39 left, revision 43 failing; got %+v", ch)
	}
	if cm.RevisionsLeft != 0 || cm.FailsAt != 4 {
		t.Errorf("a store that refuses the upgrade: want none left, failing at 4; got %+v", cm)
	}
}
