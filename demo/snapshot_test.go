package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// snapOpts are the samples these tests snapshot: two, one with damage, one
// in Helm's own store, so that a seed costs little.
var snapOpts = SeedOptions{Only: []string{"podinfo", "ledger", RedisRelease}}

// fixedAt is a base clock that stays at t.
func fixedAt(t time.Time) func() time.Time { return func() time.Time { return t } }

var snapT0 = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

// objectsOf is every object c serves, as JSON by resource, for comparing two
// clusters through their API.
func objectsOf(t *testing.T, c *fakeapi.Cluster) map[string]string {
	t.Helper()
	_, lists, err := c.Clientset().Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			gvr := mustGVR(t, l.GroupVersion, r.Name)
			items, err := c.Dynamic().Resource(gvr).List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list %s: %v", gvr, err)
			}
			b, _ := json.Marshal(items.Items)
			out[gvr.String()] = string(b)
		}
	}
	return out
}

// TestSnapshotStartsTheSameCluster: the first Start seeds and keeps a
// snapshot; the next reads it back, and holds the same objects (records, live
// objects, controllers, uids and resourceVersions included), with a clock
// that starts at the moment the snapshot was made.
func TestSnapshotStartsTheSameCluster(t *testing.T) {
	s := Snapshots{Dir: t.TempDir(), Key: "build-1"}
	first, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0))
	if err != nil {
		t.Fatal(err)
	}
	if first.Restored || !first.Clock.Now().Equal(snapT0) {
		t.Fatalf("first start: restored %v, clock %v", first.Restored, first.Clock.Now())
	}
	// The chunked records are dated by the demo's clock too: created when
	// their revision was deployed, before the demo started; their labels say
	// when the demo wrote them.
	secrets := first.Cluster.Clientset().CoreV1().Secrets("demo")
	idx, err := secrets.Get(t.Context(), "sh.helm.release.v1.podinfo.v4", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rls, err := storage.NewDriver(secrets, storage.HelmOwner, storage.ChunkedSecretsConfig{}).Get("sh.helm.release.v1.podinfo.v4")
	if err != nil {
		t.Fatal(err)
	}
	deployed := rls.Info.LastDeployed.Time
	if got, want := idx.Labels[storage.LabelCreatedAt], fmt.Sprint(snapT0.Unix()); got != want || !idx.CreationTimestamp.Time.Equal(deployed) || !deployed.Before(snapT0) {
		t.Errorf("podinfo's index: createdAt %s, created %v; want %s, and %v, when revision 4 was deployed, before %v", got, idx.CreationTimestamp.Time, want, deployed, snapT0)
	}
	later := snapT0.Add(5 * time.Hour)
	second, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(later))
	if err != nil {
		t.Fatal(err)
	}
	if !second.Restored {
		t.Fatal("the second start did not read the snapshot")
	}
	if got := second.Clock.Now(); !got.Equal(snapT0) {
		t.Errorf("the restored demo's clock reads %v, want the snapshot's moment %v", got, snapT0)
	}
	want, got := objectsOf(t, first.Cluster), objectsOf(t, second.Cluster)
	if len(want) == 0 {
		t.Fatal("nothing served")
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s differs after the restore:\n%.400s\nwant\n%.400s", k, got[k], w)
		}
	}
	// What the demo writes from now on is dated by its clock.
	cm, err := second.Cluster.Clientset().CoreV1().ConfigMaps("demo").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !cm.CreationTimestamp.Time.Equal(snapT0) {
		t.Errorf("created at %v on the restored demo, want its clock's %v", cm.CreationTimestamp.Time, snapT0)
	}
}

// TestClockMovesFromTheSnapshot: the demo's clock is the snapshot's moment
// plus the time since the demo started, whatever the time now.
func TestClockMovesFromTheSnapshot(t *testing.T) {
	base := snapT0.Add(7 * time.Hour)
	c := NewClock(snapT0, func() time.Time { return base })
	base = base.Add(90 * time.Second)
	if got := c.Now(); !got.Equal(snapT0.Add(90 * time.Second)) {
		t.Errorf("clock: %v, want %v", got, snapT0.Add(90*time.Second))
	}
	if !c.Made().Equal(snapT0) {
		t.Errorf("made: %v", c.Made())
	}
}

// TestSnapshotNotReused: a snapshot is read only by the build and the seed
// options it was made with, and for SnapshotMaxAge; otherwise the demo seeds
// again (and keeps the new snapshot).
func TestSnapshotNotReused(t *testing.T) {
	dir := t.TempDir()
	s := Snapshots{Dir: dir, Key: "build-1"}
	if _, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Open("demo", snapOpts, fixedAt(snapT0.Add(time.Hour))); !ok {
		t.Fatal("the snapshot just made is not read")
	}
	other := Snapshots{Dir: dir, Key: "build-2"}
	if _, ok := other.Open("demo", snapOpts, fixedAt(snapT0)); ok {
		t.Error("a snapshot of another build was read")
	}
	intact := snapOpts
	intact.Intact = true
	if _, ok := s.Open("demo", intact, fixedAt(snapT0)); ok {
		t.Error("a snapshot with damage was read for an intact demo")
	}
	fewer := SeedOptions{Only: []string{"podinfo"}}
	if _, ok := s.Open("demo", fewer, fixedAt(snapT0)); ok {
		t.Error("a snapshot of other samples was read")
	}
	if _, ok := s.Open("demo", snapOpts, fixedAt(snapT0.Add(SnapshotMaxAge))); ok {
		t.Error("a snapshot older than SnapshotMaxAge was read")
	}
	// A file of another key under this key's name (a hash collision, a
	// copy) is not read either: the key inside is checked.
	b := Snapshots{Dir: dir, Key: "build-2"}
	if err := os.Rename(s.path("demo", s.fileKey("demo", snapOpts)), b.path("demo", b.fileKey("demo", snapOpts))); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Open("demo", snapOpts, fixedAt(snapT0)); ok {
		t.Error("a file holding another key's snapshot was read")
	}
	st, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0.Add(25*time.Hour)))
	if err != nil || st.Restored {
		t.Fatalf("start past the age: restored %v, %v", st != nil && st.Restored, err)
	}
	if _, ok := s.Open("demo", snapOpts, fixedAt(snapT0.Add(26*time.Hour))); !ok {
		t.Error("the snapshot made again is not read")
	}
}

// TestCorruptSnapshotRebuilt: a snapshot file that is cut short, changed or
// not a snapshot at all is not read, never fatal, and is made again.
func TestCorruptSnapshotRebuilt(t *testing.T) {
	s := Snapshots{Dir: t.TempDir(), Key: "build-1"}
	if _, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0)); err != nil {
		t.Fatal(err)
	}
	path := s.path("demo", s.fileKey("demo", snapOpts))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte{}, good...)
	flipped[len(flipped)/2] ^= 0x40
	for name, bad := range map[string][]byte{"cut": good[:len(good)/2], "flipped": flipped, "garbage": []byte("not a snapshot"), "empty": nil} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Restored {
			t.Errorf("%s: the damaged snapshot was read", name)
		}
		if _, ok := s.Open("demo", snapOpts, fixedAt(snapT0)); !ok {
			t.Errorf("%s: the snapshot was not made again", name)
		}
	}
}

// TestSnapshotConcurrentFirstUse: two demos starting together on an empty
// cache both start, and leave one whole snapshot and no temporary file.
func TestSnapshotConcurrentFirstUse(t *testing.T) {
	s := Snapshots{Dir: t.TempDir(), Key: "build-1"}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.Start(t.Context(), "demo", snapOpts, fixedAt(snapT0))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("start %d: %v", i, err)
		}
	}
	if _, ok := s.Open("demo", snapOpts, fixedAt(snapT0)); !ok {
		t.Error("no snapshot after two first uses")
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestSnapshotWriteIsAtomic: a demo starting while another writes the
// snapshot reads the old one or the new one, never part of one.
func TestSnapshotWriteIsAtomic(t *testing.T) {
	s := Snapshots{Dir: t.TempDir(), Key: "build-1"}
	st, err := s.Start(t.Context(), "demo", SeedOptions{Only: []string{"ledger", "web-frontend"}}, fixedAt(snapT0))
	if err != nil {
		t.Fatal(err)
	}
	key := s.fileKey("demo", SeedOptions{Only: []string{"ledger", "web-frontend"}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 40 {
			if err := s.write("demo", key, snapT0, st.Cluster); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads, failed := 0, 0
	for {
		select {
		case <-done:
			if failed > 0 {
				t.Errorf("%d of %d reads during the writes found no whole snapshot", failed, reads)
			}
			return
		default:
		}
		if _, _, ok := s.read("demo", key, snapT0); !ok {
			failed++
		}
		reads++
	}
}

// TestBuildKey: the key of the running binary is its Go build ID, as `go
// tool buildid` reads it, so that any change to the code makes another key.
func TestBuildKey(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid: %v", err)
	}
	want := "buildid:" + strings.TrimSpace(string(out))
	if got := BuildKey(); got != want || len(want) < 20 {
		t.Errorf("BuildKey() = %q, want %q", got, want)
	}
	if got := DefaultSnapshots(func(string) string { return "off" }); got.Dir != "" {
		t.Errorf("off: %+v", got)
	}
	dir := filepath.Join(t.TempDir(), "c")
	if got := DefaultSnapshots(func(string) string { return dir }); got.Dir != dir || got.Key != want {
		t.Errorf("dir: %+v", got)
	}
}

func mustGVR(t *testing.T, groupVersion, resource string) schema.GroupVersionResource {
	t.Helper()
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return gv.WithResource(resource)
}
