package storage_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// originalChunkSize is the ChunkSize the original driver writes with in these tests.
const originalChunkSize = 2 << 10

// originalRecord has the original driver (helm-operator-plugins v0.9.1) write a
// release of chunks chunks, without any of chunkview's annotations, and returns
// the release, its key and its chunk names in order.
func originalRecord(t *testing.T, secrets corev1client.SecretInterface, name string, chunks int, seed uint64) (*release.Release, string, []string) {
	t.Helper()
	rls := releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, originalChunkSize, seed)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: originalChunkSize})
	k := key(name, 1)
	if err := orig.Create(k, rls); err != nil {
		t.Fatal(err)
	}
	idx, names := recordChunks(t, secrets, k)
	for a := range idx.Annotations {
		if len(a) > len(storage.AnnotationPrefix) && a[:len(storage.AnnotationPrefix)] == storage.AnnotationPrefix {
			t.Fatalf("the original driver's index carries chunkview's annotation %s", a)
		}
	}
	if len(names) != chunks-1 {
		t.Fatalf("the original driver wrote %d chunks, want %d", len(names)+1, chunks)
	}
	return rls, k, names
}

// reslice replaces chunk i of record k by one holding the slice mutate returns,
// named by that slice's hash as the format requires, and points the index at it:
// a record whose chunks all check, holding a stream that was altered. It returns
// the new chunk's name.
func reslice(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string, i int, mutate func([]byte) []byte) string {
	t.Helper()
	ctx := context.Background()
	old, err := secrets.Get(ctx, chunks[i], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := mutate(append([]byte(nil), old.Data[storage.DataChunk]...))
	name := storage.ChunkName(k, data)
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: old.Labels, OwnerReferences: old.OwnerReferences},
		Type:       old.Type,
		Immutable:  old.Immutable,
		Data:       map[string][]byte{storage.DataChunk: data},
	}
	if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, chunks[i], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	renamed := append([]string(nil), chunks...)
	renamed[i] = name
	rewrite(t, secrets, k, func(idx *corev1.Secret) { idx.Data[storage.DataExtraChunks] = mustJSON(t, renamed) })
	return name
}

// withTrailerSize returns a tamper that makes the gzip trailer at the end of the
// last slice claim size(real) for the JSON's length.
func withTrailerSize(size func(uint32) uint32) func([]byte) []byte {
	return func(b []byte) []byte {
		tail := b[len(b)-4:]
		binary.LittleEndian.PutUint32(tail, size(binary.LittleEndian.Uint32(tail)))
		return b
	}
}

// TestOriginalRecordDamage reads records the original driver wrote (so without the
// size hint, the summary or the payload hash chunkview writes), intact and then
// damaged in each way a read must catch: a chunk altered or missing (the last one
// too, which a read fetches first for its gzip trailer), the stream cut short, a
// trailer that lies about the JSON's length under a chunk name that checks, and
// JSON over MaxDecodedBytes. Every read fails naming the Secret at fault, or
// returns the release exactly.
func TestOriginalRecordDamage(t *testing.T) {
	const chunks = 6
	cfg := storage.ChunkedSecretsConfig{ChunkSize: originalChunkSize, ReadRetry: 100 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		target error
		// max returns MaxDecodedBytes for JSON of n bytes; nil: the default.
		max func(n int64) int64
		// tamper alters the stored record of k and returns the Secret the error
		// must name.
		tamper func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string
	}{
		{"intact (control)", nil, nil, nil},
		{"JSON exactly at MaxDecodedBytes", nil, func(n int64) int64 { return n }, nil},
		{"altered chunk", storage.ErrChunkMismatch, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			recreate(t, secrets, chunks[1], func(s *corev1.Secret) { s.Data[storage.DataChunk][7] ^= 0x20 })
			return chunks[1]
		}},
		{"altered last chunk", storage.ErrChunkMismatch, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			last := chunks[len(chunks)-1]
			recreate(t, secrets, last, func(s *corev1.Secret) { d := s.Data[storage.DataChunk]; d[len(d)-1] ^= 0x01 })
			return last
		}},
		{"missing chunk", storage.ErrChunkMissing, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			if err := secrets.Delete(context.Background(), chunks[2], metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			return chunks[2]
		}},
		{"missing last chunk", storage.ErrChunkMissing, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			last := chunks[len(chunks)-1]
			if err := secrets.Delete(context.Background(), last, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			return last
		}},
		{"stream cut short (index names one chunk less)", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			rewrite(t, secrets, k, func(s *corev1.Secret) { s.Data[storage.DataExtraChunks] = mustJSON(t, chunks[:len(chunks)-1]) })
			return k
		}},
		{"last slice without its trailer", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			reslice(t, secrets, k, chunks, len(chunks)-1, func(b []byte) []byte { return b[:len(b)-8] })
			return k
		}},
		{"trailer claims 4 GiB", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			reslice(t, secrets, k, chunks, len(chunks)-1, withTrailerSize(func(uint32) uint32 { return 1<<32 - 1 }))
			return k
		}},
		{"trailer claims one byte", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			reslice(t, secrets, k, chunks, len(chunks)-1, withTrailerSize(func(uint32) uint32 { return 1 }))
			return k
		}},
		{"trailer claims one byte more", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			reslice(t, secrets, k, chunks, len(chunks)-1, withTrailerSize(func(n uint32) uint32 { return n + 1 }))
			return k
		}},
		{"trailer claims one byte less", storage.ErrCorrupt, nil, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			reslice(t, secrets, k, chunks, len(chunks)-1, withTrailerSize(func(n uint32) uint32 { return n - 1 }))
			return k
		}},
		{"JSON one byte over MaxDecodedBytes", storage.ErrTooLarge, func(n int64) int64 { return n - 1 }, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			return k
		}},
		{"JSON far over MaxDecodedBytes", storage.ErrTooLarge, func(n int64) int64 { return n / 4 }, func(t *testing.T, secrets corev1client.SecretInterface, k string, chunks []string) string {
			return k
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, secrets := newNamespace(t)
			rls, k, names := originalRecord(t, secrets, "orig", chunks, 9)
			cfg := cfg
			if tc.max != nil {
				cfg.MaxDecodedBytes = tc.max(int64(jsonLength(t, rls)))
			}
			d := storage.NewDriver(secrets, testOwner, cfg)
			if tc.tamper == nil {
				got, err := d.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				mustEqualRelease(t, rls, got)
				return
			}
			secret := tc.tamper(t, secrets, k, names)
			before := versions(t, secrets)
			mustFailNaming(t, d, k, tc.target, secret)
			if after := versions(t, secrets); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("reading a bad record changed Secrets: before %v, after %v", before, after)
			}
		})
	}
}

// jsonLength returns the length of the JSON rls is stored as.
func jsonLength(t *testing.T, rls *release.Release) int {
	t.Helper()
	_, n, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDecodesShareNoBytes: decodes one after another and side by side, of records
// of different lengths from both writers, each return their own release exactly,
// though they inflate into buffers earlier decodes gave back. Run with -race.
func TestDecodesShareNoBytes(t *testing.T) {
	_, secrets := newNamespace(t)
	var want []*release.Release
	var keys []string
	for i, chunks := range []int{7, 2, 5, 1} {
		name := fmt.Sprintf("orig%d", i)
		rls, k, _ := originalRecord(t, secrets, name, chunks, uint64(20+i))
		want, keys = append(want, rls), append(keys, k)
		rls = releaseOfChunks(t, fmt.Sprintf("cv%d", i), 1, release.StatusDeployed, chunks, originalChunkSize, uint64(30+i))
		mustCreate(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: originalChunkSize}), rls)
		want, keys = append(want, rls), append(keys, key(rls.Name, 1))
	}
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: originalChunkSize})
	for round := range 3 {
		for i, k := range keys {
			got, err := d.Get(k)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			mustEqualRelease(t, want[i], got)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(keys))
	for range 4 {
		for i, k := range keys {
			wg.Go(func() {
				got, err := d.Get(k)
				switch {
				case err != nil:
					errs <- err
				case got.Manifest != want[i].Manifest || got.Name != want[i].Name:
					errs <- fmt.Errorf("Get %s returned another release's content", k)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
