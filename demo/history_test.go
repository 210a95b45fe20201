package demo

import (
	"context"
	"reflect"
	"testing"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// TestSeedWritesWhatTheReplayWrites: Seed, which writes each revision once as
// its history leaves it, leaves the records that sending every write of each
// history to the drivers leaves, as Helm sends them (the replay): the same
// objects, labels (the times of writing aside), annotations and bytes, in every
// store, damage and orphan included. The chunks' names are hashes of their
// bytes, so a release compressed otherwise would show here.
func TestSeedWritesWhatTheReplayWrites(t *testing.T) {
	ctx := context.Background()
	once, replayed := fakeapi.NewCluster(), fakeapi.NewCluster()
	f, err := Seed(ctx, once, SeedOptions{Now: seedNow})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Seed(ctx, replayed, SeedOptions{Now: seedNow, replay: true})
	if err != nil {
		t.Fatal(err)
	}
	got, want := records(t, once), records(t, replayed)
	if len(got) != len(want) {
		t.Errorf("%d records, the replay %d", len(got), len(want))
	}
	for k, w := range want {
		if gv, ok := got[k]; !ok {
			t.Errorf("%s: missing", k)
		} else if !reflect.DeepEqual(gv, w) {
			t.Errorf("%s differs from the replay's", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: not in the replay", k)
		}
	}
	for i, r := range f.Releases {
		for j, rev := range r.Revisions {
			w := g.Releases[i].Revisions[j]
			if rev.Chunks != w.Chunks || rev.StoredBytes != w.StoredBytes || rev.Status != w.Status || rev.DamagedSecret != w.DamagedSecret {
				t.Errorf("%s revision %d: %+v, the replay %+v", r.Name, rev.Revision, rev, w)
			}
		}
	}
}
