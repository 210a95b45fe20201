package storage_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// onceBefore returns a hook that runs fn once, before the first call of method on
// the Secret name.
func onceBefore(method, name string, fn func()) func(int, string, string) {
	var once sync.Once
	return func(_ int, m, n string) {
		if m == method && n == name {
			once.Do(fn)
		}
	}
}

// TestStaleWriteConflicts: a write based on an index that changed between the
// driver's read and its write fails with ErrConflict and overwrites nothing.
func TestStaleWriteConflicts(t *testing.T) { forEachAdapter(t, testStaleWriteConflicts) }

func testStaleWriteConflicts(t *testing.T, ad chunkedAdapter) {
	const name = "stale"
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	for _, chunks := range []int{1, 3} {
		old := func(t *testing.T) *release.Release {
			return releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, faultChunkSize, 1)
		}
		theirs := func(t *testing.T) *release.Release {
			return releaseOfChunks(t, name, 1, release.StatusFailed, chunks, faultChunkSize, 3)
		}
		mine := func(t *testing.T) *release.Release {
			return releaseOfChunks(t, name, 1, release.StatusSuperseded, chunks+1, faultChunkSize, 2)
		}

		t.Run(fmt.Sprintf("update after another update/%d-chunks", chunks), func(t *testing.T) {
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, old(t))
			fc := newFaultClient(secrets)
			fc.hook = onceBefore("update", k, func() {
				if err := clean.Update(k, theirs(t)); err != nil {
					t.Errorf("concurrent update: %v", err)
				}
			})
			err := ad.new(fc, testOwner, cfg).Update(k, mine(t))
			if !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("stale Update: got %v, want ErrConflict", err)
			}
			t.Logf("stale update: %v", err)
			mustBeOneOf(t, getOrNil(t, clean, k), theirs(t))
			if n := mustRemoveLeftovers(t, secrets, testOwner); n != 0 {
				t.Fatalf("the refused update left %d chunk Secrets behind", n)
			}
			mustHoldOnly(t, secrets, k)
		})

		t.Run(fmt.Sprintf("update after a delete/%d-chunks", chunks), func(t *testing.T) {
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, old(t))
			fc := newFaultClient(secrets)
			fc.hook = onceBefore("update", k, func() {
				if _, err := clean.Delete(k); err != nil {
					t.Errorf("concurrent delete: %v", err)
				}
			})
			err := ad.new(fc, testOwner, cfg).Update(k, mine(t))
			if !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("Update of a deleted record: got %v, want ErrConflict", err)
			}
			if got := getOrNil(t, clean, k); got != nil {
				t.Fatalf("Update of a deleted record recreated it")
			}
			if n := mustRemoveLeftovers(t, secrets, testOwner); n != 0 {
				t.Fatalf("the refused update left %d chunk Secrets behind", n)
			}
			mustHoldOnly(t, secrets)
		})

		t.Run(fmt.Sprintf("delete after an update/%d-chunks", chunks), func(t *testing.T) {
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, old(t))
			fc := newFaultClient(secrets)
			fc.hook = onceBefore("delete", k, func() {
				if err := clean.Update(k, theirs(t)); err != nil {
					t.Errorf("concurrent update: %v", err)
				}
			})
			_, err := ad.new(fc, testOwner, cfg).Delete(k)
			if !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("stale Delete: got %v, want ErrConflict", err)
			}
			mustBeOneOf(t, getOrNil(t, clean, k), theirs(t))
			mustHoldOnly(t, secrets, k)
		})

		// The driver read the record, then another writer rewrote it: the
		// delete, which finds the record as the other writer left it, must not
		// take that for what it read.
		t.Run(fmt.Sprintf("delete after a read and another update/%d-chunks", chunks), func(t *testing.T) {
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, old(t))
			d := ad.new(secrets, testOwner, cfg)
			if _, err := d.Get(k); err != nil {
				t.Fatal(err)
			}
			if err := clean.Update(k, theirs(t)); err != nil {
				t.Fatalf("the other writer's update: %v", err)
			}
			_, err := d.Delete(k)
			if !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("Delete of a record rewritten since it was read: got %v, want ErrConflict", err)
			}
			mustBeOneOf(t, getOrNil(t, clean, k), theirs(t))
			mustHoldOnly(t, secrets, k)
		})
	}
}

// TestConcurrentUpdates: writers that read the same index and then update it race;
// exactly one wins, the others get ErrConflict, and the record reads as the winner's.
func TestConcurrentUpdates(t *testing.T) { forEachAdapter(t, testConcurrentUpdates) }

func testConcurrentUpdates(t *testing.T, ad chunkedAdapter) {
	const name = "race"
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	for _, tc := range []struct{ writers, chunks int }{{2, 1}, {2, 3}, {4, 5}} {
		t.Run(fmt.Sprintf("%d-writers/%d-chunks", tc.writers, tc.chunks), func(t *testing.T) {
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, tc.chunks, faultChunkSize, 1))

			// Every writer has read the index before any of them writes it.
			var arrived sync.WaitGroup
			arrived.Add(tc.writers)
			allRead := make(chan struct{})
			go func() { arrived.Wait(); close(allRead) }()
			barrier := func(_ int, method, n string) {
				if method == "update" && n == k {
					arrived.Done()
					select {
					case <-allRead:
					case <-time.After(20 * time.Second):
					}
				}
			}

			wants := make([]*release.Release, tc.writers)
			errs := make([]error, tc.writers)
			var wg sync.WaitGroup
			for i := range tc.writers {
				wants[i] = releaseOfChunks(t, name, 1, release.StatusSuperseded, tc.chunks, faultChunkSize, uint64(10+i))
				fc := newFaultClient(secrets)
				fc.hook = barrier
				d := ad.new(fc, testOwner, cfg)
				wg.Go(func() { errs[i] = d.Update(k, wants[i]) })
			}
			wg.Wait()

			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner >= 0:
					t.Fatalf("writers %d and %d both won", winner, i)
				case err == nil:
					winner = i
				case !errors.Is(err, storage.ErrConflict):
					t.Fatalf("writer %d: got %v, want success or ErrConflict", i, err)
				}
			}
			if winner < 0 {
				t.Fatalf("no writer won: %v", errs)
			}
			mustBeOneOf(t, getOrNil(t, clean, k), wants[winner])
			if n := mustRemoveLeftovers(t, secrets, testOwner); n != 0 {
				t.Fatalf("the losing writers left %d chunk Secrets behind", n)
			}
			mustHoldOnly(t, secrets, k)
		})
	}
}

// TestConcurrentCreates: of writers creating one key at once, one succeeds and the
// others get driver.ErrReleaseExists itself.
func TestConcurrentCreates(t *testing.T) { forEachAdapter(t, testConcurrentCreates) }

func testConcurrentCreates(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	const writers = 4
	k := key("race", 1)
	errs := make([]error, writers)
	wants := make([]*release.Release, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wants[i] = releaseOfChunks(t, "race", 1, release.StatusDeployed, 3, faultChunkSize, uint64(i))
		d := ad.new(secrets, testOwner, cfg)
		wg.Go(func() { errs[i] = d.Create(k, wants[i]) })
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("creators %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case err != driver.ErrReleaseExists:
			t.Fatalf("creator %d: got %v, want success or driver.ErrReleaseExists", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no creator won: %v", errs)
	}
	mustBeOneOf(t, getOrNil(t, storage.NewDriver(secrets, testOwner, cfg), k), wants[winner])
	if n := mustRemoveLeftovers(t, secrets, testOwner); n != 0 {
		t.Fatalf("the losing creators left %d chunk Secrets behind", n)
	}
	mustHoldOnly(t, secrets, k)
}
