package storage_test

import (
	"context"
	"maps"
	"net/http"
	"sync/atomic"
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
	"helm.sh/helm/v4/pkg/release"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	helmstorage "helm.sh/helm/v4/pkg/storage"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// requestCounter counts the requests that cross a connection.
type requestCounter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// countedConfig returns the test cluster's rest.Config with its requests
// counted by c.
func countedConfig(c *requestCounter) *rest.Config {
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { c.next = rt; return c })
	return cfg
}

// delegatingSecrets is a Secret client whose Get and List read through a
// controller-runtime client.Reader and whose writes go to the typed client it
// embeds: the client OLMv1's operator-controller hands Helm's storage, written
// here for the test. A list's limit and continue token are passed on.
type delegatingSecrets struct {
	corev1client.SecretInterface
	reader ctrlclient.Reader
	ns     string
}

func (d delegatingSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	var s corev1.Secret
	if err := d.reader.Get(ctx, ctrlclient.ObjectKey{Namespace: d.ns, Name: name}, &s, &ctrlclient.GetOptions{Raw: &opts}); err != nil {
		return nil, err
	}
	return &s, nil
}

func (d delegatingSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	var l corev1.SecretList
	err = d.reader.List(ctx, &l, ctrlclient.InNamespace(d.ns), ctrlclient.MatchingLabelsSelector{Selector: sel},
		ctrlclient.Limit(opts.Limit), ctrlclient.Continue(opts.Continue))
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// startCache starts a controller-runtime cache of namespace ns's Secrets on
// config cfg, stopped when the test ends, and waits until it has synced.
func startRuntimeCache(t *testing.T, cfg *rest.Config, ns string) cache.Cache {
	t.Helper()
	c, err := cache.New(cfg, cache.Options{Scheme: scheme.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
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
	return c
}

// catchUp waits until c holds every Secret of namespace ns at the version the
// API server holds it: the driver's writes keep their preconditions, and a
// write after a stale read is a conflict.
func catchUp(t *testing.T, c cache.Cache, ns string) {
	t.Helper()
	versions := func(items []corev1.Secret) map[types.UID]string {
		m := map[types.UID]string{}
		for _, s := range items {
			m[s.UID] = s.ResourceVersion
		}
		return m
	}
	for range 3000 {
		live, err := cluster.Client.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cached corev1.SecretList
		if err := c.List(context.Background(), &cached, ctrlclient.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if maps.Equal(versions(live.Items), versions(cached.Items)) {
			return
		}
		<-time.After(10 * time.Millisecond)
	}
	t.Fatal("the cache did not catch up with the API server in 30 s")
}

// TestHelm4WorksOverControllerRuntimeCache: the Helm 4 driver, handed OLMv1's Secret
// client (helm-operator-plugins' owner-reference client over a delegating
// client whose reads go through controller-runtime's cache), creates, upgrades
// and deletes revisions through Helm 4's storage and reads them back (History,
// Get, ListReleases, Deployed, Last) as they were written, with no request to
// the API server. The cache answers every list with a continue token it refuses
// (issue 28, item 1).
func TestHelm4WorksOverControllerRuntimeCache(t *testing.T) {
	const name = "app"
	ns, secrets := newNamespace(t)
	cacheReqs, liveReqs := &requestCounter{}, &requestCounter{}
	c := startRuntimeCache(t, countedConfig(cacheReqs), ns)
	cs, err := kubernetes.NewForConfig(countedConfig(liveReqs))
	if err != nil {
		t.Fatal(err)
	}
	live := cs.CoreV1().Secrets(ns)
	yes := true
	owner := metav1.OwnerReference{APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterExtension", Name: name,
		UID: "c1e0e2a8-0000-4000-8000-00000000cafe", Controller: &yes, BlockOwnerDeletion: &yes}
	olm := hopclient.NewOwnerRefSecretClient(delegatingSecrets{SecretInterface: live, reader: c, ns: ns},
		[]metav1.OwnerReference{owner}, func(s *corev1.Secret) bool { return s.Type == storage.SecretTypeIndex })
	cfg := storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}
	st := helmstorage.Init(helm4.NewDriver(olm, testOwner, cfg))

	written := map[int]*rspb.Release{}
	for rev := 1; rev <= 3; rev++ {
		if rev > 1 {
			written[rev-1] = fullRelease(name, rev-1, common.StatusSuperseded, contractPayload, uint64(rev-1))
			if err := st.Update(written[rev-1]); err != nil {
				t.Fatalf("Update revision %d: %v", rev-1, err)
			}
		}
		written[rev] = fullRelease(name, rev, common.StatusDeployed, contractPayload, uint64(rev))
		if err := st.Create(written[rev]); err != nil {
			t.Fatalf("Create revision %d: %v", rev, err)
		}
		catchUp(t, c, ns)
	}
	if _, err := st.Delete(name, 1); err != nil {
		t.Fatalf("Delete revision 1: %v", err)
	}
	delete(written, 1)
	catchUp(t, c, ns)
	idx, err := secrets.Get(t.Context(), key(name, 3), metav1.GetOptions{})
	if err != nil || len(idx.OwnerReferences) != 1 || idx.OwnerReferences[0].UID != owner.UID {
		t.Fatalf("index of revision 3: %v, want the ClusterExtension's ownerReference (%v)", idx.OwnerReferences, err)
	}

	cacheReqs.n.Store(0)
	liveReqs.n.Store(0)
	mustReadAsWritten(t, st, name, written)
	if n := cacheReqs.n.Load() + liveReqs.n.Load(); n != 0 {
		t.Errorf("reads through the cache made %d requests to the API server, want 0", n)
	}
	// The same reads live, for the figures: they page against the API server.
	liveReqs.n.Store(0)
	mustReadAsWritten(t, helmstorage.Init(helm4.NewDriver(live, testOwner, cfg)), name, written)
	if n := liveReqs.n.Load(); n == 0 {
		t.Error("the same reads live made no request: the counter counts nothing")
	} else {
		t.Logf("History, Get, ListReleases, Deployed and Last: %d requests live, 0 through the cache", n)
	}
}

// mustReadAsWritten reads release name through st as Helm 4 does and fails
// unless every answer is what was written, by revision.
func mustReadAsWritten(t *testing.T, st *helmstorage.Storage, name string, written map[int]*rspb.Release) {
	t.Helper()
	newest := 0
	for rev := range written {
		newest = max(newest, rev)
	}
	hist, err := st.History(name)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	mustBeWritten(t, "History", hist, written)
	all, err := st.ListReleases()
	if err != nil {
		t.Fatalf("ListReleases: %v", err)
	}
	mustBeWritten(t, "ListReleases", all, written)
	for what, read := range map[string]func() (release.Releaser, error){
		"Get":      func() (release.Releaser, error) { return st.Get(name, newest) },
		"Deployed": func() (release.Releaser, error) { return st.Deployed(name) },
		"Last":     func() (release.Releaser, error) { return st.Last(name) },
	} {
		got, err := read()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		mustSameRelease(t, what, written[newest], got)
	}
}

// mustBeWritten fails unless got holds exactly the releases of written.
func mustBeWritten(t *testing.T, what string, got []release.Releaser, written map[int]*rspb.Release) {
	t.Helper()
	if len(got) != len(written) {
		t.Fatalf("%s: %d releases, want %d", what, len(got), len(written))
	}
	for _, r := range got {
		rls, ok := r.(*rspb.Release)
		if !ok || written[rls.Version] == nil {
			t.Fatalf("%s returned %v, which was not written", what, r)
		}
		mustSameRelease(t, what, written[rls.Version], rls)
	}
}
