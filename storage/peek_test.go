package storage_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// TestPeekSummary: a row's summary is read from the index's own slice, the way
// the original driver stores it (no chunkview annotations), and matches what a full
// decode gives; a slice too short to hold the chart's metadata, or not a release,
// says so instead of guessing.
func TestPeekSummary(t *testing.T) {
	rls := releaseOfChunks(t, "peek", 3, release.StatusDeployed, 8, faultChunkSize, 1)
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	index := func(chunkSize int) *corev1.Secret {
		slices := storage.Split(gz, chunkSize)
		k := key("peek", 3)
		names := "["
		for i, s := range slices[1:] {
			if i > 0 {
				names += ","
			}
			names += `"` + storage.ChunkName(k, s) + `"`
		}
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: k}, Type: storage.SecretTypeIndex,
			Data: map[string][]byte{storage.DataChunk: slices[0], storage.DataExtraChunks: []byte(names + "]")}}
	}
	got, ok := storage.PeekSummary(index(faultChunkSize))
	if !ok {
		t.Fatal("no summary from a 4 KiB first slice")
	}
	want := storage.SummaryOf(rls)
	if got.Chart != want.Chart || got.ChartVersion != want.ChartVersion || got.AppVersion != want.AppVersion ||
		got.Description != want.Description || !got.LastDeployed.Equal(want.LastDeployed) || got.Chunks != 8 {
		t.Fatalf("peeked %+v, want %+v with 8 chunks", got, want)
	}
	for name, idx := range map[string]*corev1.Secret{
		"a 40-byte first slice": index(40),
		"not gzip":              {ObjectMeta: metav1.ObjectMeta{Name: "x"}, Data: map[string][]byte{storage.DataChunk: []byte("not a gzip stream")}},
		"no data":               {ObjectMeta: metav1.ObjectMeta{Name: "x"}},
	} {
		if s, ok := storage.PeekSummary(idx); ok {
			t.Errorf("%s: peeked %+v, want no summary", name, s)
		}
	}
}
