package ops_test

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// readOnlyFixture is a namespace with something for every operation to change: a
// release of three revisions, a stuck one, one with a missing chunk and a leftover
// chunk.
func readOnlyFixture(t *testing.T) *opsFixture {
	t.Helper()
	f := newOpsFixture(t)
	f.install(t, "app", 3)
	f.install(t, "stuck", 2)
	f.makeStuck(t, "stuck", time.Hour)
	seed(t, f.drv, makeRelease("broken", f.ns, 1, release.StatusDeployed, 40_000))
	lost := chunkNames(t, f.ns, storage.RecordKey("broken", 1))[0]
	if err := secrets(f.ns).Delete(t.Context(), lost, deleteNow); err != nil {
		t.Fatal(err)
	}
	createChunk(t, f.ns, opsOwner, storage.RecordKey("app", 1), []byte("a leftover chunk"))
	return f
}

// writeOp is one operation that changes the cluster.
type writeOp struct {
	name string
	run  func(c *kube.Client) error
}

func writeOps(t *testing.T, ns string) []writeOp {
	ctx := t.Context()
	return []writeOp{
		{"rollback", func(c *kube.Client) error {
			_, err := applyByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
			return err
		}},
		{"uninstall --keep-history", func(c *kube.Client) error { _, err := applyByName(ctx, c, ns, "app", uninstallPlan(true)); return err }},
		{"uninstall", func(c *kube.Client) error { _, err := applyByName(ctx, c, ns, "app", uninstallPlan(false)); return err }},
		{"delete-revision", func(c *kube.Client) error {
			_, err := applyByName(ctx, c, ns, "app", deleteRevisionPlan(2, false))
			return err
		}},
		{"delete-revision --force", func(c *kube.Client) error {
			_, err := applyByName(ctx, c, ns, "broken", deleteRevisionPlan(1, true))
			return err
		}},
		{"fix-stuck mark-failed", func(c *kube.Client) error {
			_, err := applyByName(ctx, c, ns, "stuck", fixStuckPlan(ops.FixMarkFailed))
			return err
		}},
		{"fix-stuck delete-pending", func(c *kube.Client) error {
			_, err := applyByName(ctx, c, ns, "stuck", fixStuckPlan(ops.FixDeletePending))
			return err
		}},
		{"gc (find, then remove)", func(c *kube.Client) error {
			reps, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
			if err != nil {
				return err
			}
			_, err = kube.NewChecker(c).RemoveLeftovers(ctx, reps)
			return err
		}},
	}
}

// TestReadOnly runs every operation with --read-only: each fails with ErrReadOnly,
// the server sees no mutating request, and nothing changes; reads still work.
func TestReadOnly(t *testing.T) {
	ctx := t.Context()
	f := readOnlyFixture(t)
	before := snapshot(t, f.ns)

	stats := &kube.Stats{}
	wire := &wireLog{}
	c := connect(t, f.kubeconfig, []string{"--owner", opsOwner, "--read-only"}, func(o *kube.Options) {
		o.Stats = stats
		o.WrapConfig = wire.install
	})
	if !c.ReadOnly() {
		t.Fatal("--read-only: client is not read-only")
	}
	for _, op := range writeOps(t, f.ns) {
		err := op.run(c)
		if !errors.Is(err, kube.ErrReadOnly) {
			t.Errorf("%s with --read-only: %v, want ErrReadOnly", op.name, err)
			continue
		}
		mustContain(t, err.Error(), "--read-only")
	}
	if n := stats.Mutating(); n != 0 {
		t.Errorf("the server saw %d mutating requests (stats: %v)", n, stats.Requests())
	}
	if m := wire.Mutating(); len(m) != 0 {
		t.Errorf("mutating requests on the wire: %v", m)
	}
	if after := snapshot(t, f.ns); !maps.Equal(before, after) {
		t.Errorf("--read-only operations changed the cluster")
	}

	// Reads work.
	if rows, err := c.Releases(ctx); err != nil || len(rows) != 3 {
		t.Errorf("Releases with --read-only: %d rows, %v", len(rows), err)
	}
	if plan, err := planByName(ctx, c, f.ns, "app", rollbackPlan(1, kube.DiffOptions{})); err != nil || plan.Applied {
		t.Errorf("PlanRollback with --read-only: %+v, %v", plan, err)
	}
	if fs, err := planByName(ctx, c, f.ns, "stuck", fixStuckPlan("")); err != nil || fs.Stuck == nil {
		t.Errorf("PlanFixStuck with --read-only: %+v, %v", fs, err)
	}
	if reps, removed, err := gc(ctx, c, true); err != nil || removed != 0 || len(reps) != 1 {
		t.Errorf("gc --dry-run with --read-only: %+v %d %v", reps, removed, err)
	}
	if _, err := kube.NewInspector(c).Layout(ctx, f.ns, "broken", 1); err != nil {
		t.Errorf("Layout with --read-only: %v", err)
	}
	if stats.Mutating() != 0 || len(wire.Mutating()) != 0 {
		t.Errorf("reads sent mutating requests: %v", wire.Mutating())
	}
	t.Logf("--read-only: %d requests sent, all reads: %v", stats.Total(), stats.Requests())
}

// TestReadOnlyTransport proves the guard on the connection on its own: with a
// client whose operations do not check the flag, every mutating request Helm or the
// driver tries is refused before it leaves, and the cluster is unchanged.
func TestReadOnlyTransport(t *testing.T) {
	f := readOnlyFixture(t)
	before := snapshot(t, f.ns)

	wire := &wireLog{}
	attempts := &kube.Stats{}
	flags := genericclioptions.NewConfigFlags(false)
	cache := t.TempDir()
	flags.KubeConfig, flags.CacheDir = &f.kubeconfig, &cache
	flags.WrapConfigFn = func(rc *rest.Config) *rest.Config {
		rc = rest.CopyConfig(rc)
		rc.QPS, rc.Burst = 1000, 2000
		wire.install(rc) // at the wire
		kube.ReadOnly(rc)
		attempts.Count(rc) // above the guard: what the code tried
		return rc
	}
	rc, err := flags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	kubes := ops.NewAppliers(flags)
	later := time.Now().Add(time.Hour)
	c := kube.New(cs, md, kubes, kube.Config{Owner: opsOwner, Namespace: f.ns, Driver: storage.ChunkedSecretsConfig{ChunkSize: 16 << 10}, Now: func() time.Time { return later }})

	for _, op := range writeOps(t, f.ns) {
		err := op.run(c)
		if err == nil || !strings.Contains(err.Error(), "read-only mode: refused") {
			t.Errorf("%s behind the read-only transport: %v, want a refusal", op.name, err)
		} else if !errors.Is(err, kube.ErrReadOnly) {
			// Helm's uninstall reports the errors of deleting resources as text.
			t.Logf("%s: refused, but the error does not wrap ErrReadOnly: %v", op.name, err)
		}
	}
	if m := wire.Mutating(); len(m) != 0 {
		t.Errorf("mutating requests reached the wire: %v", m)
	}
	if after := snapshot(t, f.ns); !maps.Equal(before, after) {
		t.Errorf("the read-only transport let changes through")
	}
	if attempts.Mutating() == 0 {
		t.Errorf("no mutating request was attempted: the operations did not get far enough to test the guard")
	}
	t.Logf("read-only transport refused %d mutating requests (%v); %d reads reached the server", attempts.Mutating(), attempts.Requests(), len(wire.Requests()))
}

// TestConnectCountsEveryRequest proves that Options' wrappers sit under every client
// Connect makes, Helm's kube client with its discovery included: what the wire sees,
// Stats counts.
func TestConnectCountsEveryRequest(t *testing.T) {
	f := newOpsFixture(t)
	f.install(t, "count", 2)
	stats := &kube.Stats{}
	wire := &wireLog{}
	c := connect(t, f.kubeconfig, []string{"--owner", opsOwner}, func(o *kube.Options) {
		o.Stats = stats
		o.WrapConfig = wire.install
	})
	if _, err := applyByName(t.Context(), c, f.ns, "count", rollbackPlan(1, kube.DiffOptions{})); err != nil {
		t.Fatal(err)
	}
	reqs := wire.Requests()
	discovery := 0
	for _, r := range reqs {
		if r.Path == "/api" || r.Path == "/apis" || strings.HasPrefix(r.Path, "/openapi") {
			discovery++
		}
	}
	if discovery == 0 {
		t.Errorf("Helm's discovery requests bypassed Options' wrappers: %v", reqs)
	}
	if stats.Total() != len(reqs) {
		t.Errorf("Stats counted %d requests, the wire saw %d", stats.Total(), len(reqs))
	}
	t.Logf("rollback through Helm: %d requests (%d discovery): %v", len(reqs), discovery, stats.Requests())
}
