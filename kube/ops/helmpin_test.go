package ops_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// These tests run Helm's own actions over Helm's own Secrets and ConfigMaps
// drivers, with chunkview's pins between the driver and the API server, against a
// real API server: its resourceVersion checks and delete preconditions are what the
// pins rely on.

// TestPinRollback: Helm's rollback through the pins, with nobody else writing,
// runs as it does unpinned: revision 4 restores revision 1 and is deployed, 3 is
// superseded, and the pins record exactly Helm's three writes, the second update of
// revision 4 included (its pin moved with the create).
func TestPinRollback(t *testing.T) {
	for _, st := range helmStores {
		t.Run(st.name, func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			if err := rollbackTo(st.driver(cluster.Client, ns, p, nil), name, 1); err != nil {
				t.Fatalf("rollback: %v", err)
			}
			if p.Conflicted() {
				t.Error("pins met a conflict with nobody else writing")
			}
			wantWritten(t, p, "revision 4 created", "revision 3 updated", "revision 4 updated")
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusSuperseded, 4: release.StatusDeployed})
			if r := got[4]; r != nil && (r.Info.Description != "Rollback to 1" || r.Config["replicaCount"] != float64(1)) {
				t.Errorf("revision 4 is %s and does not hold revision 1's values", describe(r))
			}
		})
	}
}

// TestPinRollbackOtherWriterBefore: another writer changes the release between the
// plan and the apply. Helm's first step is reading the history (Releases.Last, one
// listing), which the pins refuse: the action fails with storage.ErrConflict and
// Helm wrote nothing, so every record is at the resourceVersion the other writer
// left, and its change is intact.
func TestPinRollbackOtherWriterBefore(t *testing.T) {
	changes := []struct {
		name string
		do   func(t *testing.T, other driver.Driver, ns, name string)
		// want is the statuses after the refused rollback: the other writer's.
		want map[int]release.Status
	}{
		{"rewrites revision 3", func(t *testing.T, other driver.Driver, _, name string) {
			rewrite(t, other, name, 3, release.StatusFailed)
		}, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusFailed}},
		{"adds revision 4", func(t *testing.T, other driver.Driver, ns, name string) {
			r := makeRelease(name, ns, 4, release.StatusPendingUpgrade, 0)
			r.Info.Description = foreignDescription
			if err := other.Create(storage.RecordKey(name, 4), r); err != nil {
				t.Fatal(err)
			}
		}, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusDeployed, 4: release.StatusPendingUpgrade}},
		{"deletes revision 1", func(t *testing.T, other driver.Driver, _, name string) {
			if _, err := other.Delete(storage.RecordKey(name, 1)); err != nil {
				t.Fatal(err)
			}
		}, map[int]release.Status{2: release.StatusSuperseded, 3: release.StatusDeployed}},
	}
	for _, st := range helmStores {
		for _, ch := range changes {
			t.Run(st.name+"/"+ch.name, func(t *testing.T) {
				ns, name := cluster.Namespace(t), "web"
				seedHelm(t, st, ns, name)
				p := ops.NewPins(name, helmRecords(t, st, ns, name))
				ch.do(t, st.driver(otherClient(t), ns, nil, nil), ns, name)
				after := helmRecords(t, st, ns, name)

				err := rollbackTo(st.driver(cluster.Client, ns, p, nil), name, 1)
				t.Logf("refused: %s", mustErrIs(t, err, storage.ErrConflict))
				if !p.Conflicted() {
					t.Error("pins do not say they met a conflict")
				}
				wantWritten(t, p)
				if now := helmRecords(t, st, ns, name); !maps.Equal(now, after) {
					t.Errorf("records changed by a refused rollback:\n got %v\nwant %v", now, after)
				}
				wantStatus(t, readBack(t, st, ns, name), ch.want)
			})
		}
	}
}

// TestPinRollbackOtherWriterDuring: another writer rewrites revision 3 while Helm
// runs, at the two points where Helm reacts differently.
//
// Right after Helm created revision 4: Helm's next read (the "deployed" query)
// meets the change and the action fails with storage.ErrConflict. Helm had created
// revision 4, pending-rollback, and written nothing else; revision 3 is the other
// writer's.
//
// Right after that query returned, before Helm marks revision 3 superseded: the API
// server refuses the pinned update (409), and Helm only logs the failure of that
// write, goes on, marks revision 4 deployed and returns nil. The pins say a
// conflict was met, which is why callers must ask them; revision 3 is still the
// other writer's.
func TestPinRollbackOtherWriterDuring(t *testing.T) {
	for _, st := range helmStores {
		t.Run(st.name+"/after create", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			other := st.driver(otherClient(t), ns, nil, nil)
			hook := once("create", storage.RecordKey(name, 4), func() { rewrite(t, other, name, 3, release.StatusFailed) })

			err := rollbackTo(st.driver(cluster.Client, ns, p, hook), name, 1)
			mustErrIs(t, err, storage.ErrConflict)
			wantWritten(t, p, "revision 4 created")
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusFailed, 4: release.StatusPendingRollback})
			if r := got[3]; r != nil && r.Info.Description != foreignDescription {
				t.Errorf("revision 3: description %q, want the other writer's", r.Info.Description)
			}
		})
		t.Run(st.name+"/before supersede", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			other := st.driver(otherClient(t), ns, nil, nil)
			hook := once("list", "status=deployed", func() { rewrite(t, other, name, 3, release.StatusFailed) })

			if err := rollbackTo(st.driver(cluster.Client, ns, p, hook), name, 1); err != nil {
				t.Fatalf("rollback: %v (Helm was expected to ignore its failed status write)", err)
			}
			if !p.Conflicted() {
				t.Error("pins do not say they met a conflict; Helm swallowed it")
			}
			wantWritten(t, p, "revision 4 created", "revision 4 updated")
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusFailed, 4: release.StatusDeployed})
			if r := got[3]; r != nil && r.Info.Description != foreignDescription {
				t.Errorf("revision 3: description %q, want the other writer's", r.Info.Description)
			}
		})
	}
}

// TestPinUninstall: Helm's uninstall through the pins. Purging, Helm marks the
// latest revision uninstalling, then deletes every revision, the latest at the
// resourceVersion its own update left. Keeping history, it updates the latest twice
// (uninstalling, uninstalled) and leaves the others alone.
func TestPinUninstall(t *testing.T) {
	for _, st := range helmStores {
		t.Run(st.name+"/purge", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			if err := uninstall(st.driver(cluster.Client, ns, p, nil), name, false); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			wantWritten(t, p, "revision 3 updated", "revision 1 deleted", "revision 2 deleted", "revision 3 deleted")
			if now := helmRecords(t, st, ns, name); len(now) != 0 {
				t.Errorf("records left after a purge: %v", now)
			}
		})
		t.Run(st.name+"/keep history", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			before := helmRecords(t, st, ns, name)
			p := ops.NewPins(name, before)
			if err := uninstall(st.driver(cluster.Client, ns, p, nil), name, true); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if p.Conflicted() {
				t.Error("pins met a conflict with nobody else writing")
			}
			wantWritten(t, p, "revision 3 updated", "revision 3 updated")
			wantStatus(t, readBack(t, st, ns, name), map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusUninstalled})
			now := helmRecords(t, st, ns, name)
			for _, rev := range []int{1, 2} {
				if k := storage.RecordKey(name, rev); now[k] != before[k] {
					t.Errorf("revision %d was rewritten", rev)
				}
			}
		})
	}
}

// TestPinUninstallOtherWriter: a record changed since the plan stops the
// uninstall. Changed before the apply, Helm's history read is refused: the error
// wraps storage.ErrConflict and nothing was written. Changed after Helm marked the
// latest revision uninstalling (purging), the delete of the changed revision is
// refused at Helm's read before it; Helm flattens that error to text, so only the
// pins say a conflict was met. Helm had marked revision 3 uninstalling and deleted
// nothing (revision 1, the changed one, is its first delete).
func TestPinUninstallOtherWriter(t *testing.T) {
	for _, st := range helmStores {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/before/keep history %v", st.name, keep), func(t *testing.T) {
				ns, name := cluster.Namespace(t), "web"
				seedHelm(t, st, ns, name)
				p := ops.NewPins(name, helmRecords(t, st, ns, name))
				rewrite(t, st.driver(otherClient(t), ns, nil, nil), name, 2, release.StatusFailed)
				after := helmRecords(t, st, ns, name)

				mustErrIs(t, uninstall(st.driver(cluster.Client, ns, p, nil), name, keep), storage.ErrConflict)
				wantWritten(t, p)
				if now := helmRecords(t, st, ns, name); !maps.Equal(now, after) {
					t.Errorf("records changed by a refused uninstall:\n got %v\nwant %v", now, after)
				}
			})
		}
		t.Run(st.name+"/during purge", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			other := st.driver(otherClient(t), ns, nil, nil)
			hook := once("update", storage.RecordKey(name, 3), func() { rewrite(t, other, name, 1, release.StatusFailed) })

			err := uninstall(st.driver(cluster.Client, ns, p, hook), name, false)
			if err == nil {
				t.Fatal("uninstall succeeded over a changed record")
			}
			if !p.Conflicted() {
				t.Errorf("pins do not say they met a conflict (uninstall: %v)", err)
			}
			mustContain(t, err.Error(), storage.ErrConflict.Error())
			wantWritten(t, p, "revision 3 updated")
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusFailed, 2: release.StatusSuperseded, 3: release.StatusUninstalling})
			if r := got[1]; r != nil && r.Info.Description != foreignDescription {
				t.Errorf("revision 1: description %q, want the other writer's", r.Info.Description)
			}
		})
	}
}

// TestPinDeleteStale: deleting one record that changed since the plan is refused,
// both through Helm's driver (its read before the delete meets the change) and
// through the pinned client directly (the API server refuses the delete's
// resourceVersion precondition: the 409 is kept in the error). A record that did
// not change is deleted, and the pins drop it.
func TestPinDeleteStale(t *testing.T) {
	for _, st := range helmStores {
		t.Run(st.name, func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			rewrite(t, st.driver(otherClient(t), ns, nil, nil), name, 2, release.StatusFailed)
			key2 := storage.RecordKey(name, 2)

			_, err := st.driver(cluster.Client, ns, p, nil).Delete(key2)
			mustErrIs(t, err, storage.ErrConflict)

			var direct error
			switch st.resource {
			case "secrets":
				direct = ops.PinSecrets(cluster.Client.CoreV1().Secrets(ns), p).Delete(t.Context(), key2, metav1.DeleteOptions{})
			default:
				direct = ops.PinConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns), p).Delete(t.Context(), key2, metav1.DeleteOptions{})
			}
			t.Logf("refused: %s", mustErrIs(t, direct, storage.ErrConflict))
			if !apierrors.IsConflict(direct) {
				t.Errorf("direct delete: %v: want the API server's 409 kept", direct)
			}
			if r := readBack(t, st, ns, name)[2]; r == nil || r.Info.Description != foreignDescription {
				t.Errorf("revision 2 after refused deletes: %s, want the other writer's", describe(r))
			}

			if _, err := st.driver(cluster.Client, ns, p, nil).Delete(storage.RecordKey(name, 1)); err != nil {
				t.Fatalf("delete unchanged revision 1: %v", err)
			}
			wantWritten(t, p, "revision 1 deleted")
			wantStatus(t, readBack(t, st, ns, name), map[int]release.Status{2: release.StatusFailed, 3: release.StatusDeployed})
		})
	}
}

// TestPinRaceRollback: another writer rewrites revision 3 in a loop (Helm's own
// read-and-update, unconditional) while a pinned rollback runs; repeated with
// varying starts, for a few seconds at most. Whatever the interleaving:
//   - the rollback succeeds or fails with storage.ErrConflict;
//   - no update is lost: a pinned write of revision 3 can land only at the plan's
//     resourceVersion, before any of the other writer's, so each of the other
//     writer's reads finds its own last write, and revision 3 ends as its last
//     write;
//   - revision 4 is as the pins say Helm left it (absent, created pending, or
//     updated deployed), and there is never a revision 5.
//
// The race must happen: the other writer must land inside a rollback in some
// iteration (a conflict, returned or swallowed by Helm). The test runs at least 8
// iterations, and goes on, up to 100, until that has happened, then fails if it
// never did.
func TestPinRaceRollback(t *testing.T) {
	const least, most = 8, 100
	outcomes := map[string]int{}
	raced := func() bool { return outcomes["conflict"]+outcomes["succeeded, Helm ignored a conflict"] > 0 }
	// span is how long the last rollback took: the other writer starts at a random
	// point of it, so that its first write lands before, between and after each of
	// Helm's steps across the iterations.
	span := 5 * time.Millisecond
	for i := 0; i < most && (i < least || !raced()); i++ {
		st := helmStores[i%len(helmStores)]
		ns, name := cluster.Namespace(t), "web"
		seedHelm(t, st, ns, name)
		p := ops.NewPins(name, helmRecords(t, st, ns, name))
		other := st.driver(otherClient(t), ns, nil, nil)
		key3 := storage.RecordKey(name, 3)

		var stop atomic.Bool
		var wg sync.WaitGroup
		var writes, last int
		var otherErr error
		// overwritten is what the other writer found in place of its own last
		// write: the pinned rollback wrote over it.
		var overwritten string
		delay := rand.N(span)
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			for n := 1; !stop.Load(); n++ {
				r, err := other.Get(key3)
				if err == nil && n > 1 && r.Info.Description != fmt.Sprintf("other writer %d", n-1) && overwritten == "" {
					overwritten = describe(r)
				}
				if err == nil {
					r.Info.Description = fmt.Sprintf("other writer %d", n)
					err = other.Update(key3, r)
				}
				if err != nil {
					otherErr = err
					return
				}
				writes, last = writes+1, n
			}
		}()
		start := time.Now()
		err := rollbackTo(st.driver(cluster.Client, ns, p, nil), name, 1)
		span = time.Since(start)
		stop.Store(true)
		wg.Wait()
		if otherErr != nil {
			t.Fatalf("%s: other writer: %v", st.name, otherErr)
		}

		outcome := "succeeded"
		switch {
		case err != nil && !errors.Is(err, storage.ErrConflict):
			t.Fatalf("%s: rollback: %v, want success or storage.ErrConflict", st.name, err)
		case err != nil:
			outcome = "conflict"
		case p.Conflicted():
			outcome = "succeeded, Helm ignored a conflict"
		}
		outcomes[outcome]++

		if overwritten != "" {
			t.Errorf("%s (%s): the other writer found revision 3 %s in place of its last write: an update was lost", st.name, outcome, overwritten)
		}
		got := readBack(t, st, ns, name)
		if writes > 0 {
			if want := fmt.Sprintf("other writer %d", last); got[3] == nil || got[3].Info.Description != want {
				t.Errorf("%s (%s): revision 3 is %s, want the other writer's last write %q: an update was lost", st.name, outcome, describe(got[3]), want)
			}
		}
		written := p.Written()
		var want4 release.Status
		switch {
		case slices.Contains(written, "revision 4 updated"):
			want4 = release.StatusDeployed
		case slices.Contains(written, "revision 4 created"):
			want4 = release.StatusPendingRollback
		}
		switch r := got[4]; {
		case want4 == "" && r != nil:
			t.Errorf("%s: revision 4 exists (%s) but the pins record no write of it", st.name, r.Info.Status)
		case want4 != "" && (r == nil || r.Info.Status != want4):
			t.Errorf("%s: revision 4 is %s, want %s (pins wrote %q)", st.name, describe(r), want4, written)
		}
		if got[5] != nil {
			t.Errorf("%s: a revision 5 exists", st.name)
		}
	}
	t.Logf("outcomes: %v", outcomes)
	if !raced() {
		t.Fatalf("%d rollbacks and the other writer never landed inside one: %v", most, outcomes)
	}
}
