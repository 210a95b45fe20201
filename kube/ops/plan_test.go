package ops_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// Plan, then apply exactly that: every operation takes the plan the user saw, and
// refuses it, changing nothing, when the release moved on in between.

const (
	planOwner     = "plan-owner"
	planChunkSize = 16 << 10
	planRelease   = "app"
)

// planSeed stores revisions 1 and 2 (superseded) and 3 (pending-upgrade, long
// ago: stuck), a few chunks each, through chunkview's driver.
func planSeed(t *testing.T, ns string) {
	t.Helper()
	rels := history(planRelease, ns, 3, 20_000)
	rels[2].Info.Status = release.StatusPendingUpgrade
	seed(t, storage.NewDriver(secrets(ns), planOwner, storage.ChunkedSecretsConfig{ChunkSize: planChunkSize}), rels...)
}

// planMove is another writer moving the release on.
type planMove struct {
	name string
	// want is what the refusal must say changed.
	want string
	move func(t *testing.T, ns string)
}

func planMoves() []planMove {
	return []planMove{
		{
			// helm-operator-plugins' driver, as operator-controller runs it, stores a
			// new revision.
			name: "revision added by helm-operator-plugins", want: "revision 4 (deployed) was added",
			move: func(t *testing.T, ns string) {
				seed(t, originalDriver(ns, planOwner, planChunkSize), makeRelease(planRelease, ns, 4, release.StatusDeployed, 20_000))
			},
		},
		{
			// The operation that was pending finishes: helm-operator-plugins rewrites
			// the index with its new status.
			name: "status rewritten by helm-operator-plugins", want: "revision 3 was rewritten (deployed, was pending-upgrade)",
			move: func(t *testing.T, ns string) {
				d := originalDriver(ns, planOwner, planChunkSize)
				r, err := d.Get(storage.RecordKey(planRelease, 3))
				if err != nil {
					t.Fatal(err)
				}
				r.Info.Status = release.StatusDeployed
				if err := d.Update(storage.RecordKey(planRelease, 3), r); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "record deleted", want: "revision 1 was deleted",
			move: func(t *testing.T, ns string) {
				if _, err := chunkviewDriver(ns, planOwner, planChunkSize).Delete(storage.RecordKey(planRelease, 1)); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
}

// planOp is one operation planned, then applied.
type planOp struct {
	name string
	// plan plans it and returns the apply step.
	plan func(t *testing.T, c *kube.Client, ns string) func() error
}

func planOps() []planOp {
	return []planOp{
		{"rollback", func(t *testing.T, c *kube.Client, ns string) func() error {
			p, err := planByName(t.Context(), c, ns, planRelease, rollbackPlan(2, kube.DiffOptions{}))
			if err != nil || p.From != 3 || p.To != 2 || len(p.Records) != 3 {
				t.Fatalf("PlanRollback: %+v, %v", p, err)
			}
			return func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
		}},
		{"uninstall", func(t *testing.T, c *kube.Client, ns string) func() error {
			p, err := planByName(t.Context(), c, ns, planRelease, uninstallPlan(false))
			if err != nil {
				t.Fatalf("PlanUninstall: %v", err)
			}
			return func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
		}},
		{"delete-revision", func(t *testing.T, c *kube.Client, ns string) func() error {
			p, err := planByName(t.Context(), c, ns, planRelease, deleteRevisionPlan(2, false))
			if err != nil {
				t.Fatalf("PlanDeleteRevision: %v", err)
			}
			return func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
		}},
		{"fix-stuck", func(t *testing.T, c *kube.Client, ns string) func() error {
			p, err := planByName(t.Context(), c, ns, planRelease, fixStuckPlan(ops.FixMarkFailed))
			if err != nil || p.Stuck == nil || p.Stuck.Row.Revision != 3 {
				t.Fatalf("PlanFixStuck: %+v, %v", p, err)
			}
			return func() error { return ops.NewRunner(c).Apply(t.Context(), p) }
		}},
	}
}

// mustBeChanged fails unless err is the refusal of a plan the release moved on
// from, saying what changed and that nothing was changed.
func mustBeChanged(t *testing.T, err error, changed, done string) {
	t.Helper()
	msg := mustErrIs(t, err, kube.ErrChanged)
	if !errors.Is(err, storage.ErrConflict) {
		t.Errorf("%v does not wrap storage.ErrConflict", err)
	}
	mustContain(t, msg, "the release changed while you were looking", changed, done, "retry")
}

// TestApplyRefusesMovedRelease: for each operation and each way the release can
// move on between plan and apply, the apply is refused and nothing changes.
func TestApplyRefusesMovedRelease(t *testing.T) {
	for _, op := range planOps() {
		for _, mv := range planMoves() {
			t.Run(op.name+"/"+mv.name, func(t *testing.T) {
				ns := cluster.Namespace(t)
				planSeed(t, ns)
				c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", planOwner, "--chunk-size", "16384"}, nil)
				apply := op.plan(t, c, ns)
				mv.move(t, ns)
				before := snapshot(t, ns)
				mustBeChanged(t, apply(), mv.want, "Nothing was changed")
				if after := snapshot(t, ns); !sameSnapshot(before, after) {
					t.Errorf("a refused %s changed the cluster:\nbefore %v\nafter  %v", op.name, before, after)
				}
			})
		}
	}
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestApplyUnchangedPlan: a plan the release has not moved on from applies, and a
// second apply of the same plan is refused (the first one moved it on).
func TestApplyUnchangedPlan(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	planSeed(t, ns)
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", planOwner, "--chunk-size", "16384"}, nil)
	p, err := planByName(ctx, c, ns, planRelease, fixStuckPlan(ops.FixMarkFailed))
	if err != nil || p.Stuck == nil {
		t.Fatalf("PlanFixStuck: %+v, %v", p, err)
	}
	if err := ops.NewRunner(c).Apply(ctx, p); err != nil {
		t.Fatalf("Apply(fix-stuck): %v", err)
	}
	rb, err := planByName(ctx, c, ns, planRelease, rollbackPlan(2, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	err = ops.NewRunner(c).Apply(ctx, rb)
	if err != nil || !rb.Applied || rb.NewRevision != 4 {
		t.Fatalf("Apply(rollback): %+v, %v", rb, err)
	}
	mustBeChanged(t, ops.NewRunner(c).Apply(ctx, p), "revision 4 (deployed) was added", "Nothing was changed")
	err = ops.NewRunner(c).Apply(ctx, rb)
	mustBeChanged(t, err, "revision 4 (deployed) was added", "Nothing was changed")
	rows, err := c.History(ctx, ns, planRelease)
	if err != nil || len(rows) != 4 {
		t.Fatalf("history after a refused second rollback: %d rows, %v", len(rows), err)
	}
}

// trigger runs hook once, before the first request match selects reaches the
// server, once armed.
type trigger struct {
	mu    sync.Mutex
	armed bool
	match func(*http.Request) bool
	hook  func()
}

func (tr *trigger) fire(req *http.Request) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.armed && tr.match(req) {
		tr.armed = false
		tr.hook()
	}
}

func (tr *trigger) arm(hook func()) {
	tr.mu.Lock()
	tr.armed, tr.hook = true, hook
	tr.mu.Unlock()
}

// wrap puts the trigger in front of every connection made from rc.
func (tr *trigger) wrap(rc *rest.Config) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &triggerRT{next: rt, tr: tr} })
}

type triggerRT struct {
	next http.RoundTripper
	tr   *trigger
}

func (t *triggerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	t.tr.fire(req)
	return t.next.RoundTrip(req)
}

// isDriverList matches a list of Secrets with their data: the driver's reads, as
// opposed to chunkview's metadata lists.
func isDriverList(req *http.Request) bool {
	return req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/secrets") &&
		strings.Contains(req.URL.RawQuery, "labelSelector") && !strings.Contains(req.Header.Get("Accept"), "PartialObjectMetadata")
}

// TestRollbackCaughtDuringAction: the release moves on after the check and before
// Helm's rollback reads its history. The driver under Helm is held to the plan, so
// Helm stops at that read: nothing was changed, and the revision the other writer
// added is not rolled over.
func TestRollbackCaughtDuringAction(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	planSeed(t, ns)
	tr := &trigger{match: isDriverList}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", planOwner, "--chunk-size", "16384"}, func(o *kube.Options) {
		o.WrapConfig = tr.wrap
	})
	p, err := planByName(ctx, c, ns, planRelease, rollbackPlan(2, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	var before map[string]string
	tr.arm(func() {
		seed(t, originalDriver(ns, planOwner, planChunkSize), makeRelease(planRelease, ns, 4, release.StatusDeployed, 20_000))
		before = snapshot(t, ns)
	})
	err = ops.NewRunner(c).Apply(ctx, p)
	mustBeChanged(t, err, "", "Nothing was changed")
	if before == nil {
		t.Fatal("the other writer never ran: Helm's rollback read no history")
	}
	if after := snapshot(t, ns); !sameSnapshot(before, after) {
		t.Errorf("a rollback stopped by a conflict changed the cluster:\nbefore %v\nafter  %v", before, after)
	}
}

// TestApplyCostsOneCheck measures what applying a plan costs: the check that the
// release is as planned is one metadata list, sent before anything else.
func TestApplyCostsOneCheck(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	planSeed(t, ns)
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", planOwner, "--chunk-size", "16384"}, func(o *kube.Options) { o.WrapConfig = wire.install })
	metaLists := func(reqs []wireRequest) int {
		n := 0
		for _, r := range reqs {
			if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/secrets") && strings.Contains(r.Accept, "PartialObjectMetadataList") {
				n++
			}
		}
		return n
	}
	for _, step := range []struct {
		name  string
		plan  func() (apply func() error)
		lists int // metadata lists the apply sends
	}{
		{"fix-stuck", func() func() error {
			p, err := planByName(ctx, c, ns, planRelease, fixStuckPlan(ops.FixMarkFailed))
			if err != nil {
				t.Fatal(err)
			}
			return func() error { return ops.NewRunner(c).Apply(ctx, p) }
		}, 1},
		{"rollback", func() func() error {
			p, err := planByName(ctx, c, ns, planRelease, rollbackPlan(2, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			// The check alone: revisions Helm failed to mark superseded are
			// found from the plan and the operation's own writes, not listed.
			return func() error { return ops.NewRunner(c).Apply(ctx, p) }
		}, 1},
		{"delete-revision", func() func() error {
			p, err := planByName(ctx, c, ns, planRelease, deleteRevisionPlan(1, false))
			if err != nil {
				t.Fatal(err)
			}
			return func() error { return ops.NewRunner(c).Apply(ctx, p) }
		}, 1},
		{"uninstall", func() func() error {
			p, err := planByName(ctx, c, ns, planRelease, uninstallPlan(false))
			if err != nil {
				t.Fatal(err)
			}
			return func() error { return ops.NewRunner(c).Apply(ctx, p) }
		}, 1},
	} {
		wire.Reset()
		apply := step.plan()
		planned := len(wire.Requests())
		wire.Reset()
		if err := apply(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		reqs := wire.Requests()
		if len(reqs) == 0 {
			t.Errorf("%s: no request, want the metadata list that checks the plan first", step.name)
		} else if !strings.Contains(reqs[0].Accept, "PartialObjectMetadataList") || !strings.Contains(reqs[0].Query, "name%3D"+planRelease) {
			t.Errorf("%s: the first request is %v, want the metadata list that checks the plan", step.name, reqs[0])
		}
		if n := metaLists(reqs); n != step.lists {
			t.Errorf("%s: %d metadata lists, want %d: %v", step.name, n, step.lists, reqs)
		}
		t.Logf("%s: plan %d requests, apply %d requests (%d mutating, %d metadata lists)", step.name, planned, len(reqs), len(wire.Mutating()), metaLists(reqs))
	}
}
