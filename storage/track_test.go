package storage_test

import (
	"errors"
	"testing"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// TestNoLostUpdate: a driver that read a record (Get, List or Query) and then
// updates or deletes it fails with ErrConflict when another writer — the original
// driver — changed the record in between, and the other writer's record stays.
func TestNoLostUpdate(t *testing.T) { forEachAdapter(t, testNoLostUpdate) }

func testNoLostUpdate(t *testing.T, ad chunkedAdapter) {
	const name = "lost"
	k := key(name, 1)
	reads := map[string]func(d chunkedDriver) error{
		"get":  func(d chunkedDriver) error { _, err := d.Get(k); return err },
		"list": func(d chunkedDriver) error { _, err := d.List(nil); return err },
		"query": func(d chunkedDriver) error {
			_, err := d.Query(map[string]string{"name": name, "owner": "helm"})
			return err
		},
	}
	for readName, read := range reads {
		for _, op := range []string{"update", "delete"} {
			t.Run(readName+"/"+op, func(t *testing.T) {
				_, secrets := newNamespace(t)
				orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
				cv := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
				mustCreate(t, orig, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
				if err := read(cv); err != nil {
					t.Fatal(err)
				}
				theirs := releaseOfChunks(t, name, 1, release.StatusFailed, 3, faultChunkSize, 2)
				if err := orig.Update(k, theirs); err != nil {
					t.Fatal(err)
				}
				var err error
				switch op {
				case "update":
					err = cv.Update(k, releaseOfChunks(t, name, 1, release.StatusSuperseded, 3, faultChunkSize, 3))
				case "delete":
					_, err = cv.Delete(k)
				}
				if !errors.Is(err, storage.ErrConflict) {
					t.Fatalf("%s after %s and a write by the original driver: %v, want ErrConflict", op, readName, err)
				}
				// The other writer's record stays, and reads through both drivers.
				for _, d := range []driver.Driver{orig, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{})} {
					got, err := d.Get(k)
					if err != nil {
						t.Fatalf("%s: %v", d.Name(), err)
					}
					mustBeOneOf(t, got, theirs)
				}
			})
		}
	}
}

// TestConflictAfterDeleteByOther: a record read, then deleted by the original
// driver, is not written again by an update.
func TestConflictAfterDeleteByOther(t *testing.T) { forEachAdapter(t, testConflictAfterDeleteByOther) }

func testConflictAfterDeleteByOther(t *testing.T, ad chunkedAdapter) {
	const name = "gone"
	k := key(name, 1)
	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	cv := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, cv, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
	if _, err := cv.Get(k); err != nil {
		t.Fatal(err)
	}
	if _, err := orig.Delete(k); err != nil {
		t.Fatal(err)
	}
	err := cv.Update(k, releaseOfChunks(t, name, 1, release.StatusSuperseded, 3, faultChunkSize, 2))
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update of a record deleted since it was read: %v, want ErrConflict", err)
	}
	mustHoldOnly(t, secrets)
}

// TestUpdateWithoutRead: a driver that never read the key updates it as Helm
// expects, whoever wrote it last; and its own successive writes never conflict.
func TestUpdateWithoutRead(t *testing.T) { forEachAdapter(t, testUpdateWithoutRead) }

func testUpdateWithoutRead(t *testing.T, ad chunkedAdapter) {
	const name = "fresh"
	k := key(name, 1)
	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, orig, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
	if err := orig.Update(k, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 2)); err != nil {
		t.Fatal(err)
	}
	cv := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	steps := []*release.Release{
		releaseOfChunks(t, name, 1, release.StatusSuperseded, 3, faultChunkSize, 3),
		releaseOfChunks(t, name, 1, release.StatusFailed, 4, faultChunkSize, 4),
		releaseOfChunks(t, name, 1, release.StatusSuperseded, 2, faultChunkSize, 5),
	}
	for i, rls := range steps {
		if err := cv.Update(k, rls); err != nil {
			t.Fatalf("update %d by the same driver: %v", i+1, err)
		}
	}
	if _, err := cv.Delete(k); err != nil {
		t.Fatalf("delete after its own updates: %v", err)
	}
	k2 := key(name, 2)
	mustCreate(t, cv, releaseOfChunks(t, name, 2, release.StatusDeployed, 3, faultChunkSize, 6))
	if err := cv.Update(k2, releaseOfChunks(t, name, 2, release.StatusSuperseded, 3, faultChunkSize, 7)); err != nil {
		t.Fatalf("update after its own create: %v", err)
	}
	got, err := orig.Get(k2)
	if err != nil {
		t.Fatal(err)
	}
	mustBeOneOf(t, got, releaseOfChunks(t, name, 2, release.StatusSuperseded, 3, faultChunkSize, 7))
}

// TestExpect: a driver held to a plan refuses to act on a release that moved on
// since the plan was made — a record changed, one added, one deleted — and follows
// its own writes.
func TestExpect(t *testing.T) { forEachAdapter(t, testExpect) }

func testExpect(t *testing.T, ad chunkedAdapter) {
	const name = "planned"
	setup := func(t *testing.T) (chunkedDriver, driver.Driver, map[string]string) {
		_, secrets := newNamespace(t)
		cv := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
		orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
		plan := map[string]string{}
		for rev := 1; rev <= 2; rev++ {
			mustCreate(t, cv, releaseOfChunks(t, name, rev, release.StatusSuperseded, 2, faultChunkSize, uint64(rev)))
			idx, err := cv.ReadIndex(t.Context(), key(name, rev))
			if err != nil {
				t.Fatal(err)
			}
			plan[key(name, rev)] = idx.ResourceVersion
		}
		return cv, orig, plan
	}
	history := func(d chunkedDriver) error {
		_, err := d.Query(map[string]string{"name": name, "owner": "helm"})
		return err
	}
	moves := map[string]func(t *testing.T, orig driver.Driver){
		"changed": func(t *testing.T, orig driver.Driver) {
			if err := orig.Update(key(name, 2), releaseOfChunks(t, name, 2, release.StatusFailed, 2, faultChunkSize, 9)); err != nil {
				t.Fatal(err)
			}
		},
		"added": func(t *testing.T, orig driver.Driver) {
			mustCreate(t, orig, releaseOfChunks(t, name, 3, release.StatusDeployed, 2, faultChunkSize, 9))
		},
		"deleted": func(t *testing.T, orig driver.Driver) {
			if _, err := orig.Delete(key(name, 1)); err != nil {
				t.Fatal(err)
			}
		},
	}
	for what, move := range moves {
		t.Run(what, func(t *testing.T) {
			cv, orig, plan := setup(t)
			pinned := cv.Expect(name, plan)
			if err := history(pinned); err != nil {
				t.Fatalf("history before the release moved: %v", err)
			}
			move(t, orig)
			pinned = cv.Expect(name, plan)
			if err := history(pinned); !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("history after a record was %s: %v, want ErrConflict", what, err)
			}
			if _, err := pinned.List(nil); !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("list after a record was %s: %v, want ErrConflict", what, err)
			}
			err := pinned.Update(key(name, 2), releaseOfChunks(t, name, 2, release.StatusDeployed, 2, faultChunkSize, 10))
			if what == "changed" && !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("update of a record changed since the plan: %v, want ErrConflict", err)
			}
		})
	}
	t.Run("own-writes", func(t *testing.T) {
		cv, _, plan := setup(t)
		pinned := cv.Expect(name, plan)
		if err := history(pinned); err != nil {
			t.Fatal(err)
		}
		// A rollback's writes: a new revision, then the old one superseded, then a
		// read of the whole history.
		mustCreate(t, pinned, releaseOfChunks(t, name, 3, release.StatusDeployed, 2, faultChunkSize, 11))
		if err := pinned.Update(key(name, 2), releaseOfChunks(t, name, 2, release.StatusSuperseded, 3, faultChunkSize, 12)); err != nil {
			t.Fatalf("update by the pinned driver: %v", err)
		}
		if err := history(pinned); err != nil {
			t.Fatalf("history after its own writes: %v", err)
		}
		if _, err := pinned.Delete(key(name, 1)); err != nil {
			t.Fatalf("delete by the pinned driver: %v", err)
		}
		if err := history(pinned); err != nil {
			t.Fatalf("history after its own delete: %v", err)
		}
	})
}

// TestNoLostUpdateAfterReRead: Helm's upgrade reads the current release (Last),
// creates the next revision (with MaxHistory, Storage.Create re-reads the history
// first), then writes back the value of its first read, marked superseded. A
// change another writer made between the first read and the re-read must fail that
// write; a write of the value the re-read returned goes through.
func TestNoLostUpdateAfterReRead(t *testing.T) {
	const name = "reread"
	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, orig, releaseOfChunks(t, name, 1, release.StatusDeployed, 2, faultChunkSize, 1))
	cv := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	st := helmstorage.Init(cv)
	st.MaxHistory = 10
	current, err := st.Last(name) // first read
	if err != nil {
		t.Fatal(err)
	}
	theirs := releaseOfChunks(t, name, 1, release.StatusFailed, 2, faultChunkSize, 2)
	if err := orig.Update(key(name, 1), theirs); err != nil { // another writer, in between
		t.Fatal(err)
	}
	if err := st.Create(releaseOfChunks(t, name, 2, release.StatusPendingUpgrade, 2, faultChunkSize, 3)); err != nil {
		t.Fatal(err)
	}
	current.Info.Status = release.StatusSuperseded
	err = st.Update(current)
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update of the value read before another writer's change: %v, want ErrConflict", err)
	}
	reread, err := st.Get(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	mustBeOneOf(t, reread, theirs)
	reread.Info.Status = release.StatusSuperseded
	if err := st.Update(reread); err != nil {
		t.Fatalf("update of the value read after it: %v", err)
	}
}
