package ops_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// TestUninstallCaughtDuringAction: the release moves on (helm-operator-plugins
// rewrites its latest revision) after Helm's uninstall has read the history and
// before its first write. Helm only logs its failed write of the release's status
// and would go on deleting resources: chunkview stops it, every resource stays, the
// operator's record stays, and the error says the release changed.
func TestUninstallCaughtDuringAction(t *testing.T) {
	ctx := t.Context()
	f := &opsFixture{ns: cluster.Namespace(t)}
	f.kubeconfig = adminKubeconfig(t, f.ns)
	f.drv = storage.NewDriver(secrets(f.ns), opsOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	hist := &trigger{match: isDriverList}
	key := storage.RecordKey("web", 2)
	second := &trigger{match: func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/secrets/"+key)
	}}
	f.c = connect(t, f.kubeconfig, []string{"--owner", opsOwner, "--chunk-size", "16384"}, func(o *kube.Options) {
		o.WrapConfig = func(rc *rest.Config) { hist.wrap(rc); second.wrap(rc) }
	})
	f.install(t, "web", 2)
	before := f.releaseResources(t, "web")
	if len(before) == 0 {
		t.Fatal("the release has no resources to begin with")
	}
	p, err := planByName(ctx, f.c, f.ns, "web", uninstallPlan(false))
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	hist.arm(func() {
		second.arm(func() {
			d := originalDriver(f.ns, opsOwner, 16<<10)
			r, err := d.Get(key)
			if err != nil {
				t.Error(err)
				return
			}
			r.Info.Status, r.Info.Description = release.StatusFailed, "operator moved it"
			if err := d.Update(key, r); err != nil {
				t.Error(err)
			}
			moved = true
		})
	})
	err = ops.NewRunner(f.c).Apply(ctx, p)
	if !moved {
		t.Fatal("the release was not moved during the action: the interleaving was not reached")
	}
	if !errors.Is(err, kube.ErrChanged) {
		t.Fatalf("uninstall of a release that moved on during the action: %v, want ErrChanged", err)
	}
	if after := f.releaseResources(t, "web"); !slices.Equal(after, before) {
		t.Fatalf("resources %v after the refused uninstall, want all of %v", after, before)
	}
	got, err := originalDriver(f.ns, opsOwner, 16<<10).Get(key)
	if err != nil {
		t.Fatalf("the operator's record: %v", err)
	}
	if got.Info.Description != "operator moved it" {
		t.Fatalf("the operator's record was overwritten: %q", got.Info.Description)
	}
}

// TestRollbackConflictAfterApply: the release moves on while Helm's rollback
// applies resources, after it created its revision. The rollback stops, its own
// revision is marked failed (not left pending, which would hold off every later
// rollback as an operation in flight), and the error says the resources were
// changed.
func TestRollbackConflictAfterApply(t *testing.T) {
	ctx := t.Context()
	f := &opsFixture{ns: cluster.Namespace(t)}
	f.kubeconfig = adminKubeconfig(t, f.ns)
	f.drv = storage.NewDriver(secrets(f.ns), opsOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	tr := &trigger{match: func(r *http.Request) bool {
		return r.Method != http.MethodGet && strings.Contains(r.URL.Path, "/configmaps")
	}}
	f.c = connect(t, f.kubeconfig, []string{"--owner", opsOwner, "--chunk-size", "16384"}, func(o *kube.Options) {
		o.WrapConfig = func(rc *rest.Config) { tr.wrap(rc) }
	})
	f.install(t, "web", 3)
	p, err := planByName(ctx, f.c, f.ns, "web", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	fired := false
	tr.arm(func() {
		fired = true
		d := originalDriver(f.ns, opsOwner, 16<<10)
		key := storage.RecordKey("web", 3)
		r, err := d.Get(key)
		if err != nil {
			t.Error(err)
			return
		}
		r.Info.Description = "touched by operator"
		if err := d.Update(key, r); err != nil {
			t.Error(err)
		}
	})
	err = ops.NewRunner(f.c).Apply(ctx, p)
	if !fired {
		t.Fatal("the release was not moved during the action")
	}
	if !errors.Is(err, kube.ErrChanged) {
		t.Fatalf("rollback of a release that moved on during the action: %v, want ErrChanged", err)
	}
	if !strings.Contains(err.Error(), "resources") {
		t.Errorf("the error does not say the resources were changed: %v", err)
	}
	rows, err := f.c.History(ctx, f.ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Revision == 4 && r.Status != release.StatusFailed.String() {
			t.Fatalf("the rollback's own revision 4 is %s, want failed", r.Status)
		}
	}
	if rows[len(rows)-1].Revision != 4 {
		t.Fatalf("latest revision %d, want the rollback's 4", rows[len(rows)-1].Revision)
	}
}

// TestDeleteAndFixCaughtDuringAction: the release moves on after the plan check and
// before delete-revision or fix-stuck writes: helm-operator-plugins rewrites the
// very revision the operation is about to delete or mark failed. The write is
// refused, the operator's record stays as it wrote it, and the error says the
// release changed.
func TestDeleteAndFixCaughtDuringAction(t *testing.T) {
	for _, op := range []string{"delete-revision", "fix-stuck mark-failed", "fix-stuck delete-pending"} {
		t.Run(op, func(t *testing.T) {
			ctx := t.Context()
			ns := cluster.Namespace(t)
			planSeed(t, ns)
			key := storage.RecordKey(planRelease, 3) // the pending latest revision
			tr := &trigger{match: func(r *http.Request) bool {
				// The operation's driver reading the record, after the plan check
				// (a metadata list).
				return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/secrets/"+key) &&
					!strings.Contains(r.Header.Get("Accept"), "PartialObjectMetadata")
			}}
			c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", planOwner, "--chunk-size", "16384"}, func(o *kube.Options) {
				o.WrapConfig = tr.wrap
			})
			var apply func() error
			switch op {
			case "delete-revision":
				p, err := planByName(ctx, c, ns, planRelease, deleteRevisionPlan(3, false))
				if err != nil {
					t.Fatal(err)
				}
				apply = func() error { return ops.NewRunner(c).Apply(ctx, p) }
			default:
				fix := ops.FixMarkFailed
				if op == "fix-stuck delete-pending" {
					fix = ops.FixDeletePending
				}
				p, err := planByName(ctx, c, ns, planRelease, fixStuckPlan(fix))
				if err != nil {
					t.Fatal(err)
				}
				apply = func() error { return ops.NewRunner(c).Apply(ctx, p) }
			}
			moved := false
			tr.arm(func() {
				d := originalDriver(ns, planOwner, planChunkSize)
				r, err := d.Get(key)
				if err != nil {
					t.Error(err)
					return
				}
				r.Info.Status, r.Info.Description = release.StatusDeployed, "operator finished it"
				if err := d.Update(key, r); err != nil {
					t.Error(err)
				}
				moved = true
			})
			err := apply()
			if !moved {
				t.Fatal("the release was not moved during the action: the interleaving was not reached")
			}
			mustBeChanged(t, err, "", "Nothing was changed")
			got, err := originalDriver(ns, planOwner, planChunkSize).Get(key)
			if err != nil {
				t.Fatalf("the operator's record: %v", err)
			}
			if got.Info.Status != release.StatusDeployed || got.Info.Description != "operator finished it" {
				t.Fatalf("the operator's record was changed: %s, %q", got.Info.Status, got.Info.Description)
			}
		})
	}
}
