package storage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	hopclient "github.com/operator-framework/helm-operator-plugins/pkg/client"
	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// readerSecrets is a Secret client whose Get and List read through a
// controller-runtime client.Reader (a manager's cache, or its API reader) and
// whose writes go to the typed client it embeds: the "delegating" client OLMv1's
// operator-controller hands Helm's storage, written here for the test. It
// passes a list's limit and continue token on, as operator-controller does, and
// keeps the list options it was called with.
type readerSecrets struct {
	corev1client.SecretInterface
	reader ctrlclient.Reader
	ns     string

	mu    sync.Mutex
	lists []metav1.ListOptions
}

func (r *readerSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	var s corev1.Secret
	if err := r.reader.Get(ctx, ctrlclient.ObjectKey{Namespace: r.ns, Name: name}, &s, &ctrlclient.GetOptions{Raw: &opts}); err != nil {
		return nil, err
	}
	return &s, nil
}

func (r *readerSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	r.mu.Lock()
	r.lists = append(r.lists, opts)
	r.mu.Unlock()
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	var l corev1.SecretList
	err = r.reader.List(ctx, &l, ctrlclient.InNamespace(r.ns), ctrlclient.MatchingLabelsSelector{Selector: sel},
		ctrlclient.Limit(opts.Limit), ctrlclient.Continue(opts.Continue))
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// listed returns the list options the client was called with, and forgets them.
func (r *readerSecrets) listed() []metav1.ListOptions {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lists
	r.lists = nil
	return l
}

// renamedTokens is a client.Reader that hands out a continue token of its own
// in place of the one its reader set on a list, and sends back what it is sent:
// a source that refuses the token it handed out, under a name the driver does
// not know. It counts the continued lists refused.
type renamedTokens struct {
	ctrlclient.Reader
	mu      sync.Mutex
	refused int
}

func (r *renamedTokens) List(ctx context.Context, list ctrlclient.ObjectList, opts ...ctrlclient.ListOption) error {
	err := r.Reader.List(ctx, list, opts...)
	if err != nil {
		if (&ctrlclient.ListOptions{}).ApplyOptions(opts).Continue != "" {
			r.mu.Lock()
			r.refused++
			r.mu.Unlock()
		}
		return err
	}
	if list.GetContinue() != "" {
		list.SetContinue("the-next-page")
	}
	return nil
}

// cachedCluster is the test cluster as an operator's manager sees it: a
// controller-runtime cache of the Secrets of one namespace, started and synced,
// an API reader (no cache), and a typed client for the writes, each on a
// connection of its own whose requests are counted.
type cachedCluster struct {
	ns        string
	cache     cache.Cache
	apiReader ctrlclient.Reader
	live      corev1client.SecretInterface
	// cacheReqs, apiReqs and liveReqs count the requests of each connection.
	cacheReqs, apiReqs, liveReqs *benchCounter
}

// counted returns the test cluster's rest.Config with its requests counted by c.
func counted(c *benchCounter) *rest.Config {
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { c.next = rt; return c })
	return cfg
}

// newCachedCluster starts a cache of namespace ns's Secrets, stopped when the
// test ends, and waits until it has synced.
func newCachedCluster(t *testing.T, ns string) *cachedCluster {
	t.Helper()
	cc := &cachedCluster{ns: ns, cacheReqs: &benchCounter{}, apiReqs: &benchCounter{}, liveReqs: &benchCounter{}}
	c, err := cache.New(counted(cc.cacheReqs), cache.Options{Scheme: scheme.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("cache: %v", err)
		}
	})
	if _, err := c.GetInformer(ctx, &corev1.Secret{}); err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	cc.cache = c
	if cc.apiReader, err = ctrlclient.New(counted(cc.apiReqs), ctrlclient.Options{Scheme: scheme.Scheme}); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(counted(cc.liveReqs))
	if err != nil {
		t.Fatal(err)
	}
	cc.live = cs.CoreV1().Secrets(ns)
	return cc
}

// overCache and overAPIReader are delegating clients: reads through the cache or
// the API reader, writes live.
func (cc *cachedCluster) overCache() *readerSecrets {
	return &readerSecrets{SecretInterface: cc.live, reader: cc.cache, ns: cc.ns}
}

func (cc *cachedCluster) overAPIReader() *readerSecrets {
	return &readerSecrets{SecretInterface: cc.live, reader: cc.apiReader, ns: cc.ns}
}

// catchUp waits until the cache holds every Secret of the namespace at the
// version the API server holds it: reads through a cache may be stale, and the
// writes that follow a read keep their preconditions.
func (cc *cachedCluster) catchUp(t *testing.T) {
	t.Helper()
	versions := func(items []corev1.Secret) map[types.UID]string {
		m := map[types.UID]string{}
		for _, s := range items {
			m[s.UID] = s.ResourceVersion
		}
		return m
	}
	waitFor(t, func() bool {
		live, err := secretsIn(cc.ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cached corev1.SecretList
		if err := cc.cache.List(context.Background(), &cached, ctrlclient.InNamespace(cc.ns)); err != nil {
			t.Fatal(err)
		}
		return maps.Equal(versions(live.Items), versions(cached.Items))
	})
}

// requests returns the requests every connection made since the last reset,
// and resets them.
func (cc *cachedCluster) requests() int64 {
	n := cc.cacheReqs.reqs.Load() + cc.apiReqs.reqs.Load() + cc.liveReqs.reqs.Load()
	cc.cacheReqs.reset()
	cc.apiReqs.reset()
	cc.liveReqs.reset()
	return n
}

// clusterExtension is the ownerReference OLMv1 puts on a release's index
// Secrets: its ClusterExtension, controller of the release. (The test cluster
// runs no garbage collector, so the owner need not exist.)
func clusterExtension(name string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterExtension", Name: name,
		UID: types.UID("c1e0e2a8-0000-4000-8000-00000000cafe"), Controller: &yes, BlockOwnerDeletion: &yes}
}

// isIndex matches the Secrets OLMv1's owner-reference client owns: the index
// Secrets, not the chunks (which the index owns).
func isIndex(s *corev1.Secret) bool { return s.Type == storage.SecretTypeIndex }

// TestWorksOverControllerRuntimeCache: Helm 3's chunked driver, handed OLMv1's
// Secret client (helm-operator-plugins' owner-reference client over a
// delegating client whose reads go through controller-runtime's cache), installs,
// upgrades and deletes revisions, and reads them back as Helm's storage does
// (History, Get, ListReleases, Deployed), beside the package's inspection
// (ReadIndexes, Verify, FindLeftovers, RemoveLeftovers). Its reads make no
// request to the API server, and find what helm-operator-plugins' own driver
// reads live. The cache answers every list with a continue token it refuses
// (issue 28, item 1): the driver reads such a list whole, whether it knows the
// token or only meets the refusal.
func TestWorksOverControllerRuntimeCache(t *testing.T) {
	ns, secrets := newNamespace(t)
	cc := newCachedCluster(t, ns)
	cached := cc.overCache()
	olm := hopclient.NewOwnerRefSecretClient(cached, []metav1.OwnerReference{clusterExtension("app")}, isIndex)
	d := storage.NewDriver(olm, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	st := helmstorage.Init(d)
	const name = "app"
	writeHistory(t, cc, st, name)
	// Revision 7's chunks without its index: leftovers for the inspection.
	if err := st.Create(releaseOfChunks(t, name, 7, release.StatusFailed, 4, faultChunkSize, 7)); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(t.Context(), key(name, 7), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cc.catchUp(t)
	mustOwnIndexes(t, secrets, clusterExtension("app").UID)

	hop := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	want, err := hop.Query(map[string]string{"name": name, "owner": testOwner})
	if err != nil || len(want) != 5 {
		t.Fatalf("helm-operator-plugins' driver reads %d revisions (%v), want 5", len(want), err)
	}
	wantReport, err := storage.Verify(t.Context(), secrets, testOwner, storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}

	cc.requests()
	cached.listed()
	readAsHelm(t, st, name, want)
	if got, err := d.ReadIndexes(t.Context(), []string{key(name, 2), key(name, 6), key(name, 7)}); err != nil || len(got) != 2 {
		t.Errorf("ReadIndexes over the cache: %d indexes (%v), want revisions 2 and 6", len(got), err)
	}
	report, err := storage.Verify(t.Context(), cached, testOwner, storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond})
	if err != nil {
		t.Fatalf("Verify over the cache: %v", err)
	}
	mustSameReport(t, "Verify over the cache", wantReport, report)
	leftovers, err := storage.FindLeftovers(t.Context(), cached, testOwner, time.Nanosecond)
	if err != nil || len(leftovers) != 3 {
		t.Fatalf("FindLeftovers over the cache: %d (%v), want revision 7's 3 chunks", len(leftovers), err)
	}
	if n := cc.requests(); n != 0 {
		t.Errorf("reads through the cache made %d requests to the API server, want 0", n)
	}
	// Verify lists chunk Secrets 16 a page, and there are 18 (revisions 2 to
	// 6 have 3 each, and revision 7 left 3): the cache's first page was full,
	// and the rest was read in one list, never with the token.
	lists := cached.listed()
	if !slices.ContainsFunc(lists, func(o metav1.ListOptions) bool { return o.Limit == 0 }) ||
		slices.ContainsFunc(lists, func(o metav1.ListOptions) bool { return o.Continue != "" }) {
		t.Errorf("lists through the cache: %+v, want a list read whole and no continue token sent back", lists)
	}

	if n, err := storage.RemoveLeftovers(t.Context(), cached, leftovers); err != nil || n != 3 {
		t.Fatalf("RemoveLeftovers over the cache removed %d (%v), want 3", n, err)
	}
	cc.catchUp(t)
	mustReadWholeWhenRefused(t, cc, secrets)
	reportFigures(t, cc, name, want)
}

// writeHistory writes revisions 1 to 6 of release name through st, each
// superseding the one before, then deletes revision 1: reads of the driver's
// own (the current index of an update, a delete's record) go through the cache,
// caught up before each write.
func writeHistory(t *testing.T, cc *cachedCluster, st *helmstorage.Storage, name string) {
	t.Helper()
	for rev := 1; rev <= 6; rev++ {
		if rev > 1 {
			if err := st.Update(releaseOfChunks(t, name, rev-1, release.StatusSuperseded, 4, faultChunkSize, uint64(rev-1))); err != nil {
				t.Fatalf("Update revision %d: %v", rev-1, err)
			}
		}
		if err := st.Create(releaseOfChunks(t, name, rev, release.StatusDeployed, 4, faultChunkSize, uint64(rev))); err != nil {
			t.Fatalf("Create revision %d: %v", rev, err)
		}
		cc.catchUp(t)
	}
	if _, err := st.Delete(name, 1); err != nil {
		t.Fatalf("Delete revision 1: %v", err)
	}
	cc.catchUp(t)
}

// mustOwnIndexes fails unless every index Secret has the ownerReference of
// uid, which OLMv1's owner-reference client put there, and no chunk has it.
func mustOwnIndexes(t *testing.T, secrets corev1client.SecretInterface, uid types.UID) {
	t.Helper()
	all, err := secrets.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all.Items {
		owned := slices.ContainsFunc(s.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == uid })
		if owned != isIndex(&s) {
			t.Errorf("Secret %s (type %s): owned by the ClusterExtension %v", s.Name, s.Type, owned)
		}
	}
}

// helmReads are Helm's History, Get of the newest revision and ListReleases of
// release name through st.
func helmReads(st *helmstorage.Storage, name string, newest int) [3]func() ([]*release.Release, error) {
	return [3]func() ([]*release.Release, error){
		func() ([]*release.Release, error) { return st.History(name) },
		func() ([]*release.Release, error) {
			r, err := st.Get(name, newest)
			return []*release.Release{r}, err
		},
		func() ([]*release.Release, error) { return st.ListReleases() },
	}
}

// readAsHelm reads release name through st as Helm does (helmReads, and
// Deployed) and checks every answer against want, helm-operator-plugins'
// driver's, read live.
func readAsHelm(t *testing.T, st *helmstorage.Storage, name string, want []*release.Release) {
	t.Helper()
	want = slices.Clone(want)
	slices.SortFunc(want, func(a, b *release.Release) int { return a.Version - b.Version })
	newest := want[len(want)-1]
	for i, read := range helmReads(st, name, newest.Version) {
		got, err := read()
		if err != nil {
			t.Fatalf("%s: %v", readNames[i], err)
		}
		if i == 1 {
			mustEqualRelease(t, newest, got[0])
			continue
		}
		mustEqualReleases(t, readNames[i], want, got)
	}
	got, err := st.Deployed(name)
	if err != nil {
		t.Fatalf("Deployed: %v", err)
	}
	mustEqualRelease(t, newest, got)
}

// readNames are the reads readAsHelm returns, in order.
var readNames = [3]string{"History", "Get", "ListReleases"}

// mustEqualReleases fails unless got holds the releases of want, in any order.
func mustEqualReleases(t *testing.T, what string, want, got []*release.Release) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d releases, want %d", what, len(got), len(want))
	}
	got = slices.Clone(got)
	slices.SortFunc(got, func(a, b *release.Release) int { return a.Version - b.Version })
	for i := range want {
		mustEqualRelease(t, want[i], got[i])
	}
}

// mustSameReport fails unless got says what want says.
func mustSameReport(t *testing.T, what string, want, got *storage.Report) {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if !bytes.Equal(w, g) {
		t.Errorf("%s:\n%s\nwant (live)\n%s", what, g, w)
	}
}

// mustReadWholeWhenRefused: a source that refuses the continue token it
// handed out, under a name the driver does not know, is read whole too: Verify
// (16 chunk Secrets a page, 15 there, and a token comes with the short page
// too) through such a reader over the cache finds what it finds live, with no
// request to the API server, having met the refusal.
func mustReadWholeWhenRefused(t *testing.T, cc *cachedCluster, secrets corev1client.SecretInterface) {
	t.Helper()
	opts := storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond}
	want, err := storage.Verify(t.Context(), secrets, testOwner, opts)
	if err != nil {
		t.Fatal(err)
	}
	renamed := &renamedTokens{Reader: cc.cache}
	cc.requests()
	got, err := storage.Verify(t.Context(), &readerSecrets{SecretInterface: cc.live, reader: renamed, ns: cc.ns}, testOwner, opts)
	if err != nil {
		t.Fatalf("Verify over a cache that refuses a token it renamed: %v", err)
	}
	mustSameReport(t, "Verify over a cache that refuses a token it renamed", want, got)
	if n := cc.requests(); n != 0 {
		t.Errorf("Verify over the cache made %d requests to the API server, want 0", n)
	}
	if renamed.refused == 0 {
		t.Error("the cache refused no continued list: the list was not paged")
	}
}

// reportFigures counts the requests of Helm's History, Get and ListReleases of
// release name through the driver over the typed client (live), over the
// delegating client with the API reader, and over the cache; the first two page
// against the API server and must read what the cache does.
func reportFigures(t *testing.T, cc *cachedCluster, name string, want []*release.Release) {
	t.Helper()
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	owner := []metav1.OwnerReference{clusterExtension(name)}
	sources := []struct {
		name   string
		client corev1client.SecretInterface
	}{
		{"live", cc.live},
		{"API reader", hopclient.NewOwnerRefSecretClient(cc.overAPIReader(), owner, isIndex)},
		{"cache", hopclient.NewOwnerRefSecretClient(cc.overCache(), owner, isIndex)},
	}
	for _, src := range sources {
		st := helmstorage.Init(storage.NewDriver(src.client, testOwner, cfg))
		readAsHelm(t, st, name, want)
		var counts [3]int64
		cc.requests()
		for i, read := range helmReads(st, name, 6) {
			if _, err := read(); err != nil {
				t.Fatalf("%s %s: %v", src.name, readNames[i], err)
			}
			counts[i] = cc.requests()
		}
		t.Logf("requests over the %s: History %d, Get %d, ListReleases %d", src.name, counts[0], counts[1], counts[2])
		for i, n := range counts {
			if (src.name == "cache") != (n == 0) {
				t.Errorf("%s over the %s made %d requests", readNames[i], src.name, n)
			}
		}
	}
}
