package kube_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// otherWriter is a clientset of its own, on its own connection, as another
// process (an operator, helm) would have.
func otherWriter(t *testing.T) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cluster.Config))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// nextEvent waits for the next event that want accepts, failing after a while.
func nextEvent(t *testing.T, ch <-chan kube.WatchEvent, what string, want func(kube.WatchEvent) bool) kube.WatchEvent {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the watch ended", what)
			}
			if want(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("%s: no such event within 20s", what)
		}
	}
}

func isRev(typ kube.WatchEventType, d, name string, rev int, status string) func(kube.WatchEvent) bool {
	return func(ev kube.WatchEvent) bool {
		r := ev.Row
		return ev.Type == typ && r.Driver == d && r.Name == name && r.Revision == rev && (status == "" || r.Status == status)
	}
}

// TestWatchSeesOtherWriters: the watch sees a revision written by another
// connection through helm-operator-plugins' driver, its status change, a Helm
// Secrets record written by Helm's own driver, and a delete; after the first list
// it sends no list, whatever the number of events, and none while idle.
func TestWatchSeesOtherWriters(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := cluster.Namespace(t)
	const owner = "watch-owner"
	other := otherWriter(t)
	hop := hopstorage.NewChunkedSecrets(other.CoreV1().Secrets(ns), owner, hopstorage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	if err := hop.Create(storage.RecordKey("app", 1), makeRelease("app", ns, 1, release.StatusDeployed, 0)); err != nil {
		t.Fatal(err)
	}

	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"--owner", owner, "--driver", "chunked,secret"}, func(o *kube.Options) { o.WrapConfig = wire.install })
	ch := c.Watch(ctx, kube.WatchOptions{})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && ev.Initial })
	listed := wire.Requests()
	wire.Reset()

	rel2 := makeRelease("app", ns, 2, release.StatusPendingUpgrade, 30_000)
	if err := hop.Create(storage.RecordKey("app", 2), rel2); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ch, "revision 2 added", isRev(kube.WatchChanged, kube.DriverChunked, "app", 2, "pending-upgrade"))
	if !ev.New || ev.Row.StorageNamespace != ns || ev.Row.Key != storage.RecordKey("app", 2) {
		t.Errorf("added row %+v new=%v", ev.Row, ev.New)
	}
	rel2.Info.Status = release.StatusDeployed
	if err := hop.Update(storage.RecordKey("app", 2), rel2); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, ch, "revision 2 deployed", isRev(kube.WatchChanged, kube.DriverChunked, "app", 2, "deployed"))
	if ev.New {
		t.Error("a status change was reported as a new revision")
	}

	helmRel := makeRelease("plain", ns, 1, release.StatusDeployed, 0)
	if err := driver.NewSecrets(other.CoreV1().Secrets(ns)).Create(storage.RecordKey("plain", 1), helmRel); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, ch, "Helm Secrets record", isRev(kube.WatchChanged, kube.DriverSecret, "plain", 1, "deployed"))
	if ev.Row.Known {
		t.Error("a Helm record's row claims a summary read from metadata")
	}

	if _, err := hop.Delete(storage.RecordKey("app", 1)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "revision 1 deleted", isRev(kube.WatchDeleted, kube.DriverChunked, "app", 1, ""))

	// Idle for a while: still nothing but the watches, one per store, opened
	// once.
	time.Sleep(2 * time.Second)
	var watches int
	for _, r := range append(listed, wire.Requests()...) {
		if !strings.Contains(r.Query, "watch=true") {
			if slices.Contains(listed, r) {
				continue // the first list
			}
			t.Errorf("request while watching: %s", r)
			continue
		}
		watches++
		if !strings.Contains(r.Query, "allowWatchBookmarks=true") || !strings.Contains(r.Query, "resourceVersion=") || !strings.Contains(r.Accept, "PartialObjectMetadata") {
			t.Errorf("watch request %s (Accept %s): want bookmarks, a resourceVersion and metadata only", r, r.Accept)
		}
	}
	if watches != 2 {
		t.Errorf("%d watches opened, want 2 (one per store)", watches)
	}
	t.Logf("requests to start watching: %d (%d watches)", len(listed), watches)
}

// TestWatchRefusedPolls: a user who may list Secrets but not watch them gets a
// note, and the changes through a list every PollInterval.
func TestWatchRefusedPolls(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := cluster.Namespace(t)
	const owner = "poll-owner"
	user := "lister-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-lister", readSecrets)
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, makeRelease("app", ns, 1, release.StatusDeployed, 0))
	c := connect(t, kc, []string{"--owner", owner, "--driver", "chunked"}, nil)
	waitAllowed(t, "list as a lister", func() error { _, err := c.Releases(ctx); return err })

	ch := c.Watch(ctx, kube.WatchOptions{PollInterval: 200 * time.Millisecond})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced })
	ev := nextEvent(t, ch, "polling", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchMode })
	if !ev.Polling || !strings.Contains(ev.Note, "refused") || !strings.Contains(ev.Note, "403") {
		t.Errorf("mode event %+v", ev)
	}
	t.Logf("note: %s", ev.Note)
	if err := d.Create(storage.RecordKey("app", 2), makeRelease("app", ns, 2, release.StatusPendingUpgrade, 0)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "revision 2 by polling", isRev(kube.WatchChanged, kube.DriverChunked, "app", 2, "pending-upgrade"))
	if _, err := d.Delete(storage.RecordKey("app", 1)); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "revision 1 deleted by polling", isRev(kube.WatchDeleted, kube.DriverChunked, "app", 1, ""))
}

// TestWatchResyncAndMethodNotAllowed: on the demo's in-memory API server, a
// watch answered 410 Gone lists once more and says so; one answered 405 (a
// proxy that does not serve watch) falls back to polling.
func TestWatchResyncAndMethodNotAllowed(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dc := fakeapi.NewCluster()
	if _, err := demo.Seed(ctx, dc, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := kube.Config{AllNamespaces: true, Drivers: []string{kube.DriverChunked}, Driver: demo.DriverConfig()}
	c := kube.New(dc.Clientset(), dc.Metadata(), nil, cfg)
	dc.FailRequest(fakeapi.VerbWatch, 1, apierrors.NewResourceExpired("too old resource version: 1 (2)"))
	ch := c.Watch(ctx, kube.WatchOptions{PollInterval: 100 * time.Millisecond})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && ev.Initial })
	nextEvent(t, ch, "resynced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && !ev.Initial })
	if n := dc.Requests()[fakeapi.VerbList]; n != 2 {
		t.Errorf("lists: %d, want 2 (the first, then the resync)", n)
	}
	cancel()
	for range ch {
	}

	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	dc.FailRequest(fakeapi.VerbWatch, 1, apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "secrets"}, "watch"))
	ch = c.Watch(ctx2, kube.WatchOptions{PollInterval: 100 * time.Millisecond})
	ev := nextEvent(t, ch, "polling", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchMode })
	if !ev.Polling || !strings.Contains(ev.Note, "405") {
		t.Errorf("mode event %+v", ev)
	}
}
