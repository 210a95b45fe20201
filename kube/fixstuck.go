package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// StuckFix is a way out of a release stuck in a pending state.
type StuckFix string

// The fixes for a stuck release.
const (
	// FixMarkFailed sets the pending revision's status to failed, so Helm lets the
	// next upgrade or rollback proceed. Warning: if the operation is in fact still
	// running, two operations will then act on the release at once.
	FixMarkFailed StuckFix = "mark-failed"
	// FixDeletePending deletes the pending revision's record, so the previous
	// revision is the latest again. Warning: resources the pending operation already
	// applied stay as they are, unrecorded.
	FixDeletePending StuckFix = "delete-pending"
)

// Warning returns the warning to show before applying f.
func (f StuckFix) Warning() string {
	switch f {
	case FixMarkFailed:
		return "Only do this if no Helm operation on this release is still running (check the operator's or CI's logs): marking it failed lets the next upgrade or rollback start while the old one might still be applying resources."
	case FixDeletePending:
		return "This deletes the pending revision's record. Resources that the interrupted operation already applied stay in the cluster but are no longer recorded; a later upgrade or rollback will reconcile them."
	}
	return ""
}

func (f StuckFix) valid() error {
	switch f {
	case FixMarkFailed, FixDeletePending:
		return nil
	}
	return fmt.Errorf("unknown fix %q (want %s or %s)", f, FixMarkFailed, FixDeletePending)
}

// Stuck describes a release whose latest revision is pending.
type Stuck struct {
	Row RevisionRow `json:"row"`
	// For is how long the revision has been pending.
	For time.Duration `json:"for"`
}

// StuckPlan is a stuck release as it was shown, for ApplyFixStuck.
type StuckPlan struct {
	Plan
	// Stuck is nil when the latest revision is not pending.
	Stuck *Stuck
}

// Stuck returns the plan of fixing the release p describes, stuck since its latest
// revision was written as far as the plan tells (PlanFixStuck decodes it to know
// better).
func (p *Plan) Stuck(now time.Time) *StuckPlan {
	sp := &StuckPlan{Plan: *p}
	if l := p.Rows[len(p.Rows)-1]; Pending(l.Status) {
		sp.Stuck = &Stuck{Row: l, For: now.Sub(l.Updated).Round(time.Second)}
	}
	return sp
}

// PlanFixStuck reads a release's history and returns whether it is stuck, for how
// long, and the plan of fixing it.
func (c *Client) PlanFixStuck(ctx context.Context, ns, name string) (*StuckPlan, error) {
	p, err := c.plan(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	sp := p.Stuck(c.now())
	if sp.Stuck == nil {
		return sp, nil
	}
	row := sp.Stuck.Row
	if d, err := c.Details(ctx, row); err == nil && d.Release != nil && d.Release.Info != nil && !d.Release.Info.LastDeployed.IsZero() {
		sp.Stuck.For = c.now().Sub(d.Release.Info.LastDeployed.Time).Round(time.Second)
	}
	return sp, nil
}

// StuckInfo reports whether a release is stuck, and for how long.
func (c *Client) StuckInfo(ctx context.Context, ns, name string) (*Stuck, error) {
	sp, err := c.PlanFixStuck(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return sp.Stuck, nil
}

// FixStuck plans and applies at once fix to the pending latest revision of a
// release: for callers that show no plan.
func (c *Client) FixStuck(ctx context.Context, ns, name string, fix StuckFix) error {
	if err := c.checkWritable("fixing a stuck release"); err != nil {
		return err
	}
	if err := fix.valid(); err != nil {
		return err
	}
	sp, err := c.PlanFixStuck(ctx, ns, name)
	if err != nil {
		return err
	}
	return c.ApplyFixStuck(ctx, sp, fix)
}

// ApplyFixStuck applies fix to the pending revision plan shows. It refuses,
// changing nothing, when the release is no longer as planned (the error wraps
// ErrChanged): the pending operation may have finished meanwhile.
func (c *Client) ApplyFixStuck(ctx context.Context, plan *StuckPlan, fix StuckFix) error {
	if err := c.checkWritable("fixing a stuck release"); err != nil {
		return err
	}
	if err := fix.valid(); err != nil {
		return err
	}
	if plan == nil {
		return errors.New("fix-stuck: no plan to apply")
	}
	if plan.Stuck == nil {
		return fmt.Errorf("release %q is not pending: nothing to fix", plan.Release)
	}
	p := &plan.Plan
	if err := c.check(ctx, "fix-stuck", p); err != nil {
		return err
	}
	drv := c.pinned(ctx, p)
	row := plan.Stuck.Row
	if fix == FixDeletePending {
		return c.deleteRecord(ctx, "fix-stuck", p, drv, row.Revision, row.Key, false)
	}
	if err := c.refuseNewerHelm(ctx, OpFixStuck, p, row.Revision); err != nil {
		return err
	}
	rls, err := drv.Get(row.Key)
	if err != nil {
		return c.explainApply("mark failed", p, drv, err)
	}
	was := rls.Info.Status
	rls.Info.Status = release.StatusFailed
	rls.Info.Description = fmt.Sprintf("Marked failed by chunkview after %s in %s", plan.Stuck.For, was)
	rls.Info.LastDeployed = helmtime.Now()
	if err := drv.Update(row.Key, rls); err != nil {
		return c.explainApply("mark failed", p, drv, err)
	}
	return nil
}
