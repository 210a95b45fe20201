package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// longestName returns the longest release name whose key at revision rev still fits
// the key label: label values are at most 63 characters. Helm allows names of 53, but
// the format (of both implementations) cannot store keys over 63.
func longestName(rev int) string {
	n := 63 - len(storage.RecordKey("", rev))
	return "r" + strings.Repeat("x", n-2) + "z"
}

// TestRealSecretLimit runs against the API server's real 1 MiB limit on a Secret's
// data: DefaultChunkSize leaves room for the index's extraChunks list, a full 1 MiB
// slice does not fit in an index, and the driver refuses such a configuration itself
// with a clear error rather than failing at the server.
func TestRealSecretLimit(t *testing.T) {
	if k := storage.RecordKey(longestName(1), 1); len(k) != 63 {
		t.Fatalf("longest key %q has %d characters", k, len(k))
	}
	// A release whose stream fills one DefaultChunkSize slice and spills into a second.
	rls := testRelease(longestName(1), 1, release.StatusDeployed, storage.DefaultChunkSize+storage.DefaultChunkSize/4)
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	if len(gz) <= storage.MaxSecretDataBytes || len(gz) > 2*storage.DefaultChunkSize {
		t.Fatalf("test stream is %d bytes, want between 1 MiB and two default slices", len(gz))
	}

	t.Run("default chunk size on the real server", func(t *testing.T) {
		_, secrets := newNamespace(t)
		d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{})
		k := key(longestName(1), 1)
		mustCreate(t, d, rls)
		idx, err := secrets.Get(t.Context(), k, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(idx.Data[storage.DataChunk]); n != storage.DefaultChunkSize {
			t.Fatalf("index holds a %d-byte slice, want a full %d", n, storage.DefaultChunkSize)
		}
		got, err := d.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, rls, got)
	})

	t.Run("default slice with a long extraChunks list fits", func(t *testing.T) {
		// The most names the 8 KiB of headroom holds, for the longest key the format
		// can label (63 characters): written straight to the server.
		_, secrets := newNamespace(t)
		k := storage.RecordKey(longestName(99999), 99999)
		slice := bytes.Repeat([]byte{0xA5}, storage.DefaultChunkSize)
		var names []string
		for i := 0; ; i++ {
			n := storage.ChunkName(k, []byte(fmt.Sprint(i)))
			if storage.DefaultChunkSize+len(mustJSON(t, append(names, n))) > storage.MaxSecretDataBytes {
				break
			}
			names = append(names, n)
		}
		t.Logf("%d names of %d characters fit beside a default slice", len(names), len(names[0]))
		if len(names) < 85 {
			t.Fatalf("only %d names fit beside a default slice; the documentation promises about 85", len(names))
		}
		_, err := secrets.Create(context.Background(), indexWith(k, slice, mustJSON(t, names)), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("the server refused a default slice with %d names: %v", len(names), err)
		}
		// One more name is one too many: the server's limit is exactly where the
		// driver's arithmetic puts it.
		more := append(names, storage.ChunkName(k, []byte("one more")))
		_, err = secrets.Create(context.Background(), indexWith(k+"x", slice, mustJSON(t, more)), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "1048576") {
			t.Fatalf("the server accepted %d bytes of data (%v); the limit is not where the driver assumes", storage.DefaultChunkSize+len(mustJSON(t, more)), err)
		}
	})

	t.Run("a full 1 MiB slice does not fit in an index", func(t *testing.T) {
		_, secrets := newNamespace(t)
		_, err := secrets.Create(context.Background(), indexWith("full", bytes.Repeat([]byte{1}, 1<<20), []byte("[]")), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Fatalf("the server accepted a 1 MiB slice plus an empty list (%v)", err)
		}
		t.Logf("server: %v", err)
	})

	for _, size := range []int{1 << 20, 2 << 20} {
		t.Run(fmt.Sprintf("chunk size %d refused by the driver", size), func(t *testing.T) {
			_, secrets := newNamespace(t)
			counter := newFaultClient(secrets)
			d := storage.NewDriver(counter, testOwner, storage.ChunkedSecretsConfig{ChunkSize: size})
			err := d.Create(key(longestName(1), 1), rls)
			if !errors.Is(err, storage.ErrTooLarge) || !strings.Contains(err.Error(), "lower ChunkSize") {
				t.Fatalf("Create with ChunkSize %d: got %v, want ErrTooLarge telling to lower ChunkSize", size, err)
			}
			t.Logf("refused: %v", err)
			if n := counter.Count(); n != 0 {
				t.Fatalf("the refused create reached the server: %v", counter.Calls())
			}
			mustHoldOnly(t, secrets)
		})
	}
}

// TestKeyLabelLimit: a release name whose key is longer than a label value may be
// (63) cannot be stored in the format. The create fails with the server's reason and
// leaves nothing behind.
func TestKeyLabelLimit(t *testing.T) {
	_, secrets := newNamespace(t)
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: 1 << 10})
	name := longestName(1) + "x"
	for _, chunks := range []int{1, 3} {
		err := d.Create(key(name, 1), releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, 1<<10, 1))
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "63") {
			t.Fatalf("Create of a %d-character name at %d chunks: got %v, want the server's 63-character label limit", len(name), chunks, err)
		}
		t.Logf("%d chunks: %v", chunks, err)
		mustHoldOnly(t, secrets)
	}
}

func indexWith(name string, slice, extra []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       storage.SecretTypeIndex,
		Data:       map[string][]byte{storage.DataChunk: slice, storage.DataExtraChunks: extra},
	}
}
