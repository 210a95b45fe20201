package kube_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// listFixture is 200 releases of 3 revisions across 5 namespaces, every other one
// written by helm-operator-plugins' driver and the rest by chunkview's; releases whose
// index is 0 or 1 mod 10 span several 16 KiB chunks.
type listFixture struct {
	owner      string
	namespaces []string
	// byChunkview tells, by "namespace/name", which driver wrote the release.
	byChunkview map[string]bool
	multi       map[string]bool
	indexes     int
}

const (
	listReleases  = 200
	listRevisions = 3
	listChunkSize = 16 << 10
)

func newListFixture(t *testing.T) *listFixture {
	t.Helper()
	f := &listFixture{owner: "list-owner", byChunkview: map[string]bool{}, multi: map[string]bool{}}
	for range 5 {
		f.namespaces = append(f.namespaces, cluster.Namespace(t))
	}
	for i := range listReleases {
		ns := f.namespaces[i%len(f.namespaces)]
		name := fmt.Sprintf("app-%03d", i)
		blob := 6_000
		if i%10 < 2 {
			blob = 40_000
			f.multi[ns+"/"+name] = true
		}
		rels := history(name, ns, listRevisions, blob)
		if i%2 == 0 {
			f.byChunkview[ns+"/"+name] = true
			seed(t, chunkviewDriver(ns, f.owner, listChunkSize), rels...)
		} else {
			seed(t, originalDriver(ns, f.owner, listChunkSize), rels...)
		}
		f.indexes += len(rels)
	}
	return f
}

// TestListingReadsMetadataOnly proves that listing releases and revisions costs
// metadata list pages only, that records written by chunkview list with their chart
// and sizes straight away, and that FillDetails decodes only the other rows, once.
func TestListingReadsMetadataOnly(t *testing.T) {
	f := newListFixture(t)
	ctx := t.Context()

	stats := &kube.Stats{}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ""), []string{"-A", "--owner", f.owner}, func(o *kube.Options) {
		o.Stats = stats
		o.WrapConfig = wire.install
	})

	rows, err := c.Releases(ctx)
	if err != nil {
		t.Fatalf("Releases: %v", err)
	}
	if len(rows) != listReleases {
		t.Fatalf("Releases returned %d rows, want %d", len(rows), listReleases)
	}
	reqs := wire.Requests()
	// One request of one large page, which the API server answers from its watch cache.
	wantPages := 1
	if len(reqs) != wantPages || stats.Total() != wantPages {
		t.Errorf("Releases over %d index Secrets sent %d requests (stats: %d), want %d: %v", f.indexes, len(reqs), stats.Total(), wantPages, reqs)
	}
	for _, r := range reqs {
		mustBeMetadataList(t, r, "/api/v1/secrets", f.owner, "")
	}
	listBytes, listWire := stats.BytesReceived(), wire.WireBytes.Load()
	t.Logf("Releases -A over %d releases x %d revisions in %d namespaces (%d index Secrets): %d requests %v, %d response bytes, %d bytes on the wire",
		listReleases, listRevisions, len(f.namespaces), f.indexes, stats.Total(), stats.Requests(), listBytes, listWire)

	// ls's chunk check of every latest revision chunkview wrote: one more list.
	var known []*kube.RevisionRow
	checkRows := make([]kube.RevisionRow, len(rows))
	for i := range rows {
		checkRows[i] = rows[i].Latest
		if checkRows[i].Known {
			known = append(known, &checkRows[i])
		}
	}
	wire.Reset()
	before := stats.BytesReceived()
	if err := kube.NewChecker(c).CheckHealth(ctx, known); err != nil {
		t.Fatalf("CheckHealth: %v", err)
	}
	if reqs := wire.Requests(); len(reqs) != 1 {
		t.Errorf("CheckHealth of %d rows sent %d requests, want 1: %v", len(known), len(reqs), reqs)
	}
	for _, r := range known {
		if !r.Checked || r.Broken {
			t.Errorf("%s/%s: checked %v broken %v (%s)", r.StorageNamespace, r.Name, r.Checked, r.Broken, r.Unchecked)
		}
	}
	t.Logf("CheckHealth -A of %d latest revisions: 1 request, %d response bytes", len(known), stats.BytesReceived()-before)
	wire.Reset()

	for _, r := range rows {
		id := r.Latest.StorageNamespace + "/" + r.Latest.Name
		if r.Revisions != listRevisions || r.Latest.Revision != listRevisions || r.Latest.Status != "deployed" {
			t.Errorf("%s: %d revisions, latest %d %s; want %d, latest %d deployed", id, r.Revisions, r.Latest.Revision, r.Latest.Status, listRevisions, listRevisions)
		}
		if r.Latest.Key != storage.RecordKey(r.Latest.Name, listRevisions) {
			t.Errorf("%s: key %q", id, r.Latest.Key)
		}
		if !f.byChunkview[id] {
			if r.Latest.Known || r.Latest.Summary != (storage.Summary{}) {
				t.Errorf("%s, written by the original driver, is Known from metadata alone: %+v", id, r.Latest.Summary)
			}
			continue
		}
		s := r.Latest.Summary
		if !r.Latest.Known || s.Chart != "webapp" || s.ChartVersion != "1.3.0" || s.AppVersion != "2.3" || s.Namespace != r.Latest.StorageNamespace {
			t.Errorf("%s, written by chunkview: Known=%v summary %+v, want chart webapp 1.3.0 app 2.3 in its namespace", id, r.Latest.Known, s)
		}
		if s.StoredBytes <= 0 || s.DecodedBytes <= s.StoredBytes || s.PayloadSHA256 == "" {
			t.Errorf("%s: sizes from annotations: stored %d decoded %d sha %q", id, s.StoredBytes, s.DecodedBytes, s.PayloadSHA256)
		}
		if wantMulti := f.multi[id]; (s.Chunks > 1) != wantMulti {
			t.Errorf("%s: %d chunks, multi-chunk %v", id, s.Chunks, wantMulti)
		}
		if !r.Latest.Updated.Equal(baseTime.Add(listRevisions * 3600e9)) {
			t.Errorf("%s: updated %v, want the last deployment time", id, r.Latest.Updated)
		}
	}

	// The same index Secrets listed in full, as a reader without the metadata API
	// (or helm-operator-plugins' List, which then also fetches every chunk) does.
	fullStats := &kube.Stats{}
	fullWire := &wireLog{}
	rc := rest.CopyConfig(cluster.Config)
	fullWire.install(rc)
	fullStats.Count(rc)
	full, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	opts := metav1.ListOptions{LabelSelector: storage.IndexSelector(f.owner).String(), Limit: 500}
	n := 0
	for {
		list, err := full.CoreV1().Secrets("").List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		n += len(list.Items)
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	fullBytes := fullStats.BytesReceived()
	t.Logf("full Secret list of the same %d index Secrets: %d requests, %d response bytes, %d bytes on the wire; the metadata list takes %.1f%% of the response bytes",
		n, fullStats.Total(), fullBytes, fullWire.WireBytes.Load(), 100*float64(listBytes)/float64(fullBytes))
	if n != f.indexes {
		t.Fatalf("full list found %d index Secrets, want %d", n, f.indexes)
	}
	if listBytes*2 > fullBytes {
		t.Errorf("metadata listing received %d bytes, not much less than the %d of a full list", listBytes, fullBytes)
	}

	t.Run("FillDetails decodes only rows not known, once", func(t *testing.T) {
		var ptrs []*kube.RevisionRow
		unknown := map[string]bool{} // index names
		for i := range rows {
			ptrs = append(ptrs, &rows[i].Latest)
			if !rows[i].Latest.Known {
				unknown[rows[i].Latest.Key] = true
			}
		}
		wire.Reset()
		before, beforeBytes := stats.Total(), stats.BytesReceived()
		if err := c.FillDetails(ctx, ptrs); err != nil {
			t.Fatalf("FillDetails: %v", err)
		}
		fetched := map[string]int{}
		chunks := 0
		for _, r := range wire.Requests() {
			ns, name, ok := secretGet(r)
			if !ok {
				t.Errorf("FillDetails sent %s, want only GETs of Secrets by name", r)
				continue
			}
			if unknown[name] {
				fetched[name]++
				continue
			}
			key := name[:strings.LastIndex(name, "-")]
			if !unknown[key] {
				t.Errorf("FillDetails fetched %s/%s, which belongs to no row it had to decode", ns, name)
			}
			chunks++
		}
		for k := range unknown {
			if fetched[k] != 1 {
				t.Errorf("index %s fetched %d times, want once", k, fetched[k])
			}
		}
		if len(fetched) != len(unknown) {
			t.Errorf("FillDetails fetched %d indexes, want the %d unknown rows'", len(fetched), len(unknown))
		}
		wantChunks := 0
		for i := range rows {
			l := rows[i].Latest
			if unknown[l.Key] && f.multi[l.StorageNamespace+"/"+l.Name] {
				wantChunks += l.Summary.Chunks - 1
			}
		}
		if chunks != wantChunks || wantChunks == 0 {
			t.Errorf("FillDetails fetched %d chunk Secrets, want %d", chunks, wantChunks)
		}
		t.Logf("FillDetails over %d rows, %d of them unknown: %d requests (%d indexes, %d chunks), %d response bytes",
			len(ptrs), len(unknown), stats.Total()-before, len(fetched), chunks, stats.BytesReceived()-beforeBytes)

		for _, r := range ptrs {
			s := r.Summary
			if !r.Known || r.Broken || s.Chart != "webapp" || s.ChartVersion != "1.3.0" || s.AppVersion != "2.3" || s.StoredBytes <= 0 || s.Chunks < 1 || s.Namespace != r.StorageNamespace {
				t.Errorf("%s/%s after FillDetails: Known=%v Broken=%v %+v", r.StorageNamespace, r.Name, r.Known, r.Broken, s)
			}
			if f.multi[r.StorageNamespace+"/"+r.Name] != (s.Chunks > 1) {
				t.Errorf("%s/%s: %d chunks", r.StorageNamespace, r.Name, s.Chunks)
			}
		}

		// Asking again costs nothing: the rows are filled, and fresh rows for
		// unchanged records are served from the cache.
		before = stats.Total()
		if err := c.FillDetails(ctx, ptrs); err != nil {
			t.Fatal(err)
		}
		for _, r := range ptrs {
			if unknown[r.Key] {
				r.Known, r.Summary = false, storage.Summary{}
			}
		}
		if err := c.FillDetails(ctx, ptrs); err != nil {
			t.Fatal(err)
		}
		if n := stats.Total() - before; n != 0 {
			t.Errorf("FillDetails of rows decoded before sent %d requests, want 0", n)
		}
		again, err := c.Releases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range again {
			if !r.Latest.Known {
				t.Errorf("%s/%s: listed again, not known from the cache", r.Latest.StorageNamespace, r.Latest.Name)
			}
		}
		if n := stats.Total() - before; n != wantPages {
			t.Errorf("listing again after FillDetails sent %d requests, want %d", n, wantPages)
		}
	})

	t.Run("History and a broken revision", func(t *testing.T) {
		ns := f.namespaces[1]
		name := "app-001" // written by the original driver, several chunks
		if f.byChunkview[ns+"/"+name] || !f.multi[ns+"/"+name] {
			t.Fatalf("fixture changed: %s/%s", ns, name)
		}
		wire.Reset()
		hist, err := c.History(ctx, ns, name)
		if err != nil {
			t.Fatalf("History: %v", err)
		}
		if reqs := wire.Requests(); len(reqs) != 1 {
			t.Errorf("History sent %v, want one list", reqs)
		} else {
			mustBeMetadataList(t, reqs[0], "/api/v1/namespaces/"+ns+"/secrets", f.owner, name)
		}
		if len(hist) != listRevisions {
			t.Fatalf("History: %d rows", len(hist))
		}
		for i, r := range hist {
			if r.Revision != i+1 || r.Name != name || r.StorageNamespace != ns {
				t.Errorf("row %d: %+v", i, r)
			}
		}
		if hist[0].Known || hist[1].Known || !hist[2].Known {
			t.Errorf("History of an original-driver release: Known %v %v %v, want only the latest (decoded before)", hist[0].Known, hist[1].Known, hist[2].Known)
		}

		// Break revision 2, written long ago: one of its chunks goes.
		backdate(t, ns, hist[1].Key)
		lost := chunkNames(t, ns, hist[1].Key)[0]
		if err := secrets(ns).Delete(ctx, lost, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Releases(ctx); err != nil {
			t.Fatalf("Releases with a broken revision: %v", err)
		}
		ptrs := []*kube.RevisionRow{&hist[0], &hist[1], &hist[2]}
		if err := c.FillDetails(ctx, ptrs); err != nil {
			t.Fatalf("FillDetails with a broken revision: %v", err)
		}
		if !hist[0].Known || hist[0].Broken || hist[0].Summary.ChartVersion != "1.1.0" {
			t.Errorf("revision 1: %+v", hist[0])
		}
		if !hist[1].Broken || hist[1].Known || !strings.Contains(hist[1].Problem, lost) || !strings.Contains(hist[1].Problem, "does not exist") {
			t.Errorf("revision 2 lost chunk %s: Broken=%v Known=%v Problem %q", lost, hist[1].Broken, hist[1].Known, hist[1].Problem)
		}
		// Listed again, the broken revision stays broken, not "known" with an empty
		// summary.
		hist2, err := c.History(ctx, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		if !hist2[1].Broken || hist2[1].Known || hist2[1].Problem == "" {
			t.Errorf("revision 2 listed again: Broken=%v Known=%v Problem %q", hist2[1].Broken, hist2[1].Known, hist2[1].Problem)
		}

		// A chunkview-written revision lists as known from its annotations; decoding
		// it on demand finds it broken.
		cvName, cvNS := "app-010", f.namespaces[0]
		cvHist, err := c.History(ctx, cvNS, cvName)
		if err != nil {
			t.Fatal(err)
		}
		cvLost := chunkNames(t, cvNS, cvHist[0].Key)[0]
		if err := secrets(cvNS).Delete(ctx, cvLost, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := c.Details(ctx, cvHist[0])
		if err != nil {
			t.Fatalf("Details of a broken revision: %v", err)
		}
		if !d.Row.Broken || d.Release != nil || !strings.Contains(d.Row.Problem, cvLost) {
			t.Errorf("Details of %s without %s: Broken=%v Problem %q", cvHist[0].Key, cvLost, d.Row.Broken, d.Row.Problem)
		}
	})
}

// mustBeMetadataList checks that r lists index Secrets of owner (and of release
// name, when set) at path through the metadata API.
func mustBeMetadataList(t *testing.T, r wireRequest, path, owner, name string) {
	t.Helper()
	if r.Method != "GET" || r.Path != path {
		t.Errorf("request %s, want GET %s", r, path)
	}
	q, _ := url.ParseQuery(r.Query)
	sel := q.Get("labelSelector")
	if !strings.Contains(sel, "owner="+owner) {
		t.Errorf("request %s: selector %q lacks owner=%s", r, sel, owner)
	}
	// A listing of releases takes their pending indexes in the same request.
	if !strings.Contains(sel, "type=index") && !strings.Contains(sel, "type in (index,pending)") {
		t.Errorf("request %s: selector %q selects neither type=index nor type in (index,pending)", r, sel)
	}
	if name != "" && !strings.Contains(sel, "name="+name) {
		t.Errorf("request %s: selector %q lacks name=%s", r, sel, name)
	}
	if q.Get("limit") != "5000" {
		t.Errorf("request %s: limit %q, want 5000 (one page in the common case, from the watch cache)", r, q.Get("limit"))
	}
	if !strings.Contains(r.Accept, "as=PartialObjectMetadataList") {
		t.Errorf("request %s: Accept %q does not ask for PartialObjectMetadataList", r, r.Accept)
	}
}

// secretGet reports whether r reads one Secret by name, and which.
func secretGet(r wireRequest) (ns, name string, ok bool) {
	rest, ok := strings.CutPrefix(r.Path, "/api/v1/namespaces/")
	if !ok || r.Method != "GET" {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[1] != "secrets" {
		return "", "", false
	}
	return parts[0], parts[2], true
}

// indexList reports whether r lists index Secrets of the keys its label selector
// names (FillSummaries' batches), and in which namespace.
func indexList(r wireRequest) (ns string, keys []string, ok bool) {
	rest, ok := strings.CutPrefix(r.Path, "/api/v1/namespaces/")
	if !ok || r.Method != "GET" || strings.Count(rest, "/") != 1 || !strings.HasSuffix(rest, "/secrets") {
		return "", nil, false
	}
	q, _ := url.ParseQuery(r.Query)
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return "", nil, false
	}
	reqs, _ := sel.Requirements()
	isIndex := false
	for _, req := range reqs {
		switch {
		case req.Key() == storage.LabelType && req.Operator() == selection.Equals:
			isIndex = req.Values().Has(storage.TypeIndex)
		case req.Key() == storage.LabelKey && req.Operator() == selection.In:
			keys = req.Values().List()
		}
	}
	if !isIndex || keys == nil {
		return "", nil, false
	}
	return strings.TrimSuffix(rest, "/secrets"), keys, true
}
