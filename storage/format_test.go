package storage_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// TestLabelsAndOwnership checks the metadata of every Secret of a record against
// the format, after a create and after an update.
func TestLabelsAndOwnership(t *testing.T) {
	_, secrets := newNamespace(t)
	const chunkSize = 2 << 10
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	created := time.Unix(1_800_000_000, 0)
	modified := created.Add(90 * time.Minute)
	storage.SetClock(d, func() time.Time { return created })
	k := key("lbl", 3)
	rls := releaseOfChunks(t, "lbl", 3, release.StatusPendingUpgrade, 4, chunkSize, 1)
	mustCreate(t, d, rls)

	idx := mustCheckRecord(t, secrets, k, rls, chunkSize, map[string]string{
		"name": "lbl", "owner": testOwner, "status": "pending-upgrade", "version": "3", "key": k, "type": "index",
		"createdAt": strconv.FormatInt(created.Unix(), 10),
	}, created)
	oldChunks := recordNames(t, secrets, k)

	storage.SetClock(d, func() time.Time { return modified })
	next := releaseOfChunks(t, "lbl", 3, release.StatusDeployed, 5, chunkSize, 2)
	if err := d.Update(k, next); err != nil {
		t.Fatal(err)
	}
	idx2 := mustCheckRecord(t, secrets, k, next, chunkSize, map[string]string{
		"name": "lbl", "owner": testOwner, "status": "deployed", "version": "3", "key": k, "type": "index",
		"createdAt":  strconv.FormatInt(created.Unix(), 10),
		"modifiedAt": strconv.FormatInt(modified.Unix(), 10),
	}, modified)
	if idx2.UID != idx.UID {
		t.Fatalf("Update replaced the index object (UID %s, was %s): its chunks' ownerReferences and watchers lose it", idx2.UID, idx.UID)
	}
	for _, n := range oldChunks[1:] {
		if _, err := secrets.Get(t.Context(), n, metav1.GetOptions{}); !isNotFound(err) {
			t.Fatalf("old chunk %s still there after Update (%v)", n, err)
		}
	}
	mustHoldOnly(t, secrets, k)
}

// mustCheckRecord checks the Secrets of the record of k against the format and rls,
// and returns its index.
func mustCheckRecord(t *testing.T, secrets corev1client.SecretInterface, k string, rls *release.Release, chunkSize int, wantLabels map[string]string, chunkTime time.Time) *corev1.Secret {
	t.Helper()
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.Split(gz, chunkSize)
	all := listSecrets(t, secrets)
	idx, ok := all[k]
	if !ok {
		t.Fatalf("no index Secret %s", k)
	}
	if idx.Type != storage.SecretTypeIndex || idx.Immutable == nil || *idx.Immutable {
		t.Fatalf("index: type %q immutable %v, want %q and immutable false", idx.Type, idx.Immutable, storage.SecretTypeIndex)
	}
	if fmt.Sprint(idx.Labels) != fmt.Sprint(wantLabels) {
		t.Fatalf("index labels %v, want exactly %v", idx.Labels, wantLabels)
	}
	if got := slices.Sorted(maps.Keys(idx.Data)); !slices.Equal(got, []string{"chunk", "extraChunks"}) {
		t.Fatalf("index data keys %v", got)
	}
	if string(idx.Data["chunk"]) != string(want[0]) {
		t.Fatalf("index holds %d bytes, not the stream's first slice of %d", len(idx.Data["chunk"]), len(want[0]))
	}
	var names []string
	for _, s := range want[1:] {
		names = append(names, k+"-"+storage.SliceHash(s))
	}
	if got, wantJSON := string(idx.Data["extraChunks"]), string(mustJSON(t, append([]string{}, names...))); got != wantJSON {
		t.Fatalf("extraChunks %s, want %s", got, wantJSON)
	}
	if len(idx.OwnerReferences) != 0 {
		t.Fatalf("index has ownerReferences %v", idx.OwnerReferences)
	}
	if got := idx.Annotations[storage.AnnotationChunks]; got != strconv.Itoa(len(want)) {
		t.Fatalf("index annotation %s=%q, want %d", storage.AnnotationChunks, got, len(want))
	}
	for i, n := range names {
		c, ok := all[n]
		if !ok {
			t.Fatalf("chunk %d Secret %s missing", i+2, n)
		}
		if c.Type != storage.SecretTypeChunk || c.Immutable == nil || !*c.Immutable {
			t.Fatalf("chunk %s: type %q immutable %v, want %q and immutable true", n, c.Type, c.Immutable, storage.SecretTypeChunk)
		}
		wantChunk := map[string]string{"owner": testOwner, "key": k, "type": "chunk", "createdAt": strconv.FormatInt(chunkTime.Unix(), 10)}
		if fmt.Sprint(c.Labels) != fmt.Sprint(wantChunk) {
			t.Fatalf("chunk %s labels %v, want exactly %v", n, c.Labels, wantChunk)
		}
		if got := slices.Sorted(maps.Keys(c.Data)); !slices.Equal(got, []string{"chunk"}) || string(c.Data["chunk"]) != string(want[i+1]) {
			t.Fatalf("chunk %s data keys %v, or its bytes are not slice %d", n, got, i+2)
		}
		if len(c.Annotations) != 0 {
			t.Fatalf("chunk %s has annotations %v", n, c.Annotations)
		}
		ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: k, UID: idx.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}
		if len(c.OwnerReferences) != 1 || !equality.Semantic.DeepEqual(c.OwnerReferences[0], ref) {
			t.Fatalf("chunk %s ownerReferences %s, want exactly [%s]", n, refsString(c.OwnerReferences), refsString([]metav1.OwnerReference{ref}))
		}
	}
	if len(all) != len(want) {
		t.Fatalf("namespace holds %d Secrets, the record has %d", len(all), len(want))
	}
	return &idx
}

// TestAPICalls measures the requests of each operation by chunk count. The counts
// are part of the design (a create of more than one chunk writes a pending index,
// the chunks owned by it, then the index's data: n+1 requests; one of a single chunk
// writes the index alone), so they are asserted as well as printed.
func TestAPICalls(t *testing.T) {
	const chunkSize = 1 << 10
	for _, n := range []int{1, 2, 5, 11} {
		_, secrets := newNamespace(t)
		counter := newFaultClient(secrets)
		d := storage.NewDriver(counter, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
		k := key("calls", 1)
		measure := func(op string, want int, fn func() error) {
			counter.Reset()
			if err := fn(); err != nil {
				t.Fatalf("%s at %d chunks: %v", op, n, err)
			}
			got := counter.Count()
			t.Logf("%-6s %2d chunks: %2d API calls %v", op, n, got, counter.CountBy())
			if got != want {
				t.Errorf("%s at %d chunks made %d API calls, want %d: %v", op, n, got, want, counter.Calls())
			}
		}
		creates := n + 1
		if n == 1 {
			creates = 1
		}
		measure("create", creates, func() error {
			return d.Create(k, releaseOfChunks(t, "calls", 1, release.StatusDeployed, n, chunkSize, 1))
		})
		// Chunks are read from the API server's watch cache first; wait for it to
		// hold them, so that no read falls back to etcd (TestCachedChunkReads).
		waitForCache(t, secrets)
		measure("get", n, func() error { _, err := d.Get(k); return err })
		measure("update", 2*n, func() error {
			return d.Update(k, releaseOfChunks(t, "calls", 1, release.StatusSuperseded, n, chunkSize, 2))
		})
		waitForCache(t, secrets)
		measure("list", 1+(n-1), func() error { _, err := d.List(func(*release.Release) bool { return true }); return err })
		// GET index, GET each chunk (Delete returns the release), DELETE the index,
		// DELETE each chunk by the name the index gave it.
		measure("delete", 2*n, func() error { _, err := d.Delete(k); return err })
		mustHoldOnly(t, secrets)
	}
}

// TestIdenticalSlices: a stream that repeats a slice stores it once, reads back, and
// is updated and deleted cleanly.
func TestIdenticalSlices(t *testing.T) {
	_, secrets := newNamespace(t)
	const chunkSize = 256
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	k := key("repeat", 1)
	rls := repetitiveRelease(1, "a")
	names, unique := sliceNames(t, k, rls, chunkSize)
	if unique >= len(names) {
		t.Fatalf("test release repeats no slice: %d names, %d distinct", len(names), unique)
	}
	t.Logf("%d slices, %d chunk names, %d distinct", len(names)+1, len(names), unique)
	mustCreate(t, d, rls)
	if got := len(listSecrets(t, secrets)) - 1; got != unique {
		t.Fatalf("stored %d chunk Secrets, want one per distinct slice: %d", got, unique)
	}
	got, err := d.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	mustEqualRelease(t, rls, got)

	next := repetitiveRelease(1, "b")
	if err := d.Update(k, next); err != nil {
		t.Fatal(err)
	}
	got, err = d.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	mustEqualRelease(t, next, got)
	mustHoldOnly(t, secrets, k)
	if _, err := d.Delete(k); err != nil {
		t.Fatal(err)
	}
	mustHoldOnly(t, secrets)
}

// repetitiveRelease returns a release whose manifest is 1 MiB of one letter: its
// gzip stream repeats itself.
func repetitiveRelease(version int, letter string) *release.Release {
	rls := testRelease("repeat", version, release.StatusDeployed, 1)
	rls.Manifest = strings.Repeat(letter, 1<<20)
	return rls
}

// sliceNames returns the chunk names of rls's record at chunkSize and how many are
// distinct.
func sliceNames(t *testing.T, k string, rls *release.Release, chunkSize int) ([]string, int) {
	t.Helper()
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	set := map[string]bool{}
	for _, s := range storage.Split(gz, chunkSize)[1:] {
		names = append(names, storage.ChunkName(k, s))
		set[storage.ChunkName(k, s)] = true
	}
	return names, len(set)
}

// TestUpdateUnchangedReusesChunks: an update that stores the same stream keeps the
// chunk Secrets it already has (the same objects: it claims them, which changes
// their resourceVersion, but does not write them again).
func TestUpdateUnchangedReusesChunks(t *testing.T) {
	_, secrets := newNamespace(t)
	const chunkSize = 1 << 10
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
	k := key("same", 1)
	mustCreate(t, d, releaseOfChunks(t, "same", 1, release.StatusDeployed, 4, chunkSize, 1))
	uids := func() map[string]types.UID {
		out := map[string]types.UID{}
		for n, s := range listSecrets(t, secrets) {
			out[n] = s.UID
		}
		return out
	}
	before := uids()
	if err := d.Update(k, releaseOfChunks(t, "same", 1, release.StatusDeployed, 4, chunkSize, 1)); err != nil {
		t.Fatal(err)
	}
	after := uids()
	for n, uid := range before {
		if after[n] != uid {
			t.Fatalf("chunk %s was written again by an update that did not change it", n)
		}
	}
	mustHoldOnly(t, secrets, k)
	mustAllReadable(t, secrets, testOwner)
}

// TestOwnerIsolation: records of another owner in the namespace are neither listed,
// queried nor touched.
func TestOwnerIsolation(t *testing.T) {
	_, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: 1 << 10}
	mine := storage.NewDriver(secrets, testOwner, cfg)
	theirs := storage.NewDriver(secrets, "someone-else", cfg)
	mustCreate(t, mine, releaseOfChunks(t, "mine", 1, release.StatusDeployed, 3, 1<<10, 1))
	mustCreate(t, theirs, releaseOfChunks(t, "theirs", 1, release.StatusDeployed, 3, 1<<10, 2))
	list, err := mine.List(func(*release.Release) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "mine" {
		t.Fatalf("List returned %d releases", len(list))
	}
	if _, err := mine.Query(map[string]string{"name": "theirs", "owner": "helm"}); err != driver.ErrReleaseNotFound {
		t.Fatalf("Query for another owner's release: got %v, want driver.ErrReleaseNotFound", err)
	}
	if _, err := mine.Delete(key("mine", 1)); err != nil {
		t.Fatal(err)
	}
	mustHoldOnly(t, secrets, key("theirs", 1))
	if _, err := theirs.Get(key("theirs", 1)); err != nil {
		t.Fatal(err)
	}
}

// refsString prints ownerReferences with their pointer fields resolved.
func refsString(refs []metav1.OwnerReference) string {
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("{%s %s %s %s controller=%v blockOwnerDeletion=%v}",
			r.APIVersion, r.Kind, r.Name, r.UID, ptr.Deref(r.Controller, false), ptr.Deref(r.BlockOwnerDeletion, true)))
	}
	return strings.Join(out, " ")
}
