package ops_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
)

// TestRollbackInFlightRefused: Helm's rollback goes ahead over a pending latest
// revision, so that a stuck release can be rolled back; chunkview's refuses one
// that turned pending moments ago (an operation in flight: rolling back over it
// would leave two revisions deployed), changing nothing, and goes ahead over one
// pending for longer than the stuck threshold.
func TestRollbackInFlightRefused(t *testing.T) {
	ctx := t.Context()
	f := newOpsFixture(t)

	f.install(t, "busy", 2)
	rev := f.makeStuck(t, "busy", 10*time.Second)
	before := f.statuses(t, "busy")
	_, err := applyByName(ctx, f.c, f.ns, "busy", rollbackPlan(1, kube.DiffOptions{}))
	if !errors.Is(err, kube.ErrInProgress) {
		t.Fatalf("rollback over revision %d pending for 10s: %v; want ErrInProgress", rev, err)
	}
	if !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("the refusal does not say nothing was changed: %v", err)
	}
	if after := f.statuses(t, "busy"); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("the refused rollback changed the history: %v, was %v", after, before)
	}

	f.install(t, "left", 2)
	rev = f.makeStuck(t, "left", 10*time.Minute)
	plan, err := applyByName(ctx, f.c, f.ns, "left", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil || plan.NewRevision != rev+1 {
		t.Fatalf("rollback over revision %d pending for 10m: %+v, %v; want revision %d", rev, plan, err, rev+1)
	}
	if got := f.statuses(t, "left"); got[len(got)-1] != "deployed" || strings.Count(strings.Join(got, " "), "deployed") != 1 {
		t.Errorf("statuses after the rollback over a stuck revision: %v; want one deployed, the latest", got)
	}
}
