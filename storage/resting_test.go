package storage_test

import (
	"context"
	"errors"
	"strings"
	"sync"
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

// later is a reader's clock ten minutes ahead: every index written by the test
// is at rest by it, by its labels and by its managedFields alike.
func later() time.Time { return time.Now().Add(10 * time.Minute) }

// readerAt is a driver over fc that reads by clock now and rides out a write for
// up to ReadRetry (long: a read that waited it out would show in its index reads).
func readerAt(fc *faultClient, now func() time.Time) *storage.ChunkedSecrets {
	d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: 30 * time.Second})
	storage.SetClock(d, now)
	return d
}

// TestRestingDamageReportedAtOnce: a record whose index was last written long ago
// and which lost one of its chunks, or holds one that does not match its name, is
// no write in progress: Get, Decode and List report it without riding out
// ReadRetry, having read its index once more (a missing chunk) or not at all (a
// chunk that does not match). The same record, its index fresh, is still ridden
// out (TestBrokenStaysReported).
func TestRestingDamageReportedAtOnce(t *testing.T) {
	_, secrets := newNamespace(t)
	cv := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, cv, releaseOfChunks(t, "gone", 1, release.StatusDeployed, 4, faultChunkSize, 1))
	mustCreate(t, cv, releaseOfChunks(t, "bent", 1, release.StatusDeployed, 4, faultChunkSize, 2))
	mustCreate(t, cv, releaseOfChunks(t, "fine", 1, release.StatusDeployed, 2, faultChunkSize, 3))
	gone, bent := key("gone", 1), key("bent", 1)
	if err := secrets.Delete(context.Background(), recordNames(t, secrets, gone)[2], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	corrupt(t, secrets, recordNames(t, secrets, bent)[2])

	for _, c := range []struct {
		key       string
		want      error
		indexGets int
	}{{gone, storage.ErrChunkMissing, 2}, {bent, storage.ErrChunkMismatch, 1}} {
		fc := newFaultClient(secrets)
		_, err := readerAt(fc, later).Get(c.key)
		if !errors.Is(err, c.want) {
			t.Fatalf("Get %s: %v, want %v", c.key, err, c.want)
		}
		if n := countCalls(fc, "get", c.key); n != c.indexGets {
			t.Errorf("Get %s read the index %d times, want %d (a ride-out reads it again and again)", c.key, n, c.indexGets)
		}
	}
	fc := newFaultClient(secrets)
	var logs logRecorder
	d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: 30 * time.Second, Log: logs.Log})
	storage.SetClock(d, later)
	got, err := d.List(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "fine" {
		t.Errorf("List: %d releases, want fine alone", len(got))
	}
	if n := countCalls(fc, "get", gone) + countCalls(fc, "get", bent); n != 1 {
		t.Errorf("List read the damaged indexes again %d times, want once (gone's confirmation)", n)
	}
	if !strings.Contains(logs.String(), "skipping") {
		t.Errorf("List did not report the damaged records as skipped: %s", logs.String())
	}
}

// corrupt replaces chunk Secret name by one of the same name, labels and owner
// whose bytes no longer match the hash in its name, as a bad restore would.
func corrupt(t *testing.T, secrets interface {
	Get(context.Context, string, metav1.GetOptions) (*corev1.Secret, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
	Create(context.Context, *corev1.Secret, metav1.CreateOptions) (*corev1.Secret, error)
}, name string) {
	t.Helper()
	ctx := context.Background()
	s, err := secrets.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	data := append([]byte(nil), s.Data[storage.DataChunk]...)
	data[len(data)/2] ^= 0x5a
	bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: s.Labels, OwnerReferences: s.OwnerReferences},
		Type: s.Type, Immutable: s.Immutable, Data: map[string][]byte{storage.DataChunk: data}}
	if _, err := secrets.Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestRestingIndexUpdateRiddenOut: helm-operator-plugins' update of a record at
// rest deletes every chunk of it, then rewrites the index: in between, the index
// is old and names chunks none of which is there. A read that lands there is no
// damage to report: it rides the write out and returns what was written, as a
// read of a fresh index does. So does one that lands after the DeleteCollection
// has taken only some of the chunks, once it has looked again, and one whose
// second look finds the same index but fewer of its chunks: the
// DeleteCollection went on between the looks (the read compares the chunks the
// server holds, not how many its decodes fetched).
func TestRestingIndexUpdateRiddenOut(t *testing.T) {
	const name = "resting"
	k := key(name, 1)
	for _, window := range []string{"no chunk left", "some chunks left", "chunks still going"} {
		t.Run(window, func(t *testing.T) {
			_, secrets := newNamespace(t)
			hop := func(c *faultClient) driver.Driver {
				return hopstorage.NewChunkedSecrets(c, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
			}
			mustCreate(t, hop(newFaultClient(secrets)), releaseOfChunks(t, name, 1, release.StatusDeployed, 4, faultChunkSize, 1))
			want := releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 1)
			names := recordNames(t, secrets, k)
			ofc := newFaultClient(secrets)
			inWindow, resume := make(chan struct{}), make(chan struct{})
			resumeOnce := sync.OnceFunc(func() { close(resume) })
			var once sync.Once
			pause := func() { once.Do(func() { close(inWindow); <-resume }) }
			if window == "no chunk left" {
				// After its DeleteCollection, before the index is rewritten.
				ofc.hook = func(_ int, method, n string) {
					if method == "update" && n == k {
						for _, c := range names[1:] {
							goneSeen(t, secrets, c)
						}
						pause()
					}
				}
			} else {
				// Part-way through the deletes: the first chunk gone, the
				// others not yet.
				ofc.hook = func(_ int, method, _ string) {
					if method == "deletecollection" {
						deleteSeen(t, secrets, names[1])
						pause()
					}
				}
			}
			done, updated := make(chan error, 1), make(chan struct{})
			go func() {
				done <- hop(ofc).Update(k, want)
				close(updated)
			}()
			<-inWindow
			fc := newFaultClient(secrets)
			switch window {
			case "some chunks left":
				// The DeleteCollection goes on while the reader waits to look
				// again: by then the update is done.
				var again sync.Once
				fc.hook = func(_ int, method, n string) {
					if method == "get" && n == k && countCalls(fc, "get", k) == 2 {
						again.Do(func() { resumeOnce(); <-updated })
					}
				}
			case "chunks still going":
				// The second look finds the same index, one chunk fewer;
				// the update is done by the ride-out's next read.
				var again, third sync.Once
				fc.hook = func(_ int, method, n string) {
					if method != "get" || n != k {
						return
					}
					switch countCalls(fc, "get", k) {
					case 2:
						again.Do(func() {
							deleteSeen(t, secrets, names[2])
						})
					case 3:
						third.Do(func() { resumeOnce(); <-updated })
					}
				}
			}
			gets := make(chan *release.Release, 1)
			errs := make(chan error, 1)
			go func() {
				got, err := readerAt(fc, later).Get(k)
				gets <- got
				errs <- err
			}()
			if window == "no chunk left" {
				// The reader met the missing chunks and read the index
				// again, riding the write out: then the write goes on.
				waitFor(t, func() bool { return countCalls(fc, "get", k) >= 2 })
				resumeOnce()
			}
			got, err := <-gets, <-errs
			resumeOnce() // a reader that gave up early leaves the writer paused
			if err := <-done; err != nil {
				t.Fatalf("helm-operator-plugins' update: %v", err)
			}
			if err != nil {
				t.Fatalf("a read during the update of a record at rest: %v", err)
			}
			mustBeOneOf(t, got, want)
		})
	}
}

// deleteSeen deletes Secret name and waits until the API server's watch cache
// no longer has it (goneSeen).
func deleteSeen(t *testing.T, secrets corev1client.SecretInterface, name string) {
	if err := secrets.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Error(err)
		return
	}
	goneSeen(t, secrets, name)
}

// goneSeen waits until the API server's watch cache, which reads at
// resourceVersion "0" are served from, no longer has Secret name: a read that
// starts then meets it gone. It runs in the hooks of other goroutines, so it
// fails the test with Error.
func goneSeen(t *testing.T, secrets corev1client.SecretInterface, name string) {
	for range 3000 {
		_, err := secrets.Get(context.Background(), name, metav1.GetOptions{ResourceVersion: "0"})
		if isNotFound(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("Secret %s still served from the watch cache after 30 s", name)
}
