package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// webRow returns the release list's row of web.
func webRow(h *harness) kube.ReleaseRow {
	for _, it := range h.m.stack[0].(*releases.Screen).Items {
		if it.Row.Latest.Name == "web" {
			return it.Row
		}
	}
	return kube.ReleaseRow{}
}

// reloads counts the release lists the program asked for since the trace was
// cleared.
func reloads(h *harness) int {
	n := 0
	for _, m := range h.trace {
		if m == "releases.LoadedMsg" {
			n++
		}
	}
	return n
}

// TestLiveRowsFollowTheWatch: with the live view on, a revision written by
// another writer, its status change and the deletion of the latest reach the
// list through the watch, without a key press and without listing again; a
// resync lists again.
func TestLiveRowsFollowTheWatch(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.client, Options{Watch: true}, 120, 40)
	h.contains("● LIVE", "web")
	if got := webRow(h); got.Latest.Revision != 4 || got.Revisions != 4 {
		t.Fatalf("web before: %+v", got)
	}
	h.trace = nil
	drv := storage.NewDriver(f.cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
	rel := webRelease(5, release.StatusPendingUpgrade)
	if err := drv.Create(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	h.waitLive("web revision 5", func() bool { return webRow(h).Latest.Revision == 5 })
	if got := webRow(h); got.Revisions != 5 || got.Latest.Status != "pending-upgrade" {
		t.Errorf("web after the write: %d revisions, %s", got.Revisions, got.Latest.Status)
	}
	h.contains("pending-upgrade")

	rel.Info.Status = release.StatusDeployed
	if err := drv.Update(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	h.waitLive("web revision 5 deployed", func() bool { return webRow(h).Latest.Status == "deployed" })
	if got := webRow(h); got.Revisions != 5 {
		t.Errorf("a status change counted as a revision: %d", got.Revisions)
	}

	if _, err := drv.Delete(storage.RecordKey("web", 5)); err != nil {
		t.Fatal(err)
	}
	h.waitLive("web back at revision 4", func() bool { return webRow(h).Latest.Revision == 4 })
	if got := webRow(h); got.Revisions != 4 {
		t.Errorf("web after the delete: %+v", got)
	}
	if n := reloads(h); n != 0 {
		t.Errorf("the list was read again %d times; trace %v", n, h.trace)
	}

	// A resync (the watch fell behind) lists again.
	h.send(common.LiveMsg{Gen: h.m.liveGen, Ev: kube.WatchEvent{Type: kube.WatchSynced}})
	if n := reloads(h); n != 1 {
		t.Errorf("a resync listed %d times", n)
	}
	// An event of an earlier watch is dropped.
	h.trace = nil
	h.send(common.LiveMsg{Gen: h.m.liveGen - 1, Ev: kube.WatchEvent{Type: kube.WatchSynced}})
	if n := reloads(h); n != 0 {
		t.Error("a stale watch's event listed again")
	}
}

// TestLiveFedEvents: events fed to Update change the rows directly, a new
// release appears, and w switches the live view off and on.
func TestLiveFedEvents(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.client, Options{Watch: true}, 120, 40)
	web := webRow(h).Latest
	h.trace = nil
	gen := h.m.liveGen
	// A status change read from metadata alone, as a Helm record's is: no
	// summary, and the time of the change as its modifiedAt.
	changed := web
	changed.Status, changed.ResourceVersion = "pending-rollback", "999999"
	changed.Known, changed.Summary, changed.Updated = false, storage.Summary{}, time.Now()
	h.send(common.LiveMsg{Gen: gen, Ev: kube.WatchEvent{Type: kube.WatchChanged, Row: changed}})
	got := webRow(h).Latest
	if got.Status != "pending-rollback" {
		t.Errorf("status %q", got.Status)
	}
	if !got.Known || got.Summary.Chart != web.Summary.Chart || !got.Updated.Equal(web.Updated) {
		t.Errorf("a status change lost the row's chart or age: %+v, was %+v", got, web)
	}
	fresh := kube.RevisionRow{Driver: kube.DriverChunked, StorageNamespace: "default", Name: "brand-new", Revision: 1, Status: "pending-install", Key: storage.RecordKey("brand-new", 1), ResourceVersion: "1000000"}
	h.send(common.LiveMsg{Gen: gen, Ev: kube.WatchEvent{Type: kube.WatchChanged, Row: fresh, New: true}})
	h.contains("brand-new")
	if n := reloads(h); n != 0 {
		t.Errorf("fed events listed %d times", n)
	}

	h.send(common.LiveMsg{Gen: gen, Ev: kube.WatchEvent{Type: kube.WatchMode, Note: "the configmap store is not followed: forbidden"}})
	h.contains("● LIVE", "Live, except: the configmap store is not followed").lacks("POLL")

	h.send(common.LiveMsg{Gen: gen, Ev: kube.WatchEvent{Type: kube.WatchMode, Polling: true, Note: "watching secrets was refused (403 Forbidden): listing them every 5s instead"}})
	h.contains("POLL", "Polling: watching secrets was refused").lacks("● LIVE")

	h.press("w").lacks("● LIVE", "POLL")
	h.trace = nil
	h.press("w")
	h.contains("● LIVE")
	if n := reloads(h); n != 1 {
		t.Errorf("switching the live view on listed %d times, want 1 (after the watch's list)", n)
	}
}

// TestLiveHistory: the open history takes a new revision and a status change
// of its release from the watch.
func TestLiveHistory(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.client, Options{Watch: true}, 120, 40)
	h.press("down", "down", "enter")
	hs, ok := h.top().(*history.Screen)
	if !ok || hs.Name != "web" {
		t.Fatalf("top %T", h.top())
	}
	drv := storage.NewDriver(f.cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
	rel := webRelease(5, release.StatusPendingUpgrade)
	if err := drv.Create(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	revs := func() []int {
		var out []int
		for _, r := range hs.Rows {
			out = append(out, r.Revision)
		}
		return out
	}
	h.waitLive("history revision 5", func() bool { return slices.Contains(revs(), 5) })
	if l := hs.Latest(); l.Status != "pending-upgrade" || hs.Selected().Revision != 5 {
		t.Errorf("latest %d %s, selected %d", l.Revision, l.Status, hs.Selected().Revision)
	}
	rel.Info.Status = release.StatusDeployed
	if err := drv.Update(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	h.waitLive("history revision 5 deployed", func() bool { return hs.Latest().Status == "deployed" })
	if !strings.Contains(h.screen(), "deployed") {
		t.Error(h.screen())
	}
}

// TestLiveClockTicks: with the live view on, the program gets a redraw tick every
// ageRefresh, so that AGE and every time since count up without a key press (a
// frame is drawn only after a message); the ticks stop with the live view.
func TestLiveClockTicks(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	now := testNow
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newHarness(t, f.client, Options{Watch: true, Now: clock}, 120, 40)
	h.contains("● LIVE", "web")
	ticks := func() int {
		n := 0
		for _, m := range h.trace {
			if m == "ui.clockMsg" {
				n++
			}
		}
		return n
	}
	mu.Lock()
	now = now.Add(3 * 24 * time.Hour)
	mu.Unlock()
	h.trace = nil
	h.waitLive("two redraw ticks", func() bool { return ticks() >= 2 })
	h.contains(" 4d ")
	h.press("w")
	h.contains("Live view off")
	// Past two ticks' time, no tick of the stopped live view arrives.
	quiet := time.After(2*ageRefresh + ageRefresh/2)
	for {
		select {
		case msg := <-h.async:
			if _, ok := msg.(clockMsg); ok {
				t.Fatal("a redraw tick arrived after the live view stopped")
			}
		case <-quiet:
			return
		}
	}
}
