package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// lsJSON runs ls -o json with args and returns its releases by name and the
// requests it sent.
func (e *env) lsJSON(args ...string) (map[string]cli.ReleaseItem, int) {
	e.t.Helper()
	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", append([]string{"ls", "-o", "json"}, args...)...)
	mustCode(e.t, r, 0)
	var out cli.Releases
	decode(e.t, r, &out)
	m := map[string]cli.ReleaseItem{}
	for _, it := range out.Releases {
		m[it.Name] = it
	}
	return m, stats.Total()
}

// stored returns how many Secrets hold revision rev of release name in e's
// namespace (its index and chunks) and the bytes of their slices, read from the
// cluster itself.
func (e *env) stored(name string, rev int) (secrets int, bytes int64) {
	e.t.Helper()
	key := storage.RecordKey(name, rev)
	list, err := cluster.Client.CoreV1().Secrets(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: storage.LabelKey + "=" + key})
	if err != nil {
		e.t.Fatalf("list the Secrets of %s: %v", key, err)
	}
	for _, s := range list.Items {
		secrets++
		bytes += int64(len(s.Data[storage.DataChunk]))
	}
	return secrets, bytes
}

// TestLsPeeksOriginalIndexes: ls over releases helm-operator-plugins wrote reads
// their index Secrets with one list (up to ten releases a list) beyond what it
// costs over the same releases written by chunkview, and shows their chart, versions and status
// from it; multi-chunk ones show their size as not known ('-', a bound in JSON)
// and are checked from metadata. A release whose chart lies past its index's
// slice is decoded and shown whole.
func TestLsPeeksOriginalIndexes(t *testing.T) {
	orig, own := newEnv(t), newEnv(t)
	names := []string{"alpha", "beta", "gamma"}
	for _, n := range names {
		orig.install(byPlugins, n, 2)
		own.install(byChunkview, n, 2)
	}
	base, baseReqs := own.lsJSON()
	got, reqs := orig.lsJSON()
	t.Logf("ls -o json over %d releases: %d requests over the original driver's records, %d over chunkview's", len(names), reqs, baseReqs)
	if reqs != baseReqs+1 {
		t.Errorf("ls over the original driver's records sent %d requests, want %d: one list of the %d indexes beyond the %d over chunkview's", reqs, baseReqs+1, len(names), baseReqs)
	}
	for _, n := range names {
		it, b := got[n], base[n]
		if it.Chart != "greeter" || it.ChartVersion != "1.2.3" || it.AppVersion != "4.5.6" || it.Status != "deployed" || it.Revision != 2 || it.Revisions != 2 {
			t.Errorf("%s: %+v", n, it)
		}
		if secrets, _ := orig.stored(n, 2); it.Chunks < 2 || it.Chunks != secrets {
			t.Errorf("%s: %d chunks, want the %d Secrets that hold it, more than one", n, it.Chunks, secrets)
		}
		if it.StoredBytes != 0 || it.Fill != 0 || it.StoredBytesAtMost != int64(it.Chunks)*testChunkSize {
			t.Errorf("%s: storedBytes %d fill %g storedBytesAtMost %d; want 0, 0 and %d chunks of %d", n, it.StoredBytes, it.Fill, it.StoredBytesAtMost, it.Chunks, testChunkSize)
		}
		if !it.Checked || it.Broken || it.Namespace != orig.ns {
			t.Errorf("%s: checked %v broken %v namespace %q (%s)", n, it.Checked, it.Broken, it.Namespace, it.Unchecked)
		}
		if secrets, bytes := own.stored(n, 2); b.StoredBytes != bytes || b.Chunks != secrets || b.StoredBytesAtMost != 0 {
			t.Errorf("%s by chunkview: storedBytes %d in %d chunks, storedBytesAtMost %d; want the %d bytes of the %d Secrets that hold it", n, b.StoredBytes, b.Chunks, b.StoredBytesAtMost, bytes, secrets)
		}
	}
	r := orig.run("ls", "-o", "wide")
	mustCode(t, r, 0)
	for _, line := range strings.Split(r.stdout, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		// NAME NAMESPACE STORAGE NS REVISION STATUS CHART APP VERSION UPDATED
		// HEALTH FILL STORE CHUNKS SIZE ...
		if f[5] != "greeter-1.2.3" || f[6] != "4.5.6" || f[12] != "-" || f[9] != "-" || f[8] != "ok" {
			t.Errorf("ls row %q: want chart greeter-1.2.3, app 4.5.6, SIZE and FILL '-', HEALTH ok", line)
		}
	}
	if strings.Contains(r.stderr, "Warning") {
		t.Errorf("ls warns:\n%s", r)
	}

	// Notes, before the chart in a release's encoding, push its metadata past
	// the first slice: that record is decoded, and shown with its size.
	rel := &release.Release{Name: "late", Namespace: orig.ns, Version: 1, Chart: testChart(), Manifest: "---\n",
		Info: &release.Info{Status: release.StatusDeployed, Description: "Install complete", Notes: noise("late-notes", 3*testChunkSize)}}
	if err := driverFor(byPlugins, orig.ns).Create(storage.RecordKey("late", 1), rel); err != nil {
		t.Fatal(err)
	}
	got, reqs2 := orig.lsJSON()
	it := got["late"]
	lateSecrets, lateBytes := orig.stored("late", 1)
	if it.Chart != "greeter" || it.ChartVersion != "1.2.3" || it.AppVersion != "4.5.6" || it.Chunks < 3 || it.Chunks != lateSecrets || it.StoredBytes != lateBytes || it.StoredBytesAtMost != 0 || !it.Checked {
		t.Errorf("late, its chart past its index: %+v; want %d chunks, %d bytes", it, lateSecrets, lateBytes)
	}
	if reqs2 != reqs+it.Chunks-1 {
		t.Errorf("ls with late: %d requests, want %d: its index in the same list, then its %d other chunks", reqs2, reqs+it.Chunks-1, it.Chunks-1)
	}
}

// TestLsNearLimitPeeked: --near-limit decides on a real size, not the bound a
// peek gives: a release whose bound reaches the threshold is decoded, and listed
// only when its size does.
func TestLsNearLimitPeeked(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "big", 1)
	limit := []string{"--chunk-size", fmt.Sprint(testChunkSize), "--max-write-chunks", "10"}
	peeked, plain := e.lsJSON(limit...)
	p := peeked["big"]
	var h cli.History
	r := e.run("history", "big", "-o", "json")
	mustCode(t, r, 0)
	decode(t, r, &h)
	real := h.Revisions[len(h.Revisions)-1].StoredBytes
	const lim = 10 * testChunkSize
	if p.LimitBytes != lim || p.StoredBytes != 0 || real <= 0 || p.StoredBytesAtMost <= real {
		t.Fatalf("fixture: limit %d, stored %d, bound %d, real size %d", p.LimitBytes, p.StoredBytes, p.StoredBytesAtMost, real)
	}
	pct := func(n int64) float64 { return 100 * float64(n) / lim }

	// At or under its real fill: listed, decoded, with its size.
	got, reqs := e.lsJSON(append(limit, fmt.Sprintf("--near-limit=%.4f", pct(real)-0.01))...)
	if it, ok := got["big"]; !ok || it.StoredBytes != real || it.Fill*100 < pct(real)-0.01 || it.StoredBytesAtMost != 0 {
		t.Errorf("--near-limit under its fill: %+v (listed %v), want storedBytes %d", it, ok, real)
	}
	if reqs <= plain {
		t.Errorf("--near-limit under its fill: %d requests, no more than without it (%d): not decoded", reqs, plain)
	}
	// Between its real fill and its bound's: decoded, and not listed.
	got, _ = e.lsJSON(append(limit, fmt.Sprintf("--near-limit=%.4f", pct((real+p.StoredBytesAtMost)/2)))...)
	if _, ok := got["big"]; ok {
		t.Errorf("--near-limit between its fill (%.1f%%) and its bound's (%.1f%%) lists it", pct(real), pct(p.StoredBytesAtMost))
	}
	// Over its bound: not listed, nor decoded.
	got, reqs = e.lsJSON(append(limit, fmt.Sprintf("--near-limit=%.4f", pct(p.StoredBytesAtMost)+0.01))...)
	if _, ok := got["big"]; ok || reqs != plain {
		t.Errorf("--near-limit over its bound: listed %v, %d requests (want %d, as without it)", ok, reqs, plain)
	}
}

// TestLsNarrowsPeekedAcrossStorageNamespace: -n across a storage namespace picks
// releases by their own namespace, which a peek does not reveal: ls decodes
// those rows, and lists only the namespace's; -A peeks, and leaves the release
// namespace it did not read empty (the table shows "?"), for the storage
// namespace is not it.
func TestLsNarrowsPeekedAcrossStorageNamespace(t *testing.T) {
	e := newEnv(t)
	e.noNamespace = true
	for _, n := range []string{"one", "two"} {
		rel := &release.Release{Name: n, Namespace: "ns-" + n, Version: 1, Chart: testChart(), Manifest: "---\n# " + noise(n, 2*testChunkSize),
			Info: &release.Info{Status: release.StatusDeployed, Description: "Install complete"}}
		if err := driverFor(byPlugins, e.ns).Create(storage.RecordKey(n, 1), rel); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := e.lsJSON("--storage-namespace", e.ns, "-n", "ns-one")
	if it, ok := got["one"]; len(got) != 1 || !ok || it.Namespace != "ns-one" || it.StoredBytes <= 0 || it.StoredBytesAtMost != 0 {
		t.Errorf("ls -n ns-one across storage namespace %s: %+v", e.ns, got)
	}
	// Other tests' releases in Helm's stores are listed too with -A: the chunked store alone.
	got, _ = e.lsJSON("--storage-namespace", e.ns, "-A", "--driver", "chunked")
	if len(got) != 2 || got["two"].Namespace != "" || got["two"].StorageNamespace != e.ns || got["two"].Chart != "greeter" || got["two"].StoredBytes != 0 || got["two"].StoredBytesAtMost <= 0 {
		t.Errorf("ls -A across storage namespace %s: %+v", e.ns, got)
	}
}
