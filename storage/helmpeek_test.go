package storage

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// TestPeekHelmReadsPrefix: the peek of a record whose chart carries 5 MB of files
// after its metadata reads a few tens of KiB of it (inflating fills deflate's
// 32 KiB window ahead of the JSON decoder, and the files here do not compress), and
// gives what a full decode gives.
func TestPeekHelmReadsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var files []*chart.File
	for i := range 5 {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		files = append(files, &chart.File{Name: "files/blob" + string(rune('0'+i)), Data: b})
	}
	ts := helmtime.Time{Time: time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)}
	rls := &release.Release{
		Name: "prefix", Namespace: "apps", Version: 1,
		Info:  &release.Info{FirstDeployed: ts, LastDeployed: ts, Status: release.StatusDeployed, Description: "Install complete"},
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "big", Version: "0.1.0", AppVersion: "2.0"}, Files: files},
	}
	data, err := EncodeHelmRecord(rls)
	if err != nil {
		t.Fatal(err)
	}
	s, method, ok, consumed := peekHelm(data)
	want := SummaryOf(rls)
	want.Namespace, want.StoredBytes = "", int64(len(data))
	if !ok || method != "" || !s.LastDeployed.Equal(want.LastDeployed) {
		t.Fatalf("peeked %+v, %q, %v; want %+v", s, method, ok, want)
	}
	s.LastDeployed = want.LastDeployed
	if s != want {
		t.Fatalf("peeked %+v, want %+v", s, want)
	}
	t.Logf("read %d of %d bytes (%d of gzip)", consumed, len(data), base64.StdEncoding.DecodedLen(len(data)))
	if consumed <= 0 || consumed > 64<<10 {
		t.Fatalf("read %d of the record's %d bytes, want at most 64 KiB", consumed, len(data))
	}
}
