package ops_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// afterList returns a hook that runs do right after Helm's nth listing of release
// name's whole history (Storage.Last and Storage.History; not the "deployed"
// query), and the flag that says it ran.
func afterList(name string, nth int, do func()) (func(verb, arg string), *atomic.Bool) {
	var n atomic.Int32
	var fired atomic.Bool
	return func(verb, arg string) {
		if verb != "list" || !strings.Contains(arg, "name="+name) || strings.Contains(arg, "status=") {
			return
		}
		if int(n.Add(1)) == nth {
			fired.Store(true)
			do()
		}
	}, &fired
}

// TestPinRollbackChangedBetweenReads: Helm's rollback lists the history twice
// (Last, then History) and then reads the revision it rolls back to alone. A
// change another writer makes between those reads stops it with ErrConflict,
// having written nothing:
//   - the revision rolled back to rewritten after the second listing is met by
//     the read of that revision alone (Get), whose resourceVersion is not the
//     plan's; unpinned, Helm would copy the other writer's content into the new
//     revision;
//   - a revision added after the first listing is met by the second, and the
//     refusal says it was added.
func TestPinRollbackChangedBetweenReads(t *testing.T) {
	for _, st := range helmStores {
		t.Run(st.name+"/target rewritten", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			other := st.driver(otherClient(t), ns, nil, nil)
			hook, fired := afterList(name, 2, func() { rewrite(t, other, name, 1, release.StatusFailed) })

			err := rollbackTo(st.driver(cluster.Client, ns, p, hook), name, 1)
			if !fired.Load() {
				t.Fatal("Helm's rollback listed the history fewer than twice: the other writer never wrote")
			}
			t.Logf("refused: %s", mustErrIs(t, err, storage.ErrConflict))
			wantWritten(t, p)
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusFailed, 2: release.StatusSuperseded, 3: release.StatusDeployed})
		})
		t.Run(st.name+"/revision added", func(t *testing.T) {
			ns, name := cluster.Namespace(t), "web"
			seedHelm(t, st, ns, name)
			p := ops.NewPins(name, helmRecords(t, st, ns, name))
			other := st.driver(otherClient(t), ns, nil, nil)
			hook, fired := afterList(name, 1, func() {
				r := makeRelease(name, ns, 4, release.StatusPendingUpgrade, 0)
				r.Info.Description = foreignDescription
				if err := other.Create(storage.RecordKey(name, 4), r); err != nil {
					t.Errorf("other writer: create revision 4: %v", err)
				}
			})

			err := rollbackTo(st.driver(cluster.Client, ns, p, hook), name, 1)
			if !fired.Load() {
				t.Fatal("Helm's rollback never listed the history: the other writer never wrote")
			}
			// The refusal names the change as it was: an added revision, not a
			// rewritten one.
			if msg := mustErrIs(t, err, storage.ErrConflict); !strings.Contains(msg, "revision 4 was added") {
				t.Errorf("the refusal does not say revision 4 was added: %s", msg)
			}
			wantWritten(t, p)
			got := readBack(t, st, ns, name)
			wantStatus(t, got, map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusDeployed, 4: release.StatusPendingUpgrade})
		})
	}
}
