package kube_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// watchCostIdle, when set, makes TestWatchCost measure as BENCHMARKS.md reports
// it: 50 releases × 3 revisions, idle for that long twice (live, then polling
// every 5 s). Without it the test runs in a few seconds on a small fleet and
// checks the same claims.
var watchCostIdle = flag.Duration("watchcost.idle", 0, "TestWatchCost: measure the live view idle for this long, on the fleet of BENCHMARKS.md")

// TestWatchCost holds the live view to what the README says it costs: one
// metadata list and one metadata watch per store to start; no request while idle
// or while revisions are written, each revision costing the metadata of its index
// on the stream (about 1 kB); where polling would list the whole store again
// every 5 s. It logs the figures BENCHMARKS.md reports; -watchcost.idle=1m
// measures them on its fleet:
//
//	go test ./kube -run TestWatchCost -v -args -watchcost.idle=1m
func TestWatchCost(t *testing.T) {
	releases, revs, blob, idle := 12, 2, 0, time.Second
	if *watchCostIdle > 0 {
		releases, revs, blob, idle = 50, 3, 20_000, *watchCostIdle
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := cluster.Namespace(t)
	const owner = "cost-owner"
	d := storage.NewDriver(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: 64 << 10})
	for i := range releases {
		seed(t, d, history(fmt.Sprintf("app-%02d", i), ns, revs, blob)...)
	}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"--owner", owner, "--driver", "chunked", "-n", ns}, func(o *kube.Options) { o.WrapConfig = wire.install })

	// Live: the watch's start. The watch request leaves after the synced event;
	// wait for it to be on the wire.
	wire.Reset()
	ch := c.Watch(ctx, kube.WatchOptions{})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced })
	for deadline := time.Now().Add(20 * time.Second); watchesIn(wire.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no watch request within 20s of the synced event")
		}
	}
	start := wire.Requests()
	startBytes := wire.WireBytes.Load()
	if len(start) != 2 || watchesIn(start) != 1 {
		t.Errorf("the live view started with %v, want one list and one watch", start)
	}
	for _, r := range start {
		if !strings.Contains(r.Accept, "PartialObjectMetadata") {
			t.Errorf("%s asks for %s, want metadata only", r, r.Accept)
		}
	}

	// Idle, then revisions written: nothing but the stream.
	wire.Reset()
	time.Sleep(idle)
	idleReqs, idleBytes := wire.Requests(), wire.WireBytes.Load()
	if len(idleReqs) != 0 {
		t.Errorf("idle for %s, the live view sent %v, want nothing", idle, idleReqs)
	}
	wire.Reset()
	const written = 5
	for i := range written {
		rel := makeRelease("app-00", ns, revs+1+i, release.StatusDeployed, blob)
		if err := d.Create(storage.RecordKey("app-00", rel.Version), rel); err != nil {
			t.Fatal(err)
		}
		nextEvent(t, ch, "written", isRev(kube.WatchChanged, kube.DriverChunked, "app-00", rel.Version, ""))
	}
	if reqs := wire.Requests(); len(reqs) != 0 {
		t.Errorf("%d revisions written, the live view sent %v, want nothing", written, reqs)
	}
	perRev := float64(wire.WireBytes.Load()) / written
	if perRev > 4<<10 {
		t.Errorf("a revision written costs the live view %.0f bytes on the stream, want about the metadata of its index (under 4 KiB)", perRev)
	}
	cancel()

	// Polling: the release list read again every 5 s, for as long as the idle
	// (once, on the small fleet).
	wire.Reset()
	lists := max(1, int(idle/(5*time.Second)))
	for i := range lists {
		if i > 0 {
			time.Sleep(5 * time.Second)
		}
		if _, err := c.Releases(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	pollReqs, pollBytes := len(wire.Requests()), wire.WireBytes.Load()
	if perList := float64(pollBytes) / float64(lists); perList < 5*perRev {
		t.Errorf("a list of %d index Secrets costs %.0f bytes, a revision on the stream %.0f: want the list to cost several revisions' worth", releases*revs+written, perList, perRev)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%d releases × %d revisions (%d index Secrets, chunked), idle %s\n", releases, revs, releases*revs, idle)
	fmt.Fprintf(&b, "live start: %d requests, %d bytes\n", len(start), startBytes)
	fmt.Fprintf(&b, "live idle: %d requests, %d bytes\n", len(idleReqs), idleBytes)
	fmt.Fprintf(&b, "live per revision written: 0 requests, %.0f bytes\n", perRev)
	fmt.Fprintf(&b, "poll every 5s idle: %d lists, %d requests, %d bytes\n", lists, pollReqs, pollBytes)
	t.Log("\n" + b.String())
}

// watchesIn counts the watch requests among reqs.
func watchesIn(reqs []wireRequest) int {
	n := 0
	for _, r := range reqs {
		if strings.Contains(r.Query, "watch=true") {
			n++
		}
	}
	return n
}
