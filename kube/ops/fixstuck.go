package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/chunkview/chunkview/kube"
)

// StuckFix is a way out of a release stuck in a pending or uninstalling state.
type StuckFix string

// The fixes for a stuck release.
const (
	// FixMarkFailed sets the stuck revision's status to failed, so Helm lets the
	// next upgrade or rollback proceed. Warning: if the operation is in fact still
	// running, two operations will then act on the release at once.
	FixMarkFailed StuckFix = "mark-failed"
	// FixDeletePending deletes the stuck revision's record, so the previous
	// revision is the latest again. Warning: resources the interrupted operation
	// already applied (or deleted) stay as they are, unrecorded.
	FixDeletePending StuckFix = "delete-pending"
)

// Warning returns the warning to show before applying f.
func (f StuckFix) Warning() string {
	switch f {
	case FixMarkFailed:
		return "Only do this if no Helm operation on this release is still running (check the operator's or CI's logs): marking it failed lets the next upgrade or rollback start while the old one might still be applying resources."
	case FixDeletePending:
		return "This deletes the stuck revision's record. Resources that the interrupted operation already applied or deleted stay as they are but are no longer recorded; a later upgrade or rollback will reconcile them."
	}
	return ""
}

// Valid returns nil for a fix there is, else an error that names them.
func (f StuckFix) Valid() error {
	switch f {
	case FixMarkFailed, FixDeletePending:
		return nil
	}
	return fmt.Errorf("unknown fix %q (want %s or %s)", f, FixMarkFailed, FixDeletePending)
}

// Stuck describes a release whose latest revision is pending or uninstalling.
type Stuck struct {
	Row kube.RevisionRow `json:"row"`
	// For is how long the revision has been in that state.
	For time.Duration `json:"for"`
	// InProgress is set while For is under the threshold (kube.Config.StuckAfter):
	// the operation that wrote it is probably still running.
	InProgress bool `json:"inProgress"`
}

// Stuckable reports whether a release whose latest revision has status is one
// fix-stuck can get out: pending-install, -upgrade, -rollback, or uninstalling
// (a failed uninstall leaves it there).
func Stuckable(status string) bool { return kube.Pending(status) || status == "uninstalling" }

// FixStuck is a planned fix of a stuck release: the release as it was shown, its
// stuck revision and the fix picked.
type FixStuck struct {
	// Plan is the release as it was when the fix was planned.
	Plan `json:"-"`
	// Stuck is nil when the latest revision is not stuck.
	Stuck *Stuck `json:"stuck"`
	// Fix is the way out picked; empty for a plan that only shows the state.
	Fix StuckFix `json:"fix,omitempty"`
	// Helm is which Helm rewrites or deletes the revision, and why.
	HelmChoice
}

var _ Operation = (*FixStuck)(nil)

// Verb is kube.OpFixStuck.
func (o *FixStuck) Verb() string { return kube.OpFixStuck }

// Base is the release the fix was planned from.
func (o *FixStuck) Base() *Plan { return &o.Plan }

// Helm is the Helm that runs the fix.
func (o *FixStuck) Helm() int { return o.Major }

// PlanFixStuck returns whether the release of p is stuck, for how long (from its
// stuck revision's info.last_deployed), and the plan of fixing it with fix
// (empty: only the state). The stuck revision decides which Helm rewrites it.
func (r *Runner) PlanFixStuck(ctx context.Context, p *Plan, fix StuckFix) (*FixStuck, error) {
	if fix != "" {
		if err := fix.Valid(); err != nil {
			return nil, err
		}
	}
	o := &FixStuck{Plan: *p, Fix: fix, HelmChoice: HelmChoice{Major: 3, Reason: "nothing to rewrite"}}
	l := p.latest()
	if !Stuckable(l.Status) {
		return o, nil
	}
	since := r.pendingFor(ctx, l).Round(time.Second)
	o.Stuck = &Stuck{Row: l, For: since, InProgress: since < r.c.StuckAfter()}
	var err error
	if o.HelmChoice, err = r.helmFor(ctx, p, l.Revision); err != nil {
		return nil, err
	}
	return o, nil
}

// Describe says in a sentence what the fix does.
func (o *FixStuck) Describe() string {
	if o.Stuck == nil {
		return fmt.Sprintf("%s is not stuck: its latest revision is %s.", o.Release, o.Plan.latest().Status)
	}
	row := o.Stuck.Row
	switch o.Fix {
	case FixMarkFailed:
		return fmt.Sprintf("Marks revision %d (%s for %s) failed. Runs through %s.", row.Revision, row.Status, o.Stuck.For, o.HelmChoice.Text())
	case FixDeletePending:
		return fmt.Sprintf("Deletes the record of revision %d (%s for %s); revision %d is the latest again.", row.Revision, row.Status, o.Stuck.For, o.previous())
	}
	return fmt.Sprintf("Revision %d has been %s for %s.", row.Revision, row.Status, o.Stuck.For)
}

// previous is the revision before the stuck one, 0 when there is none.
func (o *FixStuck) previous() int {
	if len(o.Rows) < 2 {
		return 0
	}
	return o.Rows[len(o.Rows)-2].Revision
}

// run applies the fix to the stuck revision.
func (o *FixStuck) run(ctx context.Context, r *Runner, h helm) error {
	if o.Stuck == nil {
		return refuse(fmt.Errorf("release %q is not stuck (its latest revision is %s): nothing to fix", o.Release, o.Plan.latest().Status))
	}
	if err := o.Fix.Valid(); err != nil {
		return refuse(err)
	}
	row := o.Stuck.Row
	if o.Fix == FixDeletePending {
		del := &DeleteRevision{Plan: o.Plan, Revision: row.Revision, Key: row.Key}
		return del.run(ctx, r, h)
	}
	return h.setStatus(row.Key, "failed", fmt.Sprintf("Marked failed by chunkview after %s in %s", o.Stuck.For, row.Status), true)
}
