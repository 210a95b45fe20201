package adoption_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestSteadyStateOverCache runs the steady-state reconcile with Secrets read
// through a started controller-runtime cache of the system namespace (as
// operator-controller's manager already keeps one) instead of the API reader: the
// reconcile then sends no request on Secrets, with chunkview's driver as with
// helm-operator-plugins' (whose lists do not page).
func TestSteadyStateOverCache(t *testing.T) {
	e := newEnv(t)
	defer e.logSteps()
	ch := testChart()
	c := startCache(t, e)
	for _, d := range drivers() {
		parent := e.t
		t.Run(d.label, func(t *testing.T) {
			e.t = t
			defer func() { e.t = parent }()
			ext := e.extension("cached-" + d.short)
			name := ext.GetName()
			live := e.getter(d.newDriver, e.live)
			ac, err := live.ActionClientFor(t.Context(), ext)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ac.Install(name, e.install, ch, blue); err != nil {
				t.Fatalf("install: %v", err)
			}
			if _, err := ac.Upgrade(name, e.install, ch, green, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil }); err != nil {
				t.Fatalf("upgrade: %v", err)
			}
			written := e.sameRecords(name, 2)
			waitCached(t, c, e, written)
			cached := e.getter(d.newDriver, c)
			s := e.step("steady-state reconcile over the cache, "+d.label, func() {
				o, err := adoption.Reconcile(t.Context(), cached, ext, e.install, ch, green)
				if err != nil {
					t.Fatal(err)
				}
				checkSteady(t, o, 2)
			})
			if s.secrets != 0 {
				t.Fatalf("the reconcile over the cache sent %d requests on Secrets, want 0", s.secrets)
			}
		})
	}
}

// startCache starts a controller-runtime cache of the env's system namespace on a
// connection of its own, with its Secret informer synced, and stops it when the
// test ends.
func startCache(t *testing.T, e *env) cache.Cache {
	t.Helper()
	cfg := rest.CopyConfig(cluster.Config)
	(&kube.Stats{}).Count(cfg) // the cache's list and watch are not the reconcile's
	c, err := cache.New(cfg, cache.Options{DefaultNamespaces: map[string]cache.Config{e.system: {}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		if err := c.Start(ctx); err != nil {
			t.Errorf("cache: %v", err)
		}
	}()
	if _, err := c.GetInformer(ctx, &corev1.Secret{}); err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	return c
}

// waitCached waits until c holds every Secret of written's release at the version
// the API server has, so that the reconcile reads what was written.
func waitCached(t *testing.T, c cache.Cache, e *env, written []*release.Release) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: "owner=" + adoption.Owner}
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		live, err := e.cs.CoreV1().Secrets(e.system).List(ctx, sel)
		if err != nil {
			return false, err
		}
		var got corev1.SecretList
		if err := c.List(ctx, &got, client.InNamespace(e.system), client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(labels.Set{"owner": adoption.Owner})}); err != nil {
			return false, err
		}
		have := map[string]string{}
		for _, s := range got.Items {
			have[s.Name] = s.ResourceVersion
		}
		for _, s := range live.Items {
			if have[s.Name] != s.ResourceVersion {
				return false, nil
			}
		}
		return len(live.Items) == len(got.Items), nil
	})
	if err != nil {
		t.Fatalf("the cache did not catch up with the %d revisions of %s: %v", len(written), written[0].Name, err)
	}
}

// TestSteadyStateOverReleaseCache runs the reconcile with chunkview's cached read
// path (storage.NewReleaseCache, its view in ChunkedSecretsConfig.Cache): once it
// has read the records, the steady-state reconcile sends no request on Secrets and
// decodes nothing; an upgrade through it is read back at once, by the next
// reconcile and by helm-operator-plugins' driver.
func TestSteadyStateOverReleaseCache(t *testing.T) {
	e := newEnv(t)
	defer e.logSteps()
	ch := testChart()
	ext := e.extension("release-cache")
	name := ext.GetName()
	live := e.getter(adoption.Chunkview(adoption.Owner, testConfig), e.live)
	ac, err := live.ActionClientFor(t.Context(), ext)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.Install(name, e.install, ch, blue); err != nil {
		t.Fatalf("install: %v", err)
	}
	e.sameRecords(name, 1)

	// The cache lists and watches on a connection of its own: its requests are
	// not the reconcile's.
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cluster.Config))
	if err != nil {
		t.Fatal(err)
	}
	rc := storage.NewReleaseCache(cs.CoreV1(), storage.ReleaseCacheOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rc.Start(ctx) }()
	if !rc.WaitForStart(t.Context()) {
		t.Fatal("the release cache did not start")
	}
	cfg := testConfig
	cfg.Cache = rc.Namespace(e.system)
	cached := e.getter(adoption.Chunkview(adoption.Owner, cfg), e.live)

	reconcile := func(step string) stepCount {
		return e.step(step, func() {
			o, err := adoption.Reconcile(t.Context(), cached, ext, e.install, ch, blue)
			if err != nil {
				t.Fatal(err)
			}
			checkSteady(t, o, 1)
		})
	}
	reconcile("first reconcile through the release cache (fills it)")
	decodes := rc.Stats().Decodes
	s := reconcile("steady-state reconcile through the release cache")
	if s.secrets != 0 || rc.Stats().Decodes != decodes {
		t.Fatalf("the steady-state reconcile sent %d requests on Secrets and decoded %d records, want 0 and 0", s.secrets, rc.Stats().Decodes-decodes)
	}

	e.step("upgrade through the release cache", func() {
		ac, err := cached.ActionClientFor(t.Context(), ext)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := ac.Upgrade(name, e.install, ch, green, func(u *action.Upgrade) error { u.MaxHistory = adoption.MaxHistory; return nil })
		if err != nil || rel.Version != 2 {
			t.Fatalf("upgrade: %v, want revision 2", err)
		}
	})
	e.step("reconcile right after the upgrade", func() {
		o, err := adoption.Reconcile(t.Context(), cached, ext, e.install, ch, green)
		if err != nil {
			t.Fatal(err)
		}
		checkSteady(t, o, 2)
		if o.Current.Config["color"] != "green" || o.History[1].Info.Status != release.StatusSuperseded {
			t.Fatalf("the reconcile after the upgrade read revision %d with values %v and revision 1 %s: not the upgrade's writes",
				o.Current.Version, o.Current.Config, o.History[1].Info.Status)
		}
	})
	e.sameRecords(name, 2)
}
