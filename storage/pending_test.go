package storage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

func origDriver(secrets corev1client.SecretInterface) driver.Driver {
	return hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
}

// TestCreatePendingWindow stops a create of a 4-chunk release just before its last
// request, the one that gives the pending index its data, and looks at the key as
// every reader and writer sees it then: chunkview and the original driver find no
// release, in Get and in List; a create of the same key by either fails as already
// existing; every chunk exists and is owned by the pending index. After the
// request, the release reads whole through both drivers, every chunk owned by the
// index, and the pending mark gone. Both ways of writing: chunks as their slices are
// compressed, and after the whole record is compressed and checked.
func TestCreatePendingWindow(t *testing.T) {
	forEachAdapter(t, func(t *testing.T, ad chunkedAdapter) {
		for _, mode := range []string{"streamed", "checked-first"} {
			t.Run(mode, func(t *testing.T) { testCreatePendingWindow(t, ad, mode == "checked-first") })
		}
	})
}

func testCreatePendingWindow(t *testing.T, ad chunkedAdapter, checkFirst bool) {
	_, secrets := newNamespace(t)
	const name = "window"
	k := key(name, 1)
	rls := releaseOfChunks(t, name, 1, release.StatusDeployed, 4, faultChunkSize, 1)
	other := releaseOfChunks(t, name, 1, release.StatusDeployed, 2, faultChunkSize, 2)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	clean := storage.NewDriver(secrets, testOwner, cfg)
	orig := origDriver(secrets)

	fc := newFaultClient(secrets)
	checked := false
	var windowChunks []string
	fc.hook = func(_ int, method, n string) {
		if method != "update" || n != k {
			return
		}
		checked = true
		if _, err := clean.Get(k); !errors.Is(err, driver.ErrReleaseNotFound) {
			t.Errorf("chunkview Get in the pending window: %v, want ErrReleaseNotFound", err)
		}
		if got, err := clean.List(func(*release.Release) bool { return true }); err != nil || len(got) != 0 {
			t.Errorf("chunkview List in the pending window: %d releases, %v; want none", len(got), err)
		}
		if got, err := orig.Get(k); err == nil {
			t.Errorf("original driver Get in the pending window returned release v%d, want an error", got.Version)
		}
		if got, err := orig.List(func(*release.Release) bool { return true }); err != nil || len(got) != 0 {
			t.Errorf("original driver List in the pending window: %d releases, %v; want none", len(got), err)
		}
		if err := orig.Create(k, other); !errors.Is(err, driver.ErrReleaseExists) {
			t.Errorf("original driver Create in the pending window: %v, want ErrReleaseExists", err)
		}
		if err := clean.Create(k, other); !errors.Is(err, driver.ErrReleaseExists) {
			t.Errorf("chunkview Create in the pending window: %v, want ErrReleaseExists", err)
		}
		all := listSecrets(t, secrets)
		p, ok := all[k]
		if !ok || !storage.IsPending(&p) || len(p.Data) != 0 {
			t.Errorf("pending index: found %v, pending %v, %d data keys", ok, ok && storage.IsPending(&p), len(p.Data))
			return
		}
		// Every chunk is written (the index will name them; see below), each
		// owned by the pending index alone.
		for n, c := range all {
			if !strings.HasPrefix(n, k+"-") {
				continue
			}
			windowChunks = append(windowChunks, n)
			if len(c.OwnerReferences) != 1 || c.OwnerReferences[0].UID != p.UID {
				t.Errorf("chunk %s owners %v, want only the pending index %s", n, c.OwnerReferences, p.UID)
			}
		}
	}
	d := ad.new(fc, testOwner, cfg)
	if checkFirst {
		d.CheckFirst()
	}
	mustCreate(t, d, rls)
	if !checked {
		t.Fatal("the create never wrote its index's data")
	}
	t.Logf("create of 4 chunks: %d API calls %v", fc.Count(), fc.CountBy())
	if by := fc.CountBy(); by["create"] != 4 || by["update"] != 1 || fc.Count() != 5 {
		t.Errorf("create of 4 chunks made %v, want 4 creates (the pending index, 3 chunks) and 1 update", by)
	}

	for _, rd := range []driver.Driver{clean, orig} {
		got, err := rd.Get(k)
		if err != nil {
			t.Fatalf("%s Get: %v", rd.Name(), err)
		}
		mustEqualRelease(t, rls, got)
	}
	idx, err := secrets.Get(t.Context(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if storage.IsPending(idx) || idx.Annotations[storage.AnnotationPendingWrite] != "" || idx.Labels[storage.LabelType] != storage.TypeIndex {
		t.Fatalf("index after the create: type label %q, pending mark %q", idx.Labels[storage.LabelType], idx.Annotations[storage.AnnotationPendingWrite])
	}
	slices.Sort(windowChunks)
	if named := recordNames(t, secrets, k)[1:]; !slices.Equal(windowChunks, named) {
		t.Fatalf("chunks in the pending window %v, the index names %v", windowChunks, named)
	}
	mustAllOwned(t, secrets, k)
	mustHoldOnly(t, secrets, k)
}

// plantPending leaves the state a create interrupted in its window leaves: a
// pending index of k and the chunks of rls, owned by it.
func plantPending(t *testing.T, secrets corev1client.SecretInterface, k string, rls *release.Release) *corev1.Secret {
	t.Helper()
	fc := newFaultClient(secrets)
	var planted *corev1.Secret
	fc.hook = func(_ int, method, n string) {
		if method == "update" && n == k && planted == nil {
			p, err := secrets.Get(t.Context(), k, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			planted = p
		}
	}
	// The create stops at its last request, as a process that dies there would,
	// and its cleanup is kept from running by failing every call after it.
	fc.failAt, fc.failRest = 1+len(mustSliceNames(t, k, rls))+1, true
	d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	if err := d.Create(k, rls); !errors.Is(err, errInjected) {
		t.Fatalf("interrupted create: %v", err)
	}
	if planted == nil {
		t.Fatal("the create never reached its index's data")
	}
	return planted
}

func mustSliceNames(t *testing.T, k string, rls *release.Release) []string {
	t.Helper()
	names, _ := sliceNames(t, k, rls, faultChunkSize)
	return names
}

// TestInterruptedCreate: a create that dies in its window leaves a pending index
// and chunks owned by it. Nobody reads a release there; verify reports it (as a
// write in flight while it is young); a create of the key by chunkview is refused
// while it may be in flight and takes the key over once it is older than gc's
// minimum age; gc removes it, but not once it has become an index.
func TestInterruptedCreate(t *testing.T) {
	const name = "crashed"
	k := key(name, 1)
	rls := releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}

	t.Run("read-and-verify", func(t *testing.T) {
		forEachAdapter(t, func(t *testing.T, ad chunkedAdapter) {
			_, secrets := newNamespace(t)
			plantPending(t, secrets, k, rls)
			clean := ad.new(secrets, testOwner, cfg)
			if _, err := clean.Get(k); !errors.Is(err, driver.ErrReleaseNotFound) {
				t.Fatalf("Get of an interrupted create: %v, want ErrReleaseNotFound", err)
			}
			if _, err := clean.Delete(k); !errors.Is(err, driver.ErrReleaseNotFound) {
				t.Fatalf("Delete of an interrupted create: %v, want ErrReleaseNotFound", err)
			}
			rep, err := storage.Verify(t.Context(), secrets, testOwner, storage.VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) != 0 || len(rep.Recent) != 3 {
				t.Fatalf("verify of a young interrupted create: problems %v, recent %v; want none, and 3 recent (the pending index, 2 chunks)", rep.Problems, rep.Recent)
			}
			rep, err = storage.Verify(t.Context(), secrets, testOwner, storage.VerifyOptions{MinAge: time.Nanosecond})
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[storage.ProblemKind]int{}
			for _, p := range rep.Problems {
				kinds[p.Kind]++
			}
			if kinds[storage.ProblemPendingIndex] != 1 || kinds[storage.ProblemOrphanChunk] != 2 || len(rep.Problems) != 3 {
				t.Fatalf("verify of an old interrupted create: %v", rep.Problems)
			}
			if err := origDriver(secrets).Create(k, rls); !errors.Is(err, driver.ErrReleaseExists) {
				t.Fatalf("original driver Create over an interrupted create: %v, want ErrReleaseExists", err)
			}
			if n := mustRemoveLeftovers(t, secrets, testOwner); n != 3 {
				t.Fatalf("gc removed %d leftovers, want 3", n)
			}
			mustHoldOnly(t, secrets)
		})
	})

	t.Run("take-over", func(t *testing.T) {
		forEachAdapter(t, func(t *testing.T, ad chunkedAdapter) {
			_, secrets := newNamespace(t)
			plantPending(t, secrets, k, rls)
			d := ad.new(secrets, testOwner, cfg)
			if err := d.Create(k, rls); !errors.Is(err, driver.ErrReleaseExists) {
				t.Fatalf("Create over a young pending index: %v, want ErrReleaseExists (a create may be in flight)", err)
			}
			d.SetClock(func() time.Time { return time.Now().Add(storage.DefaultMinLeftoverAge + time.Minute) })
			mustCreate(t, d, rls)
			for _, rd := range []driver.Driver{storage.NewDriver(secrets, testOwner, cfg), origDriver(secrets)} {
				got, err := rd.Get(k)
				if err != nil {
					t.Fatalf("%s Get after the take-over: %v", rd.Name(), err)
				}
				mustEqualRelease(t, rls, got)
			}
			mustAllOwned(t, secrets, k)
			if los := mustFindLeftovers(t, secrets); len(los) != 0 {
				t.Fatalf("left over after the take-over: %v", los)
			}
			mustHoldOnly(t, secrets, k)
		})
	})

	t.Run("gc-spares-completed", func(t *testing.T) {
		_, secrets := newNamespace(t)
		p := plantPending(t, secrets, k, rls)
		los, err := storage.FindLeftovers(t.Context(), secrets, testOwner, time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		// Between gc's look and its removal, the pending index changes (as the
		// create's last write would change it).
		p.Labels["touched"] = "yes"
		if _, err := secrets.Update(t.Context(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		n, err := storage.RemoveLeftovers(t.Context(), secrets, los)
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Fatalf("gc removed %d, want the 2 chunks only", n)
		}
		if _, err := secrets.Get(t.Context(), k, metav1.GetOptions{}); err != nil {
			t.Fatalf("the changed pending index was removed: %v", err)
		}
	})
}

// TestCreateSeenOnceByIndexWatch: a watch of index Secrets (as the TUI's live view
// and operator-controller's caches keep) sees a create of several chunks as one
// added index, with its data: never the pending index.
func TestCreateSeenOnceByIndexWatch(t *testing.T) {
	_, secrets := newNamespace(t)
	k := key("watched", 1)
	rls := releaseOfChunks(t, "watched", 1, release.StatusDeployed, 4, faultChunkSize, 1)
	w, err := secrets.Watch(t.Context(), metav1.ListOptions{LabelSelector: storage.IndexSelector(testOwner).String()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, d, rls)
	// A second create, of one chunk, marks the end of the first one's events.
	mustCreate(t, d, releaseOfChunks(t, "watched", 2, release.StatusDeployed, 1, faultChunkSize, 2))
	var seen []string
	for ev := range w.ResultChan() {
		s, ok := ev.Object.(*corev1.Secret)
		if !ok {
			t.Fatalf("watch event %s: %T", ev.Type, ev.Object)
		}
		seen = append(seen, string(ev.Type)+" "+s.Name)
		if s.Name == k && (storage.IsPending(s) || len(s.Data[storage.DataChunk]) == 0) {
			t.Fatalf("the index watch saw the pending index: %s, labels %v", ev.Type, s.Labels)
		}
		if s.Name == key("watched", 2) {
			break
		}
	}
	if want := []string{"ADDED " + k, "ADDED " + key("watched", 2)}; !slices.Equal(seen, want) {
		t.Fatalf("index watch saw %v, want %v", seen, want)
	}
}
