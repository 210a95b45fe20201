package storage_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// TestReadRidesOutOriginalWrite: the original driver writes an index before the
// chunks it names (and, updating, deletes the old chunks first). A chunkview read
// that lands in that window waits for the write to complete instead of calling a
// healthy release broken, and returns exactly what was written.
func TestReadRidesOutOriginalWrite(t *testing.T) { forEachAdapter(t, testReadRidesOutOriginalWrite) }

func testReadRidesOutOriginalWrite(t *testing.T, ad chunkedAdapter) {
	const name = "window"
	k := key(name, 1)
	for _, op := range []string{"create", "update"} {
		t.Run(op, func(t *testing.T) {
			_, secrets := newNamespace(t)
			before := releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1)
			want := releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 2)
			if op == "update" {
				mustCreate(t, hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}), before)
			}
			// The original driver stops before its first chunk create, its index
			// written, while chunkview reads.
			ofc := newFaultClient(secrets)
			inWindow, resume := make(chan struct{}), make(chan struct{})
			var once sync.Once
			ofc.hook = func(_ int, method, n string) {
				if method == "create" && strings.HasPrefix(n, k+"-") {
					once.Do(func() {
						close(inWindow)
						<-resume
					})
				}
			}
			orig := hopstorage.NewChunkedSecrets(ofc, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
			done := make(chan error, 1)
			go func() {
				if op == "create" {
					done <- orig.Create(k, want)
				} else {
					done <- orig.Update(k, want)
				}
			}()
			<-inWindow
			// Without waiting, the record is torn: this is the window.
			if _, err := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ReadRetry: -1}).Get(k); !errors.Is(err, storage.ErrChunkMissing) {
				t.Fatalf("a read that does not wait, in the window: %v, want ErrChunkMissing", err)
			}
			// A Get and a List, each through a driver of its own, start in the
			// window and must both wait it out.
			getc, listc := newFaultClient(secrets), newFaultClient(secrets)
			cfg := storage.ChunkedSecretsConfig{ReadRetry: 30 * time.Second}
			type result struct {
				got []*release.Release
				err error
			}
			gets, lists := make(chan result, 1), make(chan result, 1)
			go func() {
				g, err := ad.new(getc, testOwner, cfg).Get(k)
				gets <- result{[]*release.Release{g}, err}
			}()
			go func() {
				l, err := ad.new(listc, testOwner, cfg).List(nil)
				lists <- result{l, err}
			}()
			// Let both readers meet the missing chunks and read the index again,
			// then let the write finish.
			waitFor(t, func() bool { return countCalls(getc, "get", k) >= 2 && countCalls(listc, "get", k) >= 1 })
			close(resume)
			if err := <-done; err != nil {
				t.Fatalf("the original driver's %s: %v", op, err)
			}
			for what, ch := range map[string]chan result{"get": gets, "list": lists} {
				r := <-ch
				if r.err != nil {
					t.Fatalf("%s during the write: %v", what, r.err)
				}
				if len(r.got) != 1 {
					t.Fatalf("%s returned %d releases, want 1", what, len(r.got))
				}
				mustBeOneOf(t, r.got[0], want)
			}
		})
	}
}

// TestListWaitsForEachRecord: a list that meets a record that stays broken and one
// that another writer is still writing waits for the second, however long the
// first takes to be given up on, returns it, and skips only the broken one.
func TestListWaitsForEachRecord(t *testing.T) { forEachAdapter(t, testListWaitsForEachRecord) }

func testListWaitsForEachRecord(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	cv := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, cv, releaseOfChunks(t, "a-broken", 1, release.StatusDeployed, 3, faultChunkSize, 1))
	names := recordNames(t, secrets, key("a-broken", 1))
	if err := secrets.Delete(context.Background(), names[1], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := releaseOfChunks(t, "b-writing", 1, release.StatusDeployed, 3, faultChunkSize, 2)
	k := key("b-writing", 1)
	ofc := newFaultClient(secrets)
	inWindow, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ofc.hook = func(_ int, method, n string) {
		if method == "create" && strings.HasPrefix(n, k+"-") {
			once.Do(func() { close(inWindow); <-resume })
		}
	}
	done := make(chan error, 1)
	go func() {
		done <- hopstorage.NewChunkedSecrets(ofc, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}).Create(k, want)
	}()
	<-inWindow
	var logs logRecorder
	lc := newFaultClient(secrets)
	lists := make(chan []*release.Release, 1)
	go func() {
		l, err := ad.new(lc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: 3 * time.Second, Log: logs.Log}).List(nil)
		if err != nil {
			t.Error(err)
		}
		lists <- l
	}()
	// The list has set both aside and read both indexes again at least twice.
	waitFor(t, func() bool { return countCalls(lc, "get", k) >= 2 && countCalls(lc, "get", key("a-broken", 1)) >= 2 })
	close(resume)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := <-lists
	if len(got) != 1 {
		t.Fatalf("the list returned %d releases, want the one being written; log: %s", len(got), logs.String())
	}
	mustBeOneOf(t, got[0], want)
	if !strings.Contains(logs.String(), "skipping") || !strings.Contains(logs.String(), "a-broken") {
		t.Fatalf("the broken record was not reported as skipped: %s", logs.String())
	}
}

// TestBrokenStaysReported: a record that stays broken is reported as such once the
// read has waited ReadRetry, having read the index again in between; with a
// negative ReadRetry, at once.
func TestBrokenStaysReported(t *testing.T) { forEachAdapter(t, testBrokenStaysReported) }

func testBrokenStaysReported(t *testing.T, ad chunkedAdapter) {
	const name = "broken"
	k := key(name, 1)
	_, secrets := newNamespace(t)
	mustCreate(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}),
		releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
	names := recordNames(t, secrets, k) // the index first, then its chunks
	if err := secrets.Delete(context.Background(), names[1], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, retry := range []time.Duration{-1, 200 * time.Millisecond} {
		fc := newFaultClient(secrets)
		_, err := ad.new(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: retry}).Get(k)
		if !errors.Is(err, storage.ErrChunkMissing) {
			t.Fatalf("ReadRetry %v: %v, want ErrChunkMissing", retry, err)
		}
		reads := countCalls(fc, "get", k)
		switch {
		case retry < 0 && reads != 1:
			t.Fatalf("ReadRetry %v read the index %d times, want once", retry, reads)
		case retry > 0 && reads < 2:
			t.Fatalf("ReadRetry %v read the index %d times, want it read again", retry, reads)
		}
	}
	// A record deleted while a read waits on it is not found, not broken.
	fc := newFaultClient(secrets)
	var once sync.Once
	fc.hook = func(n int, method, name string) {
		if method == "get" && name == k && n > 1 {
			once.Do(func() {
				if err := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{}).ForceDelete(k); err != nil {
					t.Error(err)
				}
			})
		}
	}
	if _, err := ad.new(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: time.Minute}).Get(k); err != driver.ErrReleaseNotFound {
		t.Fatalf("a read of a record deleted while it waited: %v, want ErrReleaseNotFound", err)
	}
}

// countCalls returns how many calls of method on name fc has seen.
func countCalls(fc *faultClient, method, name string) int {
	n := 0
	for _, c := range fc.Calls() {
		if c == method+" "+name {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds, failing the test after a generous while.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
