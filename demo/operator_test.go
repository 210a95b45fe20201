package demo_test

import (
	"context"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

func TestParseOperatorEnv(t *testing.T) {
	for _, tc := range []struct {
		in    string
		every time.Duration
		on    bool
		bad   bool
	}{{"", 0, true, false}, {"off", 0, false, false}, {"2s", 2 * time.Second, true, false}, {"soon", 0, false, true}, {"-1s", 0, false, true}} {
		o, on, err := demo.ParseOperatorEnv(tc.in)
		if (err != nil) != tc.bad || on != tc.on || o.Every != tc.every {
			t.Errorf("%q: %+v %v %v", tc.in, o, on, err)
		}
	}
}

// TestOperator: the demo operator writes podinfo's next revision pending, then
// deploys it and supersedes the one before.
func TestOperator(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(ctx, c, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(demo.OperatorNamespace), storage.HelmOwner, demo.DriverConfig())
	before, err := drv.Query(map[string]string{"name": demo.OperatorRelease, "owner": storage.HelmOwner})
	if err != nil {
		t.Fatal(err)
	}
	next := len(before) + 1
	go demo.RunOperator(ctx, c, demo.OperatorOptions{Every: 30 * time.Millisecond, Pending: 200 * time.Millisecond})
	status := func(rev int) release.Status {
		r, err := drv.Get(storage.RecordKey(demo.OperatorRelease, rev))
		if err != nil {
			return ""
		}
		return r.Info.Status
	}
	deadline := time.Now().Add(10 * time.Second)
	sawPending := false
	for status(next) != release.StatusDeployed {
		sawPending = sawPending || status(next) == release.StatusPendingUpgrade
		if time.Now().After(deadline) {
			t.Fatalf("revision %d: %q", next, status(next))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sawPending {
		t.Error("the new revision was never seen pending-upgrade")
	}
	if got := status(next - 1); got != release.StatusSuperseded {
		t.Errorf("revision %d: %q, want superseded", next-1, got)
	}
}

// TestOperatorKeepsTenRevisions: run fast for a while, the demo operator keeps
// podinfo's history at OperatorMaxHistory revisions, the newest ones.
func TestOperatorKeepsTenRevisions(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(ctx, c, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(demo.OperatorNamespace), storage.HelmOwner, demo.DriverConfig())
	go demo.RunOperator(ctx, c, demo.OperatorOptions{Every: 5 * time.Millisecond, Pending: 5 * time.Millisecond})
	want := demo.OperatorMaxHistory + 4
	deadline := time.Now().Add(20 * time.Second)
	for {
		rels, err := drv.Query(map[string]string{"name": demo.OperatorRelease, "owner": storage.HelmOwner})
		if err == nil {
			latest, oldest := 0, 1<<30
			for _, r := range rels {
				latest, oldest = max(latest, r.Version), min(oldest, r.Version)
			}
			if latest >= want {
				cancel()
				if len(rels) > demo.OperatorMaxHistory+1 || oldest < latest-demo.OperatorMaxHistory {
					t.Fatalf("%d revisions kept, %d..%d", len(rels), oldest, latest)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the operator did not reach revision %d", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
