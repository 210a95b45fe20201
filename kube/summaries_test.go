package kube_test

import (
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestFillSummariesPeeksIndexes: rows of records the original driver wrote get
// their chart, versions and status from their index Secrets, read with one
// label-selected list, with no chunk Secret read; multi-chunk ones carry a size bound, not a size, and are
// not Checked until CheckHealth (one list) finds their chunks. A record whose
// chart metadata lies past the index's slice is decoded in full instead.
func TestFillSummariesPeeksIndexes(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const (
		owner     = "peek-owner"
		chunkSize = 1024
		// The releases' resources live elsewhere, as OLMv1's do: only a
		// decode reveals it.
		releaseNS = "elsewhere"
	)
	d := originalDriver(ns, owner, chunkSize)
	blobs := map[string]int{"one-a": 0, "one-b": 100, "multi-a": 4_000, "multi-b": 9_000, "multi-c": 6_000}
	for name, blob := range blobs {
		seed(t, d, history(name, releaseNS, 2, blob)...)
	}
	// Notes, encoded in the release's info before its chart, push the chart's
	// metadata past the first 1 KiB slice.
	late := makeRelease("late", releaseNS, 1, release.StatusDeployed, 3_000)
	late.Info.Notes = noise("late-notes", 3_000)
	seed(t, d, late)

	stats := &kube.Stats{}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ""), []string{"-n", ns, "--owner", owner}, func(o *kube.Options) {
		o.Stats = stats
		o.WrapConfig = wire.install
	})
	ptrs, byName := summaryRows(t, c, len(blobs)+1)

	// The truth, from the records themselves, read without chunkview (truthOf),
	// and what decoding each row costs helm-operator-plugins' driver, through a
	// connection of its own.
	truth := truthOf(t, ptrs)
	otherStats := &kube.Stats{}
	orc := rest.CopyConfig(cluster.Config)
	otherStats.Count(orc)
	ocs, err := kubernetes.NewForConfig(orc)
	if err != nil {
		t.Fatal(err)
	}
	hop := hopstorage.NewChunkedSecrets(ocs.CoreV1().Secrets(ns), owner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	for _, r := range ptrs {
		if _, err := hop.Get(r.Key); err != nil {
			t.Fatalf("helm-operator-plugins' Get of %s: %v", r.Key, err)
		}
	}
	if truth["late"].Summary.Chunks < 3 || truth["one-a"].Summary.Chunks != 1 || truth["multi-b"].Summary.Chunks < 3 {
		t.Fatalf("fixture: late %d chunks, one-a %d, multi-b %d", truth["late"].Summary.Chunks, truth["one-a"].Summary.Chunks, truth["multi-b"].Summary.Chunks)
	}
	var stored int64
	for _, r := range truth {
		stored += r.Summary.StoredBytes
	}

	wire.Reset()
	before := stats.BytesReceived()
	if err := c.FillSummaries(ctx, ptrs); err != nil {
		t.Fatalf("FillSummaries: %v", err)
	}
	got := stats.BytesReceived() - before
	indexes := map[string]bool{}
	for _, r := range ptrs {
		indexes[r.Key] = true
	}
	listed := map[string]int{}
	lists, chunks := 0, 0
	for _, rq := range wire.Requests() {
		if lns, keys, ok := indexList(rq); ok && lns == ns {
			lists++
			for _, k := range keys {
				listed[k]++
			}
			continue
		}
		_, name, ok := secretGet(rq)
		if !ok || indexes[name] {
			t.Errorf("FillSummaries sent %s, want lists of index Secrets and GETs of chunk Secrets", rq)
			continue
		}
		chunks++
		if !strings.HasPrefix(name, storage.RecordKey("late", 1)+"-") {
			t.Errorf("FillSummaries fetched chunk Secret %s of a record whose index holds its chart", name)
		}
	}
	if lists != 1 {
		t.Errorf("FillSummaries listed index Secrets %d times, want once for %d rows", lists, len(ptrs))
	}
	for _, r := range ptrs {
		if listed[r.Key] != 1 {
			t.Errorf("index %s listed %d times, want once", r.Key, listed[r.Key])
		}
	}
	if want := truth["late"].Summary.Chunks - 1; chunks != want {
		t.Errorf("FillSummaries fetched %d chunk Secrets, want the %d of the record whose chart lies past its index", chunks, want)
	}
	t.Logf("FillSummaries over %d rows: %d requests (%d chunk GETs, all the fallback's), %d response bytes for %d stored bytes (%.1f%%); decoding each with helm-operator-plugins' driver: %d requests, %d bytes",
		len(ptrs), len(wire.Requests()), chunks, got, stored, 100*float64(got)/float64(stored), otherStats.Total(), otherStats.BytesReceived())
	if got >= otherStats.BytesReceived() {
		t.Errorf("FillSummaries received %d bytes, no fewer than decoding every row with helm-operator-plugins' driver (%d)", got, otherStats.BytesReceived())
	}

	for name, r := range byName {
		want := truth[name].Summary
		s := r.Summary
		if !r.Known || r.Broken || s.Chart != want.Chart || s.ChartVersion != want.ChartVersion || s.AppVersion != want.AppVersion ||
			s.Description != want.Description || !s.LastDeployed.Equal(want.LastDeployed) || s.Chunks != want.Chunks || r.Status != "deployed" {
			t.Errorf("%s: Known=%v Broken=%v status %s %+v, want %+v", name, r.Known, r.Broken, r.Status, s, want)
		}
		n := int64(want.Chunks)
		if name == "late" || n == 1 {
			// Decoded in full: the late one from its chunks, as its chart lies past
			// the index's slice; a record of one chunk from its index alone.
			if r.Peeked || !r.Checked || s.Namespace != releaseNS || s.StoredBytes != want.StoredBytes || !decodedSize(s, want) || r.StoredAtMost != 0 || r.Fill() != truth[name].Fill() {
				t.Errorf("%s, decoded in full: Peeked=%v Checked=%v %+v, bound %d", name, r.Peeked, r.Checked, s, r.StoredAtMost)
			}
			continue
		}
		if !r.Peeked || r.Checked || s.Namespace != "" || s.DecodedBytes != 0 {
			t.Errorf("%s, peeked: Peeked=%v Checked=%v namespace %q decoded %d", name, r.Peeked, r.Checked, s.Namespace, s.DecodedBytes)
		}
		switch {
		case s.StoredBytes != 0 || r.Fill() != 0 || r.StoredAtMost < want.StoredBytes || r.StoredAtMost*(n-1)/n >= want.StoredBytes:
			t.Errorf("%s, %d chunks: stored %d, bound %d; want 0 and a bound in [%d, %d)", name, n, s.StoredBytes, r.StoredAtMost, want.StoredBytes, want.StoredBytes*n/(n-1))
		}
	}

	// The health check finds the peeked rows' chunks: one list.
	wire.Reset()
	if err := kube.NewChecker(c).CheckHealth(ctx, ptrs); err != nil {
		t.Fatalf("CheckHealth: %v", err)
	}
	if reqs := wire.Requests(); len(reqs) != 1 {
		t.Errorf("CheckHealth sent %d requests, want 1: %v", len(reqs), reqs)
	}
	for name, r := range byName {
		if !r.Checked || r.Broken {
			t.Errorf("%s after CheckHealth: Checked=%v Broken=%v %s", name, r.Checked, r.Broken, r.Unchecked)
		}
	}

	// FillDetails decodes a peeked row in full: its sizes and namespace.
	r := *byName["multi-b"]
	if err := c.FillDetails(ctx, []*kube.RevisionRow{&r}); err != nil {
		t.Fatal(err)
	}
	if w := truth["multi-b"]; r.Peeked || r.StoredAtMost != 0 || !decodedSize(r.Summary, w.Summary) || withoutDecoded(r.Summary) != withoutDecoded(w.Summary) {
		t.Errorf("multi-b after FillDetails: Peeked=%v bound %d %+v, want %+v", r.Peeked, r.StoredAtMost, r.Summary, w.Summary)
	}
}

// decodedSize reports whether s gives want's decoded size, or none. A decode of a
// record chunkview did not write does not learn the length of its JSON
// (storage's DecodeStats leaves Summary.DecodedBytes zero), so such a row shows
// none; one it shows must be the record's.
func decodedSize(s, want storage.Summary) bool {
	return s.DecodedBytes == 0 || s.DecodedBytes == want.DecodedBytes
}

func withoutDecoded(s storage.Summary) storage.Summary {
	s.DecodedBytes = 0
	return s
}
