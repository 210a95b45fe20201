package storage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// integrityChunkSize gives the integrity cases records of several chunks.
const integrityChunkSize = 2 << 10

// storedRecord creates a release of chunks chunks and returns its key and the names of
// its chunk Secrets, in order.
func storedRecord(t *testing.T, secrets corev1client.SecretInterface, name string, chunks int) (string, []string) {
	t.Helper()
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize})
	mustCreate(t, d, releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, integrityChunkSize, 1))
	k := key(name, 1)
	idx, err := secrets.Get(context.Background(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ParseExtraChunks(k, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatal(err)
	}
	return k, names
}

// recreate deletes the Secret name and creates it again as mutate leaves it: the way
// to alter an immutable chunk.
func recreate(t *testing.T, secrets corev1client.SecretInterface, name string, mutate func(*corev1.Secret)) {
	t.Helper()
	ctx := context.Background()
	s, err := secrets.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.ObjectMeta = metav1.ObjectMeta{Name: s.Name, Labels: s.Labels, Annotations: s.Annotations, OwnerReferences: s.OwnerReferences}
	mutate(s)
	if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// rewrite updates the (mutable) Secret name as mutate leaves it.
func rewrite(t *testing.T, secrets corev1client.SecretInterface, name string, mutate func(*corev1.Secret)) {
	t.Helper()
	s, err := secrets.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(s)
	if _, err := secrets.Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// mustFailNaming runs every read path of d on key and checks each fails with target
// and names the Secret at fault; List skips the record rather than failing.
func mustFailNaming(t *testing.T, d driver.Driver, k string, target error, secret string) {
	t.Helper()
	_, err := d.Get(k)
	if err == nil {
		t.Fatalf("Get of a bad record succeeded")
	}
	if !errors.Is(err, target) {
		t.Fatalf("Get: got %v, want an error wrapping %v", err, target)
	}
	if !strings.Contains(err.Error(), secret) {
		t.Fatalf("Get: error %q does not name Secret %s", err, secret)
	}
	t.Logf("Get: %v", err)
	if _, err := d.Delete(k); !errors.Is(err, target) {
		t.Fatalf("Delete: got %v, want an error wrapping %v", err, target)
	}
	list, err := d.List(func(*release.Release) bool { return true })
	if err != nil {
		t.Fatalf("List with a bad record: %v (a bad record is skipped)", err)
	}
	for _, r := range list {
		if key(r.Name, r.Version) == k {
			t.Fatalf("List returned the bad record %s", k)
		}
	}
}

func TestIntegrity(t *testing.T) { forEachAdapter(t, testIntegrity) }

func testIntegrity(t *testing.T, ad chunkedAdapter) {
	// A short ReadRetry: a tampered record is retried all the same, and reported
	// after it (TestBrokenStaysReported holds the default bound).
	cfg := storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize, ReadRetry: 200 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		target error
		// tamper alters the stored record of k and returns the Secret the error
		// must name.
		tamper func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string
	}{
		{"altered chunk", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			recreate(t, secrets, chunks[1], func(s *corev1.Secret) { s.Data[storage.DataChunk][10] ^= 0x55 })
			return chunks[1]
		}},
		{"truncated chunk", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			recreate(t, secrets, chunks[2], func(s *corev1.Secret) { s.Data[storage.DataChunk] = s.Data[storage.DataChunk][:100] })
			return chunks[2]
		}},
		{"empty chunk", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			recreate(t, secrets, chunks[0], func(s *corev1.Secret) { s.Data = nil })
			return chunks[0]
		}},
		{"missing chunk", storage.ErrChunkMissing, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			if err := secrets.Delete(context.Background(), chunks[1], metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			return chunks[1]
		}},
		{"chunk of the wrong type", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			recreate(t, secrets, chunks[0], func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque; s.Immutable = nil })
			return chunks[0]
		}},
		{"extraChunks not JSON", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = []byte(`["` + chunks[0]) })
			return k
		}},
		{"extraChunks not a list of names", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = []byte(`{"a":1}`) })
			return k
		}},
		{"extraChunks missing", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { delete(s.Data, storage.DataExtraChunks) })
			return k
		}},
		{"extraChunks naming another release's chunk", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			_, others := storedRecord(t, secrets, "other", 2)
			rewrite(t, secrets, k, func(s *corev1.Secret) {
				s.Data[storage.DataExtraChunks] = mustJSON(t, append([]string{others[0]}, chunks[1:]...))
			})
			return k
		}},
		{"extraChunks naming an unrelated Secret", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			if _, err := secrets.Create(context.Background(), &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: "credentials"},
				Data:       map[string][]byte{"password": []byte("hunter2")},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = []byte(`["credentials"]`) })
			return k
		}},
		{"extraChunks with a name of the key but a bad hash", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = mustJSON(t, []string{k + "-0000000000000"}) })
			return k
		}},
		{"extraChunks huge", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			var many []string
			for len(many)*(len(chunks[0])+3) < 300<<10 {
				many = append(many, chunks[len(many)%len(chunks)])
			}
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = mustJSON(t, many) })
			return k
		}},
		{"first slice missing", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { delete(s.Data, storage.DataChunk) })
			return k
		}},
		{"first slice altered", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataChunk][len(s.Data[storage.DataChunk])/2] ^= 0x55 })
			return k
		}},
		{"payload checksum annotation disagrees", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Annotations[storage.AnnotationPayloadSHA256] = strings.Repeat("0", 64) })
			return k
		}},
		{"Helm's own Secret under the key", storage.ErrCorrupt, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			if err := secrets.Delete(context.Background(), k, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := secrets.Create(context.Background(), helmSecret(t, k), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return k
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, secrets := newNamespace(t)
			k, chunks := storedRecord(t, secrets, "bad", 4)
			secret := tc.tamper(t, secrets, k, chunks)
			before := versions(t, secrets)
			d := ad.new(secrets, testOwner, cfg)
			mustFailNaming(t, d, k, tc.target, secret)
			if after := versions(t, secrets); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("reading a bad record changed Secrets: before %v, after %v", before, after)
			}
		})
	}
}

// TestForeignSecretUnderKey: a Secret of Helm's own driver under the key is neither
// read, updated nor deleted, and Create reports the key as taken.
func TestForeignSecretUnderKey(t *testing.T) { forEachAdapter(t, testForeignSecretUnderKey) }

func testForeignSecretUnderKey(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	k := key("helmown", 1)
	if _, err := secrets.Create(context.Background(), helmSecret(t, k), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := versions(t, secrets)
	d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize})
	rls := testRelease("helmown", 1, release.StatusDeployed, 3000)
	if err := d.Update(k, rls); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), "helm.sh/release.v1") {
		t.Fatalf("Update over Helm's Secret: got %v, want ErrCorrupt naming the Secret and its type", err)
	}
	if _, err := d.Delete(k); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Delete of Helm's Secret: got %v, want ErrCorrupt", err)
	}
	if err := d.ForceDelete(k); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("ForceDelete of Helm's Secret: got %v, want ErrCorrupt", err)
	}
	if err := d.Create(k, rls); err != driver.ErrReleaseExists {
		t.Fatalf("Create over Helm's Secret: got %v, want driver.ErrReleaseExists", err)
	}
	if after := versions(t, secrets); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("Secrets changed: before %v, after %v", before, after)
	}
}

// TestForceDeleteRemovesBadRecord: the way out of a record that cannot be read.
func TestForceDeleteRemovesBadRecord(t *testing.T) {
	forEachAdapter(t, testForceDeleteRemovesBadRecord)
}

func testForceDeleteRemovesBadRecord(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	k, chunks := storedRecord(t, secrets, "broken", 4)
	recreate(t, secrets, chunks[1], func(s *corev1.Secret) { s.Data[storage.DataChunk][0] ^= 1 })
	d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize})
	if err := d.ForceDelete(k); err != nil {
		t.Fatal(err)
	}
	if err := d.ForceDelete(k); err != driver.ErrReleaseNotFound {
		t.Fatalf("second ForceDelete: got %v, want driver.ErrReleaseNotFound", err)
	}
	mustHoldOnly(t, secrets)
}

// TestHandBuiltRecords stores records whose chunks check but whose stream does not:
// truncated, not gzip, not a release, a gzip bomb. Each fails with a clear error
// naming the index.
func TestHandBuiltRecords(t *testing.T) { forEachAdapter(t, testHandBuiltRecords) }

func testHandBuiltRecords(t *testing.T, ad chunkedAdapter) {
	good := releaseOfChunks(t, "hand", 1, release.StatusDeployed, 4, integrityChunkSize, 5)
	gz, err := ad.new(nil, testOwner, storage.ChunkedSecretsConfig{}).Payload(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		stream []byte
		target error
		max    int64
	}{
		{"intact (control)", gz, nil, 0},
		{"truncated stream", gz[:len(gz)-2*integrityChunkSize], storage.ErrCorrupt, 0},
		{"stream without its trailer", gz[:len(gz)-8], storage.ErrCorrupt, 0},
		{"not gzip", []byte(strings.Repeat("this is not gzip ", 500)), storage.ErrCorrupt, 0},
		{"gzip of something else", gzipOf(t, []byte(strings.Repeat("[1,2,3]", 1000))), storage.ErrCorrupt, 0},
		{"release without info", gzipOf(t, []byte(`{"name":"hand","version":1}`)), storage.ErrCorrupt, 0},
		{"gzip bomb in one slice", bomb(t, 16<<20), storage.ErrTooLarge, 1 << 20},
		{"gzip bomb over many slices", bomb(t, 128<<20), storage.ErrTooLarge, 1 << 20},
		{"payload just over the bound", gz, storage.ErrTooLarge, int64(len(good.Manifest))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, secrets := newNamespace(t)
			k := key("hand", 1)
			slices := handStore(t, secrets, k, tc.stream, integrityChunkSize)
			d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize, MaxDecodedBytes: tc.max})
			if tc.target == nil {
				got, err := d.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				mustEqualRelease(t, good, got)
				return
			}
			t.Logf("%d bytes in %d slices", len(tc.stream), slices)
			mustFailNaming(t, d, k, tc.target, k)
		})
	}
}

// TestReadLimits: MaxReadChunks refuses a record of more chunks before fetching any.
func TestReadLimits(t *testing.T) { forEachAdapter(t, testReadLimits) }

func testReadLimits(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	k, _ := storedRecord(t, secrets, "limits", 5)
	counter := newFaultClient(secrets)
	d := ad.new(counter, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize, MaxReadChunks: 4})
	mustFailNaming(t, d, k, storage.ErrTooLarge, k)
	for _, c := range counter.Calls() {
		if strings.HasPrefix(c, "get "+k+"-") {
			t.Fatalf("a record over MaxReadChunks was fetched: %s", c)
		}
	}
	d = ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: integrityChunkSize, MaxReadChunks: 5})
	if _, err := d.Get(k); err != nil {
		t.Fatalf("a record of exactly MaxReadChunks: %v", err)
	}
}

// TestNoGoroutineLeak: decodes that stop early (a bomb, a missing or altered chunk
// in the middle of a long record, a cancelled read) leave no goroutine behind.
func TestNoGoroutineLeak(t *testing.T) { forEachAdapter(t, testNoGoroutineLeak) }

func testNoGoroutineLeak(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	const chunkSize = 1 << 10
	cfg := storage.ChunkedSecretsConfig{ChunkSize: chunkSize, MaxDecodedBytes: 1 << 20, ReadRetry: 200 * time.Millisecond}
	d := ad.new(secrets, testOwner, cfg)

	bombKey := key("bomb", 1)
	if n := handStore(t, secrets, bombKey, bomb(t, 64<<20), chunkSize); n < 20 {
		t.Fatalf("the bomb takes %d slices, want many", n)
	}
	long := releaseOfChunks(t, "long", 1, release.StatusDeployed, 30, chunkSize, 1)
	mustCreate(t, d, long)
	missing := releaseOfChunks(t, "missing", 1, release.StatusDeployed, 30, chunkSize, 2)
	mustCreate(t, d, missing)
	_, names := recordChunks(t, secrets, key("missing", 1))
	if err := secrets.Delete(context.Background(), names[3], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	altered := releaseOfChunks(t, "altered", 1, release.StatusDeployed, 30, chunkSize, 3)
	mustCreate(t, d, altered)
	_, names = recordChunks(t, secrets, key("altered", 1))
	recreate(t, secrets, names[1], func(s *corev1.Secret) { s.Data[storage.DataChunk][5] ^= 1 })

	// Warm up: the client's connections and their goroutines exist before counting.
	if _, err := d.Get(key("long", 1)); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	for round := range 5 {
		if _, err := d.Get(bombKey); !errors.Is(err, storage.ErrTooLarge) {
			t.Fatalf("bomb: got %v, want ErrTooLarge", err)
		}
		if _, err := d.Get(key("missing", 1)); !errors.Is(err, storage.ErrChunkMissing) {
			t.Fatalf("missing: got %v, want ErrChunkMissing", err)
		}
		if _, err := d.Get(key("altered", 1)); !errors.Is(err, storage.ErrCorrupt) {
			t.Fatalf("altered: got %v, want ErrCorrupt", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		c := &cancelAfterFetches{SecretInterface: secrets, index: key("long", 1), window: 4, cancel: cancel}
		c.arrived.Add(c.window)
		if _, err := ad.new(c, testOwner, cfg).WithContext(ctx).Get(key("long", 1)); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: got %v, want context.Canceled", err)
		}
		if _, err := d.List(func(*release.Release) bool { return true }); err != nil {
			t.Fatal(err)
		}
		if n := settledGoroutines(base); n > base {
			t.Fatalf("round %d: %d goroutines after early-stopping decodes, %d before:\n%s", round, n, base, goroutineStacks())
		}
	}
}

// recordChunks returns the index of k and its chunk names.
func recordChunks(t testing.TB, secrets corev1client.SecretInterface, k string) (*corev1.Secret, []string) {
	t.Helper()
	idx, err := secrets.Get(context.Background(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ParseExtraChunks(k, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatal(err)
	}
	return idx, names
}

// handStore writes stream as the record of k in the format, without the driver:
// slices of chunkSize, chunk Secrets named by their hash. It returns the number of
// slices.
func handStore(t *testing.T, secrets corev1client.SecretInterface, k string, stream []byte, chunkSize int) int {
	t.Helper()
	ctx := context.Background()
	name, rev, _ := storage.ParseKey(k)
	slices := storage.Split(stream, chunkSize)
	names := []string{}
	seen := map[string]bool{}
	for _, s := range slices[1:] {
		n := storage.ChunkName(k, s)
		names = append(names, n)
		if seen[n] {
			continue
		}
		seen[n] = true
		_, err := secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"owner": testOwner, "key": k, "type": "chunk"}},
			Type:       storage.SecretTypeChunk,
			Data:       map[string][]byte{storage.DataChunk: s},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := secrets.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: k, Labels: map[string]string{
			"name": name, "owner": testOwner, "status": "deployed", "version": fmt.Sprint(rev), "key": k, "type": "index",
		}},
		Type: storage.SecretTypeIndex,
		Data: map[string][]byte{storage.DataChunk: slices[0], storage.DataExtraChunks: mustJSON(t, names)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(slices)
}

// bomb returns a gzip stream of a JSON document that never ends within n bytes: a
// release whose manifest is n bytes of one letter.
func bomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = zw.Write([]byte(`{"name":"hand","version":1,"info":{"status":"deployed"},"manifest":"`))
	block := bytes.Repeat([]byte("a"), 1<<20)
	for written := 0; written < n; written += len(block) {
		_, _ = zw.Write(block)
	}
	_, _ = zw.Write([]byte(`"}`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// helmSecret returns a Secret as Helm's own Secrets driver stores a release.
func helmSecret(t *testing.T, k string) *corev1.Secret {
	t.Helper()
	name, rev, _ := storage.ParseKey(k)
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: k, Labels: map[string]string{"name": name, "owner": "helm", "status": "deployed", "version": fmt.Sprint(rev)}},
		Type:       "helm.sh/release.v1",
		Data:       map[string][]byte{"release": []byte("H4sIAAAAAAAC/6quBQQAAP//AAAAAAAAAAA=")},
	}
}
