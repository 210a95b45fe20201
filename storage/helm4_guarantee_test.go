package storage_test

import (
	"errors"
	"testing"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	helmstorage "helm.sh/helm/v4/pkg/storage"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// Helm 4's driver held to the guarantees of the core through Helm 4's own storage
// layer, as Helm 4's actions use it, beside helm-operator-plugins' driver as the
// other writer.

// TestHelm4NoLostUpdateAfterReRead: Helm 4's upgrade reads the current release (Last),
// creates the next revision (with MaxHistory, Storage.Create reads the history
// again first), then writes back the value of its first read, superseded. A
// change another writer made between the first read and the re-read fails that
// write with storage.ErrConflict, and the other writer's record stays; a write of
// the value the re-read returned goes through.
func TestHelm4NoLostUpdateAfterReRead(t *testing.T) {
	const name = "reread"
	_, secrets := newNamespace(t)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: helm4Chunk})
	if err := orig.Create(key(name, 1), asHelm3(t, fullRelease(name, 1, common.StatusDeployed, helm4Size, 1))); err != nil {
		t.Fatal(err)
	}
	st := helmstorage.Init(helm4.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}))
	st.MaxHistory = 10
	last, err := st.Last(name) // the first read
	if err != nil {
		t.Fatal(err)
	}
	theirs := asHelm3(t, fullRelease(name, 1, common.StatusFailed, helm4Size, 2))
	if err := orig.Update(key(name, 1), theirs); err != nil { // another writer, in between
		t.Fatal(err)
	}
	if err := st.Create(fullRelease(name, 2, common.StatusPendingUpgrade, helm4Size, 3)); err != nil {
		t.Fatal(err)
	}
	current := last.(*rspb.Release)
	current.SetStatus(common.StatusSuperseded, "Superseded by 2")
	if err := st.Update(current); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update of the value read before another writer's change: %v, want storage.ErrConflict", err)
	}
	stayed, err := orig.Get(key(name, 1))
	if err != nil {
		t.Fatal(err)
	}
	mustSameHelm3(t, "the other writer's record", theirs, stayed)
	reread, err := st.Get(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := reread.(*rspb.Release)
	r.SetStatus(common.StatusSuperseded, "Superseded by 2")
	if err := st.Update(r); err != nil {
		t.Fatalf("update of the value read after it: %v", err)
	}
}

// TestHelm4ExpectThroughHelmStorage: a driver held to a plan, under Helm 4's storage,
// reads the history and writes a rollback's records (a new revision, the one
// before superseded) while the release is as planned; once another writer has
// changed a planned record, the history read and the update both fail with
// storage.ErrConflict, and nothing is written.
func TestHelm4ExpectThroughHelmStorage(t *testing.T) {
	const name = "planned"
	cfg := storage.ChunkedSecretsConfig{ChunkSize: helm4Chunk}
	setup := func(t *testing.T) (*helm4.ChunkedSecrets, map[string]string) {
		_, secrets := newNamespace(t)
		d := helm4.NewDriver(secrets, testOwner, cfg)
		plan := map[string]string{}
		for rev := 1; rev <= 2; rev++ {
			if err := d.Create(key(name, rev), fullRelease(name, rev, common.StatusSuperseded, helm4Size, uint64(rev))); err != nil {
				t.Fatal(err)
			}
			idx, err := d.ReadIndex(t.Context(), key(name, rev))
			if err != nil {
				t.Fatal(err)
			}
			plan[key(name, rev)] = idx.ResourceVersion
		}
		return d, plan
	}
	t.Run("as-planned", func(t *testing.T) {
		d, plan := setup(t)
		st := helmstorage.Init(d.Expect(name, plan))
		h, err := st.History(name)
		if err != nil || len(h) != 2 {
			t.Fatalf("history: %d, %v", len(h), err)
		}
		if err := st.Create(fullRelease(name, 3, common.StatusDeployed, helm4Size, 3)); err != nil {
			t.Fatal(err)
		}
		prev := h[1].(*rspb.Release)
		if prev.Version != 2 {
			prev = h[0].(*rspb.Release)
		}
		prev.SetStatus(common.StatusSuperseded, "Superseded by 3")
		if err := st.Update(prev); err != nil {
			t.Fatalf("update by the pinned driver: %v", err)
		}
		if h, err := st.History(name); err != nil || len(h) != 3 {
			t.Fatalf("history after its own writes: %d, %v", len(h), err)
		}
	})
	t.Run("moved-on", func(t *testing.T) {
		d, plan := setup(t)
		orig := hopstorage.NewChunkedSecrets(d.Client(), testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: helm4Chunk})
		if err := orig.Update(key(name, 2), asHelm3(t, fullRelease(name, 2, common.StatusFailed, helm4Size, 9))); err != nil {
			t.Fatal(err)
		}
		st := helmstorage.Init(d.Expect(name, plan))
		if _, err := st.History(name); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("history after a planned record changed: %v, want storage.ErrConflict", err)
		}
		before, err := d.ReadIndex(t.Context(), key(name, 2))
		if err != nil {
			t.Fatal(err)
		}
		err = st.Update(fullRelease(name, 2, common.StatusSuperseded, helm4Size, 10))
		if !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("update of a record changed since the plan: %v, want storage.ErrConflict", err)
		}
		after, err := d.ReadIndex(t.Context(), key(name, 2))
		if err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Fatalf("the refused update wrote the record (resourceVersion %s, was %s)", after.ResourceVersion, before.ResourceVersion)
		}
	})
}
