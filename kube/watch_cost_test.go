package kube_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestWatchCost measures what the live view costs against re-listing every 5 s,
// for BENCHMARKS.md: requests and bytes on the wire while idle, and per revision
// written. It idles for a minute twice, so it runs only with
// CHUNKVIEW_WATCH_COST=1 (CHUNKVIEW_WATCH_COST_IDLE shortens the minute).
func TestWatchCost(t *testing.T) {
	if os.Getenv("CHUNKVIEW_WATCH_COST") == "" {
		t.Skip("set CHUNKVIEW_WATCH_COST=1 to measure the live view's cost")
	}
	idle := time.Minute
	if d, err := time.ParseDuration(os.Getenv("CHUNKVIEW_WATCH_COST_IDLE")); err == nil {
		idle = d
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := cluster.Namespace(t)
	const owner = "cost-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 64 << 10})
	const releases, revs = 50, 3
	for i := range releases {
		seed(t, d, history(fmt.Sprintf("app-%02d", i), ns, revs, 20_000)...)
	}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"--owner", owner, "--driver", "chunked", "-n", ns}, func(o *kube.Options) { o.WrapConfig = wire.install })

	// Live: the watch's start, a minute idle, then revisions written.
	wire.Reset()
	ch := c.Watch(ctx, kube.WatchOptions{})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced })
	time.Sleep(200 * time.Millisecond)
	startReqs, startBytes := len(wire.Requests()), wire.WireBytes.Load()
	wire.Reset()
	time.Sleep(idle)
	idleReqs, idleBytes := len(wire.Requests()), wire.WireBytes.Load()
	wire.Reset()
	const written = 10
	for i := range written {
		rel := makeRelease("app-00", ns, revs+1+i, release.StatusDeployed, 20_000)
		if err := d.Create(storage.RecordKey("app-00", rel.Version), rel); err != nil {
			t.Fatal(err)
		}
		nextEvent(t, ch, "written", isRev(kube.WatchChanged, kube.DriverChunked, "app-00", rel.Version, ""))
	}
	perRevReqs, perRevBytes := float64(len(wire.Requests()))/written, float64(wire.WireBytes.Load())/written
	cancel()

	// Polling: the release list read again every 5 s for the same minute.
	wire.Reset()
	deadline := time.Now().Add(idle)
	lists := 0
	for time.Now().Before(deadline) {
		if _, err := c.Releases(t.Context()); err != nil {
			t.Fatal(err)
		}
		lists++
		time.Sleep(5 * time.Second)
	}
	pollReqs, pollBytes := len(wire.Requests()), wire.WireBytes.Load()

	var b strings.Builder
	fmt.Fprintf(&b, "%d releases × %d revisions (%d index Secrets, chunked), idle %s\n", releases, revs, releases*revs, idle)
	fmt.Fprintf(&b, "live start: %d requests, %d bytes\n", startReqs, startBytes)
	fmt.Fprintf(&b, "live idle: %d requests, %d bytes\n", idleReqs, idleBytes)
	fmt.Fprintf(&b, "live per revision written: %.1f requests, %.0f bytes\n", perRevReqs, perRevBytes)
	fmt.Fprintf(&b, "poll every 5s idle: %d lists, %d requests, %d bytes\n", lists, pollReqs, pollBytes)
	t.Log("\n" + b.String())
}
