package ui

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
)

// TestLiveHeaderFollowsTheConnection: the header says LIVE while the watch is
// up; with the cluster off the network, OFFLINE with the time since the last
// contact, counting on at each redraw, and the rows stay; back on it with its first watch
// answered 500, RETRYING; then LIVE again, and the list is read again.
func TestLiveHeaderFollowsTheConnection(t *testing.T) {
	f := newFixture(t)
	var offset atomic.Int64
	now := func() time.Time { return testNow.Add(time.Duration(offset.Load())) }
	// One store, so that the state of the whole is that of its one watch.
	h := newHarness(t, f.client.WithDrivers(kube.DriverChunked), Options{Watch: true, Now: now}, 140, 40)
	h.contains("● LIVE", "web").lacks("OFFLINE", "RETRYING")
	gen := h.m.liveGen

	f.cluster.SetReachable(false)
	h.waitLive("offline", func() bool { return h.m.liveState == kube.WatchOffline })
	h.contains("OFFLINE · last contact 0s ago", "Offline, the rows are as last read. Cluster unreachable", "web").lacks("● LIVE")
	offset.Store(int64(42 * time.Second))
	h.send(clockMsg{gen: gen}) // the live view's redraw each second
	h.contains("OFFLINE · last contact 42s ago")

	h.trace = nil
	f.cluster.FailRequest(fakeapi.VerbWatch, 1, nil)
	f.cluster.SetReachable(true)
	h.waitLive("retrying", func() bool { return h.m.liveState == kube.WatchRetrying })
	h.contains("RETRYING · last contact 42s ago", "Retrying, the rows are as last read.", "the API server failed to watch secrets").lacks("● LIVE", "OFFLINE")
	if n := reloads(h); n != 0 {
		t.Errorf("listed %d times while the watch was down", n)
	}

	h.waitLive("up again", func() bool { return h.m.liveState == kube.WatchUp })
	h.contains("● LIVE", "Live again", "web").lacks("OFFLINE", "RETRYING")
	if n := reloads(h); n != 1 {
		t.Errorf("listed %d times once up again, want 1", n)
	}
}

// TestLiveBadgeShort: a narrow header keeps the state and the age, drops the
// words between.
func TestLiveBadgeShort(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.client, Options{Watch: true}, 120, 40)
	h.m.liveState, h.m.lastContact = kube.WatchRetrying, testNow.Add(-3*time.Minute)
	if got := plainScreen(h.m.liveBadge(true)); got != " RETRYING 3m\n" {
		t.Errorf("short badge %q", got)
	}
	h.m.liveState, h.m.lastContact = kube.WatchOffline, time.Time{}
	if got := plainScreen(h.m.liveBadge(false)); got != " OFFLINE · no contact yet\n" {
		t.Errorf("badge of a server never heard from %q", got)
	}
}

// TestSilentServerGivesUp: against a server that never answers, the TUI shows
// the spinner while it waits, then gives up with the request timeout the CLI
// has (no flag given), live view on or off, counting the seconds it waits: the list says the server did not
// answer within it, and the live header says OFFLINE, never heard from.
func TestSilentServerGivesUp(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(map[bool]string{true: "live", false: "still"}[watch], func(t *testing.T) {
			t.Parallel()
			o := kube.NewOptions()
			fs := pflag.NewFlagSet("chunkview", pflag.ContinueOnError)
			o.AddFlags(fs)
			kc, _ := kubetest.SilentKubeconfig(t)
			if err := fs.Parse([]string{"--kubeconfig", kc, "--cache-dir", t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			c, err := o.Connect()
			if err != nil {
				t.Fatal(err)
			}
			var offset atomic.Int64
			now := func() time.Time { return testNow.Add(time.Duration(offset.Load())) }
			h := startHarness(t, c, Options{Watch: watch, Now: now}, 200, 30)
			h.contains("loading").lacks("loading 0s")
			offset.Store(int64(3*time.Second + 400*time.Millisecond))
			h.contains("loading 3s")
			if watch {
				h.contains("CONNECTING").lacks("● LIVE")
			}
			h.settle()
			h.contains("did not answer within " + kube.DefaultRequestTimeout.String()).lacks("loading")
			if watch {
				h.contains("OFFLINE · no contact yet").lacks("● LIVE")
			}
		})
	}
}
