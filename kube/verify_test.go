package kube_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// directClient builds a Client straight from the test cluster's clients, without
// flags, for tests that need a Config field no flag sets.
func directClient(t *testing.T, kubes kube.ApplySource, cfg kube.Config) *kube.Client {
	t.Helper()
	md, err := metadata.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return kube.New(cluster.Client, md, kubes, cfg)
}

// replaceChunk replaces chunk Secret ns/name with one of the same name, labels and
// owner whose data mutate returns: chunk Secrets are immutable, so damage is done
// by recreating them.
func replaceChunk(t *testing.T, ns, name string, mutate func([]byte) []byte) {
	t.Helper()
	ctx := t.Context()
	s, err := secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	repl := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.Labels, OwnerReferences: s.OwnerReferences},
		Type:       s.Type, Immutable: s.Immutable,
		Data: map[string][]byte{storage.DataChunk: mutate(slices.Clone(s.Data[storage.DataChunk]))},
	}
	if _, err := secrets(ns).Create(ctx, repl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// patchIndex changes an index Secret's data.
func patchIndex(t *testing.T, ns, key string, data map[string][]byte) {
	t.Helper()
	s, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range data {
		s.Data[k] = v
	}
	if _, err := secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// problemsByKind returns the problems of reps as "kind key secret" strings.
func problemSet(reps []kube.NamespaceReport) []string {
	var out []string
	for _, r := range reps {
		for _, p := range r.Problems {
			out = append(out, fmt.Sprintf("%s %s %s", p.Kind, p.Key, p.Secret))
		}
	}
	slices.Sort(out)
	return out
}

// TestLayoutVerifyGC damages records in every way the format allows, with both
// drivers' records, and checks what Layout, Verify and GC make of them.
func TestLayoutVerifyGC(t *testing.T) {
	ctx := t.Context()
	ns, lonely := cluster.Namespace(t), cluster.Namespace(t)
	const owner = "verify-owner"
	const chunk = 8 << 10
	cv, orig := chunkviewDriver(ns, owner, chunk), originalDriver(ns, owner, chunk)
	key := func(name string, rev int) string { return storage.RecordKey(name, rev) }

	seed(t, cv, history("good", ns, 2, 30_000)...)
	seed(t, orig, history("orig", ns, 2, 30_000)...)
	seed(t, cv, makeRelease("missing", ns, 1, release.StatusDeployed, 30_000))
	seed(t, orig, makeRelease("corrupt", ns, 1, release.StatusDeployed, 30_000))
	seed(t, cv, makeRelease("orphan", ns, 1, release.StatusDeployed, 30_000))
	seed(t, orig, makeRelease("noowner", ns, 1, release.StatusDeployed, 30_000))
	seed(t, cv, makeRelease("disagree", ns, 1, release.StatusDeployed, 30_000))
	seed(t, cv, makeRelease("badindex", ns, 1, release.StatusDeployed, 100))
	seed(t, cv, makeRelease("undecodable", ns, 1, release.StatusDeployed, 100))
	// Too big for Helm's own Secrets driver: about 830 KB of gzip.
	big := storage.NewChunkedSecrets(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 256 << 10})
	seed(t, big, makeRelease("huge", ns, 1, release.StatusDeployed, 1_100_000))

	lostChunk := chunkNames(t, ns, key("missing", 1))[1]
	if err := secrets(ns).Delete(ctx, lostChunk, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	badChunk := chunkNames(t, ns, key("corrupt", 1))[0]
	replaceChunk(t, ns, badChunk, func(b []byte) []byte { b[len(b)/2] ^= 0xff; return b })
	orphan := createChunk(t, ns, owner, key("orphan", 1), []byte("left over by an interrupted write"))
	unowned := chunkNames(t, ns, key("noowner", 1))[0]
	if _, err := secrets(ns).Patch(ctx, unowned, types.MergePatchType, []byte(`{"metadata":{"ownerReferences":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// disagree's index names a chunk that does not exist in place of the one that
	// does.
	disNames := chunkNames(t, ns, key("disagree", 1))
	disReal := disNames[0]
	disNames[0] = storage.ChunkName(key("disagree", 1), []byte("some other slice"))
	patchIndex(t, ns, key("disagree", 1), map[string][]byte{storage.DataExtraChunks: []byte(`["` + strings.Join(disNames, `","`) + `"]`)})
	// badindex's list points outside its own record.
	patchIndex(t, ns, key("badindex", 1), map[string][]byte{storage.DataExtraChunks: []byte(`["` + storage.ChunkName(key("good", 1), []byte("x")) + `"]`)})
	// undecodable's only slice is not gzip, although every Secret is in place.
	patchIndex(t, ns, key("undecodable", 1), map[string][]byte{storage.DataChunk: []byte("this is not a gzip stream")})
	// A namespace whose only record Secret is a chunk left behind by a delete.
	goneKey := key("gone", 4)
	gone := createChunk(t, lonely, owner, goneKey, []byte("the index of this chunk was deleted"))

	later := time.Now().Add(time.Hour)
	c := directClient(t, nil, kube.Config{Owner: owner, Namespace: ns, Now: func() time.Time { return later }})

	t.Run("layout", func(t *testing.T) {
		l, err := kube.NewInspector(c).Layout(ctx, ns, "good", 0)
		if err != nil {
			t.Fatal(err)
		}
		row, err := c.Revision(ctx, ns, "good", 0)
		if err != nil {
			t.Fatal(err)
		}
		if l.Broken() || l.Revision != 2 || l.Release != "good" || l.Status != "deployed" || l.Index.State != storage.StateOK {
			t.Errorf("good: %+v", l)
		}
		if len(l.Chunks) != row.Summary.Chunks-1 || len(l.Chunks) < 2 || len(l.Orphans) != 0 {
			t.Errorf("good: %d chunks and %d orphans listed, the record has %d chunks", len(l.Chunks), len(l.Orphans), row.Summary.Chunks)
		}
		for _, ch := range l.Chunks {
			if ch.State != storage.StateOK || !ch.HashOK || !ch.Owned || ch.Bytes == 0 || ch.Bytes > chunk || ch.Share <= 0 {
				t.Errorf("good: chunk %+v", ch)
			}
		}
		if int64(l.StoredBytes) != row.Summary.StoredBytes || int64(l.DecodedBytes) != row.Summary.DecodedBytes {
			t.Errorf("good: layout sizes stored %d decoded %d, annotations %d %d", l.StoredBytes, l.DecodedBytes, row.Summary.StoredBytes, row.Summary.DecodedBytes)
		}
		if l.HelmSecretBytes < l.StoredBytes || l.HelmSecretBytes > l.StoredBytes*3/2 || !l.HelmSecretFits {
			t.Errorf("good: Helm Secrets driver size %d (fits %v) for %d gzip bytes", l.HelmSecretBytes, l.HelmSecretFits, l.StoredBytes)
		}
		parts := map[string]storage.Part{}
		for _, p := range l.Parts {
			parts[p.Name] = p
		}
		if l.Parts[0].Name != "rendered manifest" || parts["user-supplied values"].Items != 3 || parts["chart templates"].Items != 1 {
			t.Errorf("good: breakdown %+v", l.Parts)
		}

		l, err = kube.NewInspector(c).Layout(ctx, ns, "orig", 1)
		if err != nil || l.Broken() || l.Revision != 1 || l.Status != "superseded" || len(l.Chunks) < 2 || l.DecodedBytes == 0 {
			t.Errorf("orig v1 (original driver): %+v, %v", l, err)
		}

		l, err = kube.NewInspector(c).Layout(ctx, ns, "huge", 0)
		if err != nil || l.Broken() || len(l.Chunks) != 3 || l.HelmSecretFits || l.HelmSecretBytes <= storage.MaxSecretDataBytes {
			t.Errorf("huge: %d chunks, %d stored, Helm Secrets driver %d bytes fits %v, %v", len(l.Chunks), l.StoredBytes, l.HelmSecretBytes, l.HelmSecretFits, err)
		}
		t.Logf("huge: %d gzip bytes in %d Secrets; Helm's Secrets driver would need %d bytes in one", l.StoredBytes, 1+len(l.Chunks), l.HelmSecretBytes)

		l, err = kube.NewInspector(c).Layout(ctx, ns, "missing", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Broken() || l.Chunks[1].State != storage.StateMissing || l.Chunks[1].Name != lostChunk || !strings.Contains(l.DecodeError, "does not exist") {
			t.Errorf("missing: broken %v chunk 2 %+v decode error %q", l.Broken(), l.Chunks[1], l.DecodeError)
		}

		l, err = kube.NewInspector(c).Layout(ctx, ns, "corrupt", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Broken() || l.Chunks[0].State != storage.StateCorrupt || l.Chunks[0].HashOK || !strings.Contains(l.DecodeError, "hash") {
			t.Errorf("corrupt: broken %v chunk %+v decode error %q", l.Broken(), l.Chunks[0], l.DecodeError)
		}

		l, err = kube.NewInspector(c).Layout(ctx, ns, "orphan", 0)
		if err != nil {
			t.Fatal(err)
		}
		if l.Broken() || len(l.Orphans) != 1 || l.Orphans[0].Name != orphan || l.Orphans[0].State != storage.StateOrphan || !l.Orphans[0].HashOK || l.Orphans[0].Owned {
			t.Errorf("orphan: broken %v orphans %+v", l.Broken(), l.Orphans)
		}

		l, err = kube.NewInspector(c).Layout(ctx, ns, "undecodable", 0)
		if err != nil || !l.Broken() || !strings.Contains(l.DecodeError, "gzip") {
			t.Errorf("undecodable: %+v, %v", l, err)
		}

		if _, err := kube.NewInspector(c).Layout(ctx, ns, "good", 7); !strings.Contains(fmt.Sprint(err), "has no revision 7 (it has 1..2)") {
			t.Errorf("Layout of a revision that does not exist: %v", err)
		}
	})

	t.Run("verify", func(t *testing.T) {
		reps, err := kube.NewChecker(c).Verify(ctx, "", true)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) != 1 || reps[0].Namespace != ns {
			t.Fatalf("Verify -n %s reports on %+v", ns, reps)
		}
		got := problemSet(reps)
		want := []string{
			fmt.Sprintf("%s %s %s", storage.ProblemBadIndex, key("badindex", 1), key("badindex", 1)),
			fmt.Sprintf("%s %s %s", storage.ProblemHashMismatch, key("corrupt", 1), badChunk),
			fmt.Sprintf("%s %s %s", storage.ProblemMissingChunk, key("disagree", 1), disNames[0]),
			fmt.Sprintf("%s %s %s", storage.ProblemMissingChunk, key("missing", 1), lostChunk),
			fmt.Sprintf("%s %s %s", storage.ProblemNoOwner, key("noowner", 1), unowned),
			fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("disagree", 1), disReal),
			fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("orphan", 1), orphan),
			fmt.Sprintf("%s %s %s", storage.ProblemDecode, key("undecodable", 1), key("undecodable", 1)),
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Verify found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		var leftovers []string
		for _, lo := range reps[0].Leftovers {
			leftovers = append(leftovers, lo.Name)
		}
		slices.Sort(leftovers)
		if want := []string{disReal, orphan}; !slices.Equal(leftovers, sortedCopy(want)) {
			t.Errorf("leftovers %v, want %v", leftovers, want)
		}
		for _, p := range reps[0].Problems {
			if p.Kind.Explain() == "" {
				t.Errorf("problem kind %s has no explanation", p.Kind)
			}
		}

		// Measured from now, the unreferenced chunks are too young to be leftovers:
		// they could be a write in flight.
		now := directClient(t, nil, kube.Config{Owner: owner, Namespace: ns})
		reps, err = kube.NewChecker(now).Verify(ctx, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps[0].Leftovers) != 0 || len(reps[0].Recent) != 2 {
			t.Errorf("Verify now: %d leftovers, %d recent; want 0 and 2", len(reps[0].Leftovers), len(reps[0].Recent))
		}

		// One release alone.
		reps, err = kube.NewChecker(c).Verify(ctx, "good", true)
		if err != nil || !reps[0].OK() || reps[0].Indexes != 2 {
			t.Errorf("Verify good: %+v, %v", reps, err)
		}
		reps, err = kube.NewChecker(c).Verify(ctx, "orphan", false)
		if err != nil || len(reps[0].Leftovers) != 1 || reps[0].Leftovers[0].Name != orphan {
			t.Errorf("Verify orphan: %+v, %v", reps, err)
		}

		// -A reaches the namespace that holds nothing but a leftover chunk.
		all := directClient(t, nil, kube.Config{Owner: owner, AllNamespaces: true, Now: func() time.Time { return later }})
		reps, err = kube.NewChecker(all).Verify(ctx, "", false)
		if err != nil {
			t.Fatal(err)
		}
		var nss []string
		for _, r := range reps {
			nss = append(nss, r.Namespace)
		}
		if want := sortedCopy([]string{ns, lonely}); !slices.Equal(nss, want) {
			t.Errorf("Verify -A covered namespaces %v, want %v", nss, want)
		}
		for _, r := range reps {
			if r.Namespace == lonely && (len(r.Leftovers) != 1 || r.Leftovers[0].Name != gone || r.Leftovers[0].Key != goneKey) {
				t.Errorf("Verify -A in %s: leftovers %+v, want %s", lonely, r.Leftovers, gone)
			}
		}
	})

	t.Run("gc", func(t *testing.T) {
		before := snapshot(t, ns, lonely)
		reps, removed, err := gc(ctx, c, true)
		if err != nil || removed != 0 || len(reps) != 1 || len(reps[0].Leftovers) != 2 {
			t.Fatalf("GC --dry-run: %+v removed %d, %v", reps, removed, err)
		}
		if after := snapshot(t, ns, lonely); !mapsEqual(before, after) {
			t.Fatalf("GC --dry-run changed the cluster")
		}

		reps, removed, err = gc(ctx, c, false)
		if err != nil || removed != 2 {
			t.Fatalf("GC: removed %d, %v (%+v)", removed, err, reps)
		}
		after := snapshot(t, ns, lonely)
		for k := range before {
			name := k[strings.LastIndex(k, "/")+1:]
			_, still := after[k]
			if leftover := name == orphan || name == disReal; still == leftover {
				t.Errorf("after GC, %s present: %v", k, still)
			}
		}
		// The good releases still read, every revision.
		for _, name := range []string{"good", "orig", "orphan", "huge", "noowner"} {
			hist, err := c.History(ctx, ns, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range hist {
				if rls, err := decode(ctx, c, ns, name, r.Revision); err != nil || rls.Version != r.Revision {
					t.Errorf("after GC, %s v%d does not read: %v", name, r.Revision, err)
				}
			}
		}
		reps, err = kube.NewChecker(c).Verify(ctx, "", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range reps[0].Problems {
			if p.Kind == storage.ProblemOrphanChunk {
				t.Errorf("after GC: %+v", p)
			}
		}

		// -A collects the leftover in the namespace without indexes too.
		all := directClient(t, nil, kube.Config{Owner: owner, AllNamespaces: true, Now: func() time.Time { return later }})
		if _, removed, err := gc(ctx, all, false); err != nil || removed != 1 {
			t.Errorf("GC -A: removed %d, %v; want the chunk left in %s", removed, err, lonely)
		}
		if got := secretsOfKey(t, lonely, owner, goneKey); len(got) != 0 {
			t.Errorf("GC -A left %v", got)
		}
	})
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
