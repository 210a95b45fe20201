package storage_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// interopChunkSize is the ChunkSize both implementations are configured with.
const interopChunkSize = 1 << 10

// bothDrivers returns helm-operator-plugins' driver (the original) and chunkview's on
// one namespace, with one owner and one ChunkSize.
func bothDrivers(secrets corev1client.SecretInterface) (orig, cv driver.Driver) {
	orig = hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: interopChunkSize})
	cv = storage.NewChunkedSecrets(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: interopChunkSize})
	return orig, cv
}

// TestInteropRead: a release written by either implementation reads back
// identically through the other, by Get, List and Query.
func TestInteropRead(t *testing.T) {
	for _, chunks := range []int{1, 3, 11} {
		for _, writer := range []string{"original", "chunkview"} {
			t.Run(fmt.Sprintf("%d-chunks/written-by-%s", chunks, writer), func(t *testing.T) {
				_, secrets := newNamespace(t)
				orig, cv := bothDrivers(secrets)
				w, r := orig, driver.Driver(cv)
				if writer == "chunkview" {
					w, r = cv, orig
				}
				// The release carries custom labels (team, tier): they travel in the payload.
				want := func() *release.Release {
					return releaseOfChunks(t, "interop", 2, release.StatusDeployed, chunks, interopChunkSize, 1)
				}
				k := key("interop", 2)
				mustCreate(t, w, want())
				if n := len(recordNames(t, secrets, k)); n != chunks {
					t.Fatalf("record has %d Secrets, want %d", n, chunks)
				}
				got, err := r.Get(k)
				if err != nil {
					t.Fatalf("%s reading what %s wrote: %v", r.Name(), w.Name(), err)
				}
				mustEqualRelease(t, want(), got)
				q, err := r.Query(map[string]string{"name": "interop", "owner": "helm", "status": "deployed"})
				if err != nil {
					t.Fatal(err)
				}
				mustEqualSet(t, "Query", []*release.Release{want()}, q)
				if r == cv {
					// The original's List returns the index Secret's labels (owner, status,
					// ...) instead of the custom ones; chunkview's returns the custom ones.
					list, err := r.List(func(*release.Release) bool { return true })
					if err != nil {
						t.Fatal(err)
					}
					mustEqualSet(t, "List", []*release.Release{want()}, list)
				}
			})
		}
	}
}

// TestInteropShape writes one release with each implementation into its own
// namespace and compares the Secrets: names, types, immutability, data bytes, labels
// and ownerReferences must agree; chunkview only adds its summary annotations.
func TestInteropShape(t *testing.T) {
	for _, chunks := range []int{1, 3, 11} {
		t.Run(fmt.Sprintf("%d-chunks", chunks), func(t *testing.T) {
			_, origNS := newNamespace(t)
			_, cvNS := newNamespace(t)
			orig, _ := bothDrivers(origNS)
			_, cv := bothDrivers(cvNS)
			k := key("shape", 1)
			mustCreate(t, orig, releaseOfChunks(t, "shape", 1, release.StatusDeployed, chunks, interopChunkSize, 1))
			mustCreate(t, cv, releaseOfChunks(t, "shape", 1, release.StatusDeployed, chunks, interopChunkSize, 1))
			mustSameShape(t, k, listSecrets(t, origNS), listSecrets(t, cvNS))
		})
	}
}

// mustSameShape compares the Secrets the two implementations stored for key k.
func mustSameShape(t *testing.T, k string, orig, cv map[string]corev1.Secret) {
	t.Helper()
	if a, b := slices.Sorted(maps.Keys(orig)), slices.Sorted(maps.Keys(cv)); !slices.Equal(a, b) {
		t.Fatalf("Secret names differ:\noriginal  %v\nchunkview %v", a, b)
	}
	for name, o := range orig {
		c := cv[name]
		if o.Type != c.Type {
			t.Errorf("%s: type %q vs %q", name, o.Type, c.Type)
		}
		if !equality.Semantic.DeepEqual(o.Immutable, c.Immutable) {
			t.Errorf("%s: immutable %v vs %v", name, *o.Immutable, *c.Immutable)
		}
		if !equality.Semantic.DeepEqual(o.Data, c.Data) {
			t.Errorf("%s: data differs (extraChunks %s vs %s)", name, o.Data[storage.DataExtraChunks], c.Data[storage.DataExtraChunks])
		}
		ol, cl := maps.Clone(o.Labels), maps.Clone(c.Labels)
		if ol["createdAt"] == "" || cl["createdAt"] == "" {
			t.Errorf("%s: createdAt label missing: %v vs %v", name, ol, cl)
		}
		delete(ol, "createdAt")
		delete(cl, "createdAt")
		if fmt.Sprint(ol) != fmt.Sprint(cl) {
			t.Errorf("%s: labels %v vs %v", name, o.Labels, c.Labels)
		}
		for a := range o.Annotations {
			t.Errorf("%s: the original wrote annotation %q", name, a)
		}
		for a := range c.Annotations {
			if !strings.HasPrefix(a, storage.AnnotationPrefix) {
				t.Errorf("%s: chunkview wrote annotation %q outside its prefix", name, a)
			}
		}
		if (name == k) != (len(c.Annotations) > 0) {
			t.Errorf("%s: chunkview annotations %v: want them on the index only", name, c.Annotations)
		}
		if len(o.OwnerReferences) != len(c.OwnerReferences) {
			t.Fatalf("%s: ownerReferences %s vs %s", name, refsString(o.OwnerReferences), refsString(c.OwnerReferences))
		}
		for i := range o.OwnerReferences {
			or, cr := o.OwnerReferences[i], c.OwnerReferences[i]
			if or.UID != orig[k].UID || cr.UID != cv[k].UID {
				t.Errorf("%s: ownerReference UIDs %s and %s are not their indexes'", name, or.UID, cr.UID)
			}
			or.UID, cr.UID = "", ""
			if !equality.Semantic.DeepEqual(or, cr) {
				t.Errorf("%s: ownerReference %s vs %s", name, refsString([]metav1.OwnerReference{or}), refsString([]metav1.OwnerReference{cr}))
			}
		}
	}
}

// TestInteropWrites: each implementation updates and deletes what the other wrote,
// across chunk counts, and leaves exactly the record's Secrets (or none).
func TestInteropWrites(t *testing.T) {
	for _, tc := range []struct{ from, to int }{{1, 1}, {3, 3}, {11, 11}, {1, 11}, {11, 3}} {
		for _, writer := range []string{"original", "chunkview"} {
			t.Run(fmt.Sprintf("%d-to-%d-chunks/written-by-%s", tc.from, tc.to, writer), func(t *testing.T) {
				_, secrets := newNamespace(t)
				orig, cv := bothDrivers(secrets)
				w, o := orig, cv
				if writer == "chunkview" {
					w, o = cv, orig
				}
				k := key("cross", 1)
				first := func() *release.Release {
					return releaseOfChunks(t, "cross", 1, release.StatusDeployed, tc.from, interopChunkSize, 1)
				}
				second := func() *release.Release {
					return releaseOfChunks(t, "cross", 1, release.StatusSuperseded, tc.to, interopChunkSize, 2)
				}
				mustCreate(t, w, first())
				// The other implementation updates it; both read the result.
				if err := o.Update(k, second()); err != nil {
					t.Fatalf("%s updating what %s wrote: %v", o.Name(), w.Name(), err)
				}
				for _, d := range []driver.Driver{orig, cv} {
					got, err := d.Get(k)
					if err != nil {
						t.Fatalf("%s reading the update: %v", d.Name(), err)
					}
					mustEqualRelease(t, second(), got)
				}
				mustHoldOnly(t, secrets, k)
				mustAllOwned(t, secrets, k)
				// And the writer updates it back.
				if err := w.Update(k, first()); err != nil {
					t.Fatalf("%s updating what %s wrote: %v", w.Name(), o.Name(), err)
				}
				got, err := o.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				mustEqualRelease(t, first(), got)
				mustHoldOnly(t, secrets, k)
				// The other implementation deletes it.
				got, err = o.Delete(k)
				if err != nil {
					t.Fatalf("%s deleting what %s wrote: %v", o.Name(), w.Name(), err)
				}
				mustEqualRelease(t, first(), got)
				mustHoldOnly(t, secrets)
			})
		}
	}
}

// mustAllOwned checks that every chunk of k has its ownerReference to the index.
func mustAllOwned(t *testing.T, secrets corev1client.SecretInterface, k string) {
	t.Helper()
	all := listSecrets(t, secrets)
	idx := all[k]
	for _, n := range recordNames(t, secrets, k) {
		if n == k {
			continue
		}
		c := all[n]
		if !storage.HasOwnerRef(&c, &idx) {
			t.Fatalf("chunk %s has ownerReferences %s, not one to its index %s (%s)", n, refsString(c.OwnerReferences), k, idx.UID)
		}
	}
}

// TestInteropIdenticalSlices: a stream that repeats a slice. chunkview stores it and
// the original reads it back. The original itself fails to create it: its second
// create of one chunk name is refused, after it wrote the index, so it leaves a
// record that names chunks it never wrote; chunkview reports that record as missing
// a chunk and ForceDelete removes it.
func TestInteropIdenticalSlices(t *testing.T) {
	const chunkSize = 256
	rls := repetitiveRelease(1, "a")
	k := key("repeat", 1)

	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	cv := storage.NewChunkedSecrets(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	mustCreate(t, cv, rls)
	got, err := orig.Get(k)
	if err != nil {
		t.Fatalf("the original reading a record with repeated slices: %v", err)
	}
	mustEqualRelease(t, rls, got)

	_, secrets = newNamespace(t)
	orig = hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	cv = storage.NewChunkedSecrets(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	err = orig.Create(k, repetitiveRelease(1, "a"))
	if err == nil {
		t.Fatalf("the original created a record with repeated slices; its known weakness is gone, update this test")
	}
	t.Logf("original: %v", err)
	_, err = cv.Get(k)
	if !errors.Is(err, storage.ErrChunkMissing) {
		t.Fatalf("chunkview reading the original's failed create: got %v, want ErrChunkMissing", err)
	}
	t.Logf("chunkview: %v", err)
	if err := cv.(*storage.ChunkedSecrets).ForceDelete(k); err != nil {
		t.Fatal(err)
	}
	mustHoldOnly(t, secrets)
}

// TestInteropDeleteOriginalRecord: the original writes its index first and its chunks
// after it (on create and on update); chunkview's Delete and ForceDelete must remove
// those chunks too, not only the ones older than the index.
func TestInteropDeleteOriginalRecord(t *testing.T) {
	for _, how := range []string{"created", "updated"} {
		t.Run(how, func(t *testing.T) {
			_, secrets := newNamespace(t)
			orig, cv := bothDrivers(secrets)
			k := key("older", 1)
			mustCreate(t, orig, releaseOfChunks(t, "older", 1, release.StatusDeployed, 3, interopChunkSize, 1))
			if how == "updated" {
				if err := orig.Update(k, releaseOfChunks(t, "older", 1, release.StatusSuperseded, 4, interopChunkSize, 2)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := cv.Delete(k); err != nil {
				t.Fatal(err)
			}
			mustHoldOnly(t, secrets)
		})
	}
}
