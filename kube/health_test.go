package kube_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

const healthOwner = "health-owner"

// healthRows returns the latest row of each release in ns, by name.
func healthRows(t *testing.T, c *kube.Client) map[string]*kube.RevisionRow {
	t.Helper()
	rels, err := c.Releases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*kube.RevisionRow{}
	for i := range rels {
		out[rels[i].Latest.Name] = &rels[i].Latest
	}
	return out
}

// takeChunk deletes one chunk Secret of key and returns it, for putting back.
func takeChunk(t *testing.T, ns, key string) *corev1.Secret {
	t.Helper()
	name := chunkNames(t, ns, key)[0]
	s, err := secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets(ns).Delete(t.Context(), name, deleteNow); err != nil {
		t.Fatal(err)
	}
	s.ResourceVersion, s.UID, s.CreationTimestamp, s.ManagedFields = "", "", metav1.Time{}, nil
	return s
}

// freshen marks the index of key written just now, as a writer that is storing
// it leaves it.
func freshen(t *testing.T, ns, key string) {
	t.Helper()
	now := strconv.FormatInt(time.Now().Unix(), 10)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, storage.LabelModifiedAt, now)
	if _, err := secrets(ns).Patch(t.Context(), key, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func putBack(t *testing.T, ns string, s *corev1.Secret) {
	t.Helper()
	if _, err := secrets(ns).Create(t.Context(), s.DeepCopy(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestCheckHealth: one list of chunk metadata tells which rows have all their
// chunk Secrets; a row that lost one is broken with the reason; a row nobody could
// count the chunks of says it was not checked.
func TestCheckHealth(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	cv := storage.NewDriver(secrets(ns), healthOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, cv, history("whole", ns, 2, 40_000)...)
	seed(t, cv, history("small", ns, 1, 0)...)
	seed(t, cv, history("lost", ns, 1, 40_000)...)
	seed(t, originalDriver(ns, healthOwner, 16<<10), history("theirs", ns, 1, 40_000)...)
	backdate(t, ns, storage.RecordKey("lost", 1))
	takeChunk(t, ns, storage.RecordKey("lost", 1))

	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", healthOwner}, func(o *kube.Options) { o.WrapConfig = wire.install })
	rows := healthRows(t, c)

	// The record another tool wrote records no chunk count: unchecked until decoded.
	theirs := rows["theirs"]
	if err := kube.NewChecker(c).CheckHealth(ctx, []*kube.RevisionRow{theirs}); err != nil {
		t.Fatal(err)
	}
	if theirs.Checked || theirs.Broken || !strings.Contains(theirs.Unchecked, "not recorded") {
		t.Errorf("theirs before decoding: checked %v broken %v unchecked %q; want unchecked, saying why", theirs.Checked, theirs.Broken, theirs.Unchecked)
	}
	if err := c.FillDetails(ctx, []*kube.RevisionRow{theirs}); err != nil {
		t.Fatal(err)
	}
	if !theirs.Checked || theirs.Broken {
		t.Errorf("theirs decoded whole: checked %v broken %v", theirs.Checked, theirs.Broken)
	}

	healthy := []*kube.RevisionRow{rows["whole"], rows["small"], theirs}
	wire.Reset()
	if err := kube.NewChecker(c).CheckHealth(ctx, healthy); err != nil {
		t.Fatal(err)
	}
	reqs := wire.Requests()
	if len(reqs) != 1 {
		t.Fatalf("CheckHealth of healthy rows sent %v, want one list", reqs)
	}
	q, _ := url.ParseQuery(reqs[0].Query)
	if sel := q.Get("labelSelector"); reqs[0].Path != "/api/v1/namespaces/"+ns+"/secrets" || !strings.Contains(sel, "type=chunk") ||
		!strings.Contains(sel, "owner="+healthOwner) || !strings.Contains(sel, storage.RecordKey("whole", 2)) || !strings.Contains(reqs[0].Accept, "PartialObjectMetadataList") {
		t.Errorf("the chunk check is %s (Accept %s), want a metadata list of the rows' chunks", reqs[0], reqs[0].Accept)
	}
	for _, r := range healthy {
		if !r.Checked || r.Broken || r.Writing {
			t.Errorf("%s: checked %v broken %v writing %v (%s)", r.Name, r.Checked, r.Broken, r.Writing, r.Unchecked)
		}
	}

	// Past a few hundred keys the selector would grow too long: the listing takes
	// every chunk Secret of the owner, still in one request, and counts the same.
	restore := kube.SetMaxSelectorKeys(0)
	again := healthRows(t, c)
	many := []*kube.RevisionRow{again["whole"], again["theirs"]}
	wire.Reset()
	if err := kube.NewChecker(c).CheckHealth(ctx, many); err != nil {
		t.Fatal(err)
	}
	restore()
	if reqs := wire.Requests(); len(reqs) != 1 || strings.Contains(reqs[0].Query, "key+in") || strings.Contains(reqs[0].Query, "key%20in") {
		t.Errorf("CheckHealth past the selector's bound sent %v, want one list of the owner's chunks", reqs)
	}
	for _, r := range many {
		if !r.Checked || r.Broken {
			t.Errorf("%s, listed with the owner's chunks: checked %v broken %v (%s)", r.Name, r.Checked, r.Broken, r.Unchecked)
		}
	}

	lost := rows["lost"]
	// Counted one way: the chunks, the index's own slice the first, as the
	// decode's "chunk K of N" counts them.
	want := strconv.Itoa(lost.Summary.Chunks)
	if err := kube.NewChecker(c).CheckHealth(ctx, []*kube.RevisionRow{lost}); err != nil {
		t.Fatal(err)
	}
	if !lost.Broken || lost.Checked || !strings.HasPrefix(lost.Problem, "1 of "+want+" chunks missing: chunk ") || !strings.Contains(lost.Problem, " of "+want+", Secret ") {
		t.Errorf("lost: broken %v checked %v problem %q; want broken, 1 of %s chunks missing: chunk K of %s", lost.Broken, lost.Checked, lost.Problem, want, want)
	}
}

// TestHealthDuringAnotherWrite: helm-operator-plugins writes an index before its
// chunks. A row caught in that window shows as being written, not broken, and is
// checked again once the window has passed: healthy if the writer finished, broken
// if the chunk never came.
func TestHealthDuringAnotherWrite(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	hop := originalDriver(ns, healthOwner, 16<<10)
	cv := storage.NewDriver(secrets(ns), healthOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, hop, makeRelease("theirs", ns, 1, release.StatusDeployed, 40_000))
	seed(t, hop, makeRelease("gone", ns, 1, release.StatusDeployed, 40_000))
	seed(t, cv, makeRelease("returns", ns, 1, release.StatusDeployed, 40_000))
	seed(t, cv, makeRelease("stays", ns, 1, release.StatusDeployed, 40_000))
	// The moment of the write: the indexes are there, one chunk of each is not yet.
	theirsChunk := takeChunk(t, ns, storage.RecordKey("theirs", 1))
	returnsChunk := takeChunk(t, ns, storage.RecordKey("returns", 1))
	takeChunk(t, ns, storage.RecordKey("stays", 1))
	takeChunk(t, ns, storage.RecordKey("gone", 1))

	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", healthOwner}, nil)

	// Decoded (the TUI's and ls's way for records another tool wrote).
	freshen(t, ns, storage.RecordKey("theirs", 1))
	theirs := healthRows(t, c)["theirs"]
	if err := c.FillDetails(ctx, []*kube.RevisionRow{theirs}); err != nil {
		t.Fatal(err)
	}
	if theirs.Broken || !theirs.Writing || theirs.Checked || !strings.Contains(theirs.Unchecked, "another writer") {
		t.Errorf("theirs mid-write: broken %v writing %v checked %v (%s); want being written", theirs.Broken, theirs.Writing, theirs.Checked, theirs.Unchecked)
	}
	putBack(t, ns, theirsChunk)
	theirs.Writing = false
	if err := c.FillDetails(ctx, []*kube.RevisionRow{theirs}); err != nil {
		t.Fatal(err)
	}
	if theirs.Broken || theirs.Writing || !theirs.Checked {
		t.Errorf("theirs once written: broken %v writing %v checked %v; want healthy (no verdict kept from the write window)", theirs.Broken, theirs.Writing, theirs.Checked)
	}

	// Checked from metadata, one row at a time (the TUI's way).
	freshen(t, ns, storage.RecordKey("stays", 1))
	row, err := kube.NewChecker(c).CheckChunks(ctx, *healthRows(t, c)["stays"])
	if err != nil {
		t.Fatal(err)
	}
	if row.Broken || !row.Writing || !strings.Contains(row.Unchecked, "1 of ") {
		t.Errorf("CheckChunks mid-write: broken %v writing %v (%s); want being written", row.Broken, row.Writing, row.Unchecked)
	}

	// ls and history's way: wait out the window, then decide. The three rows'
	// indexes were written at one second, written; the client's clock reads
	// WritingWindow-lead after it, running on from there, so the window has lead
	// left to run. The chunk of "returns" comes back the moment the first check
	// has found it missing.
	written := time.Now().Truncate(time.Second)
	for _, name := range []string{"gone", "returns", "stays"} {
		writtenAt(t, ns, storage.RecordKey(name, 1), written)
	}
	// The client's clock runs on from base, set at t0.
	var (
		mu     sync.Mutex
		base   = written.Add(time.Second)
		t0     = time.Now()
		checks []time.Time // the client's clock at each list of chunk metadata
		// checking is set while CheckHealth runs: its lists are the ones counted.
		checking bool
		// next is the client's clock at the first request after the first
		// check: the end of the wait.
		next time.Time
	)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return base.Add(time.Since(t0))
	}
	setClock := func(at time.Time) {
		mu.Lock()
		base, t0 = at, time.Now()
		mu.Unlock()
	}
	const lead = 300 * time.Millisecond
	until := written.Add(kube.WritingWindow)
	hook := func(req *http.Request, send func() (*http.Response, error)) (*http.Response, error) {
		mu.Lock()
		armed := checking
		if armed && len(checks) == 1 && next.IsZero() {
			next = base.Add(time.Since(t0))
		}
		mu.Unlock()
		if !armed || !strings.Contains(req.URL.Query().Get("labelSelector"), "type=chunk") {
			return send()
		}
		at := clock()
		resp, err := send()
		mu.Lock()
		checks = append(checks, at)
		first := len(checks) == 1
		mu.Unlock()
		if first {
			if _, err := secrets(ns).Create(ctx, returnsChunk, metav1.CreateOptions{}); err != nil {
				t.Errorf("put the chunk of returns back: %v", err)
			}
		}
		return resp, err
	}
	lc := clockedClient(t, kube.Config{Owner: healthOwner, Namespace: ns, Drivers: []string{kube.DriverChunked}, Now: clock}, hook)
	rows := healthRows(t, lc)
	returns, stays, gone := rows["returns"], rows["stays"], rows["gone"]
	// The record another tool wrote counts no chunks: decoded, a second into the
	// window, it is being written.
	if err := lc.FillDetails(ctx, []*kube.RevisionRow{gone}); err != nil || !gone.Writing {
		t.Fatalf("gone, another tool's record mid-write: writing %v, %v", gone.Writing, err)
	}
	setClock(until.Add(-lead))
	mu.Lock()
	checking = true
	mu.Unlock()
	if err := kube.NewChecker(lc).CheckHealth(ctx, []*kube.RevisionRow{returns, stays, gone}); err != nil {
		t.Fatal(err)
	}
	if !gone.Broken || gone.Writing || !strings.Contains(gone.Problem, "does not exist") {
		t.Errorf("gone, another tool's record whose chunk never came: broken %v writing %v problem %q (%s)", gone.Broken, gone.Writing, gone.Problem, gone.Unchecked)
	}
	if returns.Broken || returns.Writing || !returns.Checked {
		t.Errorf("returns, whose chunk came: broken %v writing %v checked %v (%s)", returns.Broken, returns.Writing, returns.Checked, returns.Unchecked)
	}
	if !stays.Broken || stays.Writing || !strings.HasPrefix(stays.Problem, "1 of ") {
		t.Errorf("stays, whose chunk never came: broken %v writing %v problem %q; want broken", stays.Broken, stays.Writing, stays.Problem)
	}
	// One check before the window ended, one for all three rows once it had:
	// not one wait per row, nor a verdict before the window passed.
	mu.Lock()
	defer mu.Unlock()
	if len(checks) != 2 {
		t.Fatalf("CheckHealth listed chunk metadata %d times, want twice: once, then once more for every row being written", len(checks))
	}
	if !checks[0].Before(until) || next.Before(until) || checks[1].Before(until) {
		t.Errorf("chunks checked at %s and %s of the client's clock, the first request after the first check at %s; want the first check inside the window and all that follows after it (%s)",
			checks[0].Sub(written), checks[1].Sub(written), next.Sub(written), kube.WritingWindow)
	}
}

// writtenAt labels the index of key written at when, as a writer storing it
// leaves it.
func writtenAt(t *testing.T, ns, key string, when time.Time) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, storage.LabelModifiedAt, strconv.FormatInt(when.Unix(), 10))
	if _, err := secrets(ns).Patch(t.Context(), key, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// hookRT hands each request to hook, with the function that sends it.
type hookRT struct {
	next http.RoundTripper
	hook func(*http.Request, func() (*http.Response, error)) (*http.Response, error)
}

func (h *hookRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return h.hook(req, func() (*http.Response, error) { return h.next.RoundTrip(req) })
}

// clockedClient is a client of the test cluster with cfg (its clock, say), every
// request of which goes through hook.
func clockedClient(t *testing.T, cfg kube.Config, hook func(*http.Request, func() (*http.Response, error)) (*http.Response, error)) *kube.Client {
	t.Helper()
	rc := rest.CopyConfig(cluster.Config)
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &hookRT{next: rt, hook: hook} })
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return kube.New(cs, md, nil, cfg)
}
