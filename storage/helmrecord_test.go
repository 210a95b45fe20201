package storage_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// helmRecordRelease is a release with every part Helm's records carry: chart
// templates and files, values, a manifest, hooks, notes and custom labels.
func helmRecordRelease(name string, version int) *release.Release {
	rls := testRelease(name, version, release.StatusDeployed, 8<<10)
	rls.Chart.Templates = []*chart.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n")}}
	rls.Chart.Files = []*chart.File{{Name: "README.md", Data: []byte("# demo\n")}}
	rls.Chart.Values = map[string]interface{}{"replicas": float64(1)}
	rls.Hooks = []*release.Hook{{Name: "pre", Kind: "Job", Path: "templates/job.yaml", Manifest: "kind: Job\n",
		Events: []release.HookEvent{release.HookPreInstall}, LastRun: release.HookExecution{Phase: release.HookPhaseSucceeded}}}
	return rls
}

// withoutLabels returns a copy of rls without custom labels, which Helm's records
// do not hold.
func withoutLabels(rls *release.Release) *release.Release {
	c := *rls
	c.Labels = nil
	return &c
}

func mustJSONEqual(t *testing.T, what string, want, got any) {
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
		t.Fatalf("%s differs: got %d bytes of JSON, want %d", what, len(g), len(w))
	}
}

func b64(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }

// TestHelmRecordRoundTrip: what EncodeHelmRecord writes, DecodeHelmRecord reads back
// whole, with its sizes and nothing unknown; a record from before Helm compressed
// them (base64 of the JSON) reads the same.
func TestHelmRecordRoundTrip(t *testing.T) {
	rls := helmRecordRelease("round", 3)
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	data, err := storage.EncodeHelmRecord(rls)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		data     []byte
		gzipped  bool
		unknowns []string
	}{
		{"gzip", data, true, nil},
		{"uncompressed", b64(js), false, nil},
		{"base64 with line breaks", []byte(strings.Join(splitEvery(string(data), 76), "\r\n")), true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := storage.DecodeHelmRecord(c.data, 0)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualRelease(t, withoutLabels(rls), rec.Release)
			mustJSONEqual(t, "release", withoutLabels(rls), rec.Release)
			if rec.DecodedBytes != len(js) || (rec.GzipBytes > 0) != c.gzipped || rec.ApplyMethod != "" || len(rec.UnknownFields) != 0 {
				t.Fatalf("got %d JSON bytes, %d gzip bytes, apply method %q, unknown %v; want %d JSON bytes, gzipped %v, nothing else",
					rec.DecodedBytes, rec.GzipBytes, rec.ApplyMethod, rec.UnknownFields, len(js), c.gzipped)
			}
		})
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// TestHelmRecordHelmDrivers: Helm 3's own Secrets and ConfigMaps drivers, writing to
// the real API server, store exactly what EncodeHelmRecord returns;
// DecodeHelmRecord and PeekHelmSummary read what they stored; and Helm's drivers
// read a record chunkview wrote.
func TestHelmRecordHelmDrivers(t *testing.T) {
	ns := cluster.Namespace(t)
	secrets := cluster.Client.CoreV1().Secrets(ns)
	cfgmaps := cluster.Client.CoreV1().ConfigMaps(ns)
	for _, c := range []struct {
		name   string
		driver driver.Driver
		stored func(key string) ([]byte, map[string]string)
		create func(key string, data []byte)
	}{
		{"secrets", driver.NewSecrets(secrets), func(key string) ([]byte, map[string]string) {
			s, err := secrets.Get(t.Context(), key, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Type != storage.SecretTypeHelm {
				t.Fatalf("Secret type %q, want %q", s.Type, storage.SecretTypeHelm)
			}
			return s.Data[storage.HelmDataKey], s.Labels
		}, func(key string, data []byte) {
			_, err := secrets.Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: key,
				Labels: map[string]string{"name": "ours", "owner": storage.HelmOwner, "status": "deployed", "version": "1"}},
				Type: storage.SecretTypeHelm, Data: map[string][]byte{storage.HelmDataKey: data}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"configmaps", driver.NewConfigMaps(cfgmaps), func(key string) ([]byte, map[string]string) {
			cm, err := cfgmaps.Get(t.Context(), key, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return []byte(cm.Data[storage.HelmDataKey]), cm.Labels
		}, func(key string, data []byte) {
			_, err := cfgmaps.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: key,
				Labels: map[string]string{"name": "ours", "owner": storage.HelmOwner, "status": "deployed", "version": "1"}},
				Data: map[string]string{storage.HelmDataKey: string(data)}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rls := helmRecordRelease("helm-"+c.name, 2)
			k := key(rls.Name, rls.Version)
			if err := c.driver.Create(k, rls); err != nil {
				t.Fatal(err)
			}
			stored, labels := c.stored(k)
			if labels["owner"] != storage.HelmOwner || labels["name"] != rls.Name || labels["version"] != "2" || labels["status"] != "deployed" {
				t.Fatalf("labels %v, want Helm's", labels)
			}
			ours, err := storage.EncodeHelmRecord(rls)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, stored) {
				t.Fatalf("EncodeHelmRecord gives %d bytes, Helm's driver stored %d other bytes", len(ours), len(stored))
			}
			rec, err := storage.DecodeHelmRecord(stored, 0)
			if err != nil {
				t.Fatal(err)
			}
			mustJSONEqual(t, "release", withoutLabels(rls), rec.Release)
			s, method, ok := storage.PeekHelmSummary(stored)
			want := storage.SummaryOf(rls)
			want.Namespace, want.StoredBytes = "", int64(len(stored))
			if !ok || s != want || method != "" {
				t.Fatalf("peeked %+v, %q, %v; want %+v", s, method, ok, want)
			}

			mine := withoutLabels(helmRecordRelease("ours", 1))
			data, err := storage.EncodeHelmRecord(mine)
			if err != nil {
				t.Fatal(err)
			}
			c.create(key("ours", 1), data)
			got, err := c.driver.Get(key("ours", 1))
			if err != nil {
				t.Fatalf("Helm's driver cannot read a record EncodeHelmRecord wrote: %v", err)
			}
			got.Labels = nil
			mustJSONEqual(t, "release read by Helm", mine, got)
		})
	}
}

// TestHelmRecordLimit: the API server takes a Helm record of exactly HelmRecordLimit
// bytes, in a Secret and in a ConfigMap, and refuses one byte more.
func TestHelmRecordLimit(t *testing.T) {
	ns := cluster.Namespace(t)
	for _, n := range []int{storage.HelmRecordLimit, storage.HelmRecordLimit + 1} {
		data := bytes.Repeat([]byte("A"), n)
		_, errS := cluster.Client.CoreV1().Secrets(ns).Create(t.Context(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "limit-"}, Type: storage.SecretTypeHelm,
			Data: map[string][]byte{storage.HelmDataKey: data}}, metav1.CreateOptions{})
		_, errC := cluster.Client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "limit-"},
			Data:       map[string]string{storage.HelmDataKey: string(data)}}, metav1.CreateOptions{})
		for kind, err := range map[string]error{"Secret": errS, "ConfigMap": errC} {
			if n <= storage.HelmRecordLimit && err != nil {
				t.Errorf("%s with a %d-byte record: %v", kind, n, err)
			}
			if n > storage.HelmRecordLimit && !apierrors.IsInvalid(err) {
				t.Errorf("%s with a %d-byte record: %v, want Invalid", kind, n, err)
			}
		}
	}
	if storage.MaxHelmSecretGzipBytes != storage.HelmRecordLimit/4*3 {
		t.Errorf("MaxHelmSecretGzipBytes %d, want 3/4 of HelmRecordLimit", storage.MaxHelmSecretGzipBytes)
	}
}

// helm4Release is a release as Helm 4 writes it, with the fields Helm 3 has no place
// for: apply_method, info.rollback_revision, the chart's and its files' mod times.
func helm4Release(name string) *release4.Release {
	ts := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	return &release4.Release{
		Name:      name,
		Namespace: "apps",
		Version:   4,
		Info: &release4.Info{FirstDeployed: ts, LastDeployed: ts, Status: common4.StatusDeployed,
			Description: "Rollback to 2", RollbackRevision: 2, Notes: "hello"},
		Chart: &chart4.Chart{
			Metadata:  &chart4.Metadata{APIVersion: "v2", Name: "demo", Version: "1.2.3", AppVersion: "4.5.6"},
			Templates: []*chartcommon4.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n"), ModTime: ts}},
			Files:     []*chartcommon4.File{{Name: "README.md", Data: []byte("# demo\n")}},
			Values:    map[string]any{"replicas": 1},
			ModTime:   ts,
		},
		Config:   map[string]any{"replicas": 2},
		Manifest: "---\nkind: ConfigMap\n",
		Hooks: []*release4.Hook{{Name: "pre", Kind: "Job", Path: "templates/job.yaml", Manifest: "kind: Job\n",
			LastRun: release4.HookExecution{StartedAt: ts, CompletedAt: ts, Phase: release4.HookPhaseSucceeded}}},
		ApplyMethod: string(release4.ApplyMethodServerSideApply),
	}
}

// TestHelmRecordHelm4: a record Helm 4's own Secrets driver wrote decodes to what
// Helm 3 reads of it, plus the apply method and the paths of the fields Helm 3
// drops. Its peek gives the summary but not the apply method, which Helm 4 encodes
// last; a record that puts apply_method before the chart gives it.
func TestHelmRecordHelm4(t *testing.T) {
	ns := cluster.Namespace(t)
	secrets := cluster.Client.CoreV1().Secrets(ns)
	rls4 := helm4Release("four")
	k := key(rls4.Name, rls4.Version)
	if err := driver4.NewSecrets(secrets).Create(k, rls4); err != nil {
		t.Fatal(err)
	}
	s, err := secrets.Get(t.Context(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := s.Data[storage.HelmDataKey]
	rec, err := storage.DecodeHelmRecord(stored, 0)
	if err != nil {
		t.Fatal(err)
	}
	helm3, err := driver.NewSecrets(secrets).Get(k)
	if err != nil {
		t.Fatalf("Helm 3 cannot read Helm 4's record: %v", err)
	}
	helm3.Labels = nil
	mustJSONEqual(t, "release as Helm 3 reads it", helm3, rec.Release)
	if rec.Release.Info.LastDeployed.Time.Compare(rls4.Info.LastDeployed) != 0 || rec.Release.Chart.Metadata.AppVersion != "4.5.6" {
		t.Fatalf("decoded %+v", rec.Release.Info)
	}
	if rec.ApplyMethod != "ssa" {
		t.Errorf("apply method %q, want ssa", rec.ApplyMethod)
	}
	wantUnknown := []string{"apply_method", "chart.files[].modtime", "chart.modtime", "chart.schemamodtime", "chart.templates[].modtime", "info.rollback_revision"}
	// Helm 4 omits a zero mod time: README.md has none.
	wantUnknown = slices.DeleteFunc(wantUnknown, func(p string) bool { return p == "chart.files[].modtime" })
	if !slices.Equal(rec.UnknownFields, wantUnknown) {
		t.Errorf("unknown fields %q, want %q", rec.UnknownFields, wantUnknown)
	}

	sum, method, ok := storage.PeekHelmSummary(stored)
	want := storage.Summary{Chart: "demo", ChartVersion: "1.2.3", AppVersion: "4.5.6", Description: "Rollback to 2",
		LastDeployed: rls4.Info.LastDeployed, StoredBytes: int64(len(stored))}
	if !ok || !sum.LastDeployed.Equal(want.LastDeployed) || method != "" {
		t.Fatalf("peeked %+v, %q, %v; want %+v and no apply method", sum, method, ok, want)
	}
	sum.LastDeployed = want.LastDeployed
	if sum != want {
		t.Fatalf("peeked %+v, want %+v", sum, want)
	}

	// The same release with apply_method and namespace ahead of the chart.
	js, err := json.Marshal(rls4)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(js, &fields); err != nil {
		t.Fatal(err)
	}
	var reordered bytes.Buffer
	reordered.WriteString("{")
	for i, f := range []string{"name", "apply_method", "namespace", "info", "chart", "config", "manifest", "hooks", "version"} {
		if i > 0 {
			reordered.WriteString(",")
		}
		reordered.WriteString(`"` + f + `":`)
		reordered.Write(fields[f])
	}
	reordered.WriteString("}")
	sum, method, ok = storage.PeekHelmSummary(b64(gzipOf(t, reordered.Bytes())))
	if !ok || method != "ssa" || sum.Namespace != "apps" {
		t.Fatalf("peeked %+v, %q, %v from a record with apply_method first; want ssa and namespace apps", sum, method, ok)
	}
	rec2, err := storage.DecodeHelmRecord(b64(gzipOf(t, reordered.Bytes())), 0)
	if err != nil || rec2.ApplyMethod != "ssa" || !slices.Equal(rec2.UnknownFields, wantUnknown) {
		t.Fatalf("reordered record: %v, %+v", err, rec2)
	}
}

// TestDecodeHelmRecordCorrupt: each way a record can be broken is refused with an
// error that wraps ErrCorrupt and names what failed.
func TestDecodeHelmRecordCorrupt(t *testing.T) {
	good, err := storage.EncodeHelmRecord(helmRecordRelease("bad", 1))
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := base64.StdEncoding.DecodeString(string(good))
	flipped := bytes.Clone(gz)
	flipped[len(flipped)-6] ^= 0xff // in the CRC-32 of the trailer
	for _, c := range []struct {
		name, says string
		data       []byte
	}{
		{"empty", "empty", nil},
		{"not base64", "not base64", []byte("this is not base64!")},
		{"base64 cut short", "not base64", good[:len(good)-3]},
		{"gzip magic then garbage", "gzip", b64(append([]byte{0x1f, 0x8b, 0x08}, "garbage that is not deflate"...))},
		{"gzip cut in half", "gzip", b64(gz[:len(gz)/2])},
		{"gzip whose CRC does not check", "gzip", b64(flipped)},
		{"gzip of not JSON", "JSON", b64(gzipOf(t, []byte("kind: Release\n")))},
		{"gzip of JSON cut short", "JSON", b64(gzipOf(t, []byte(`{"name":"x","info":{"status":"deployed"}`)))},
		{"a field of the wrong type", "JSON", b64(gzipOf(t, []byte(`{"name":1,"info":{}}`)))},
		{"uncompressed JSON without info", "info", b64([]byte(`{"name":"x","version":1}`))},
		{"a JSON array", "JSON", b64(gzipOf(t, []byte(`[1,2,3]`)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := storage.DecodeHelmRecord(c.data, 0)
			if !errors.Is(err, storage.ErrCorrupt) || errors.Is(err, storage.ErrTooLarge) {
				t.Fatalf("got %+v, %v; want ErrCorrupt", rec, err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %q does not say %q", err, c.says)
			}
		})
	}
}

// TestDecodeHelmRecordBound: a record decodes when its JSON is exactly the bound and
// is refused with ErrTooLarge one byte under, gzipped or not; a gzip bomb under the
// default bound is refused by the ratio guard having cost a few MiB.
func TestDecodeHelmRecordBound(t *testing.T) {
	rls := helmRecordRelease("bound", 1)
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	gzipped, err := storage.EncodeHelmRecord(rls)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(js))
	for _, c := range []struct {
		name    string
		data    []byte
		bound   int64
		tooMuch bool
	}{
		{"gzip at the bound", gzipped, n, false},
		{"gzip over the bound", gzipped, n - 1, true},
		{"uncompressed at the bound", b64(js), n, false},
		{"uncompressed over the bound", b64(js), n - 1, true},
		{"default bound", gzipped, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := storage.DecodeHelmRecord(c.data, c.bound)
			switch {
			case c.tooMuch && !errors.Is(err, storage.ErrTooLarge):
				t.Fatalf("got %v, want ErrTooLarge", err)
			case c.tooMuch && errors.Is(err, storage.ErrCorrupt):
				t.Fatalf("got %v, which also says corrupt", err)
			case !c.tooMuch && err != nil:
				t.Fatal(err)
			case !c.tooMuch && rec.DecodedBytes != len(js):
				t.Fatalf("decoded %d bytes, want %d", rec.DecodedBytes, len(js))
			}
		})
	}

	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	_, _ = zw.Write([]byte(`{"name":"bomb","info":{"status":"deployed"},"manifest":"`))
	run := bytes.Repeat([]byte("a"), 1<<20)
	for range 100 {
		_, _ = zw.Write(run)
	}
	_, _ = zw.Write([]byte(`"}`))
	_ = zw.Close()
	data := b64(bomb.Bytes())
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = storage.DecodeHelmRecord(data, 0)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("100 MiB bomb in %d KiB: %v, want ErrTooLarge", len(data)>>10, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Fatalf("refusing a 100 MiB bomb allocated %d MiB", got>>20)
	}
}

// TestPeekHelmSummaryRefuses: a record that is not a release's, or lacks its info
// or chart metadata, gives no summary.
func TestPeekHelmSummaryRefuses(t *testing.T) {
	for _, c := range []struct{ name, js string }{
		{"no chart", `{"name":"x","info":{"status":"deployed"},"manifest":"m","version":1}`},
		{"chart without metadata", `{"name":"x","info":{"status":"deployed"},"chart":{"templates":[]}}`},
		{"no info", `{"name":"x","chart":{"metadata":{"name":"demo"}}}`},
		{"not an object", `["name","info"]`},
		{"cut short", `{"name":"x","info":{"status":"deployed"`},
	} {
		for _, enc := range []struct {
			name string
			data []byte
		}{{"gzip", b64(gzipOf(t, []byte(c.js)))}, {"uncompressed", b64([]byte(c.js))}} {
			if s, _, ok := storage.PeekHelmSummary(enc.data); ok {
				t.Errorf("%s, %s: peeked %+v, want no summary", c.name, enc.name, s)
			}
		}
	}
	for name, data := range map[string][]byte{
		"empty":                   nil,
		"not base64":              []byte("not base64!"),
		"gzip magic then garbage": b64(append([]byte{0x1f, 0x8b, 0x08}, "garbage"...)),
	} {
		if s, _, ok := storage.PeekHelmSummary(data); ok {
			t.Errorf("%s: peeked %+v, want no summary", name, s)
		}
	}
	// Uncompressed, and info after the chart: still a summary.
	js := `{"name":"x","chart":{"metadata":{"name":"demo","version":"1.0.0"}},"info":{"status":"deployed","description":"ok"}}`
	if s, _, ok := storage.PeekHelmSummary(b64([]byte(js))); !ok || s.Chart != "demo" || s.Description != "ok" {
		t.Errorf("uncompressed record, info last: peeked %+v, %v", s, ok)
	}
}
