package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// RollbackPlan is what a rollback would do: the revision it starts from, the one it
// restores, and the changes between them, with the state of the release it was
// made from. ApplyRollback applies exactly that.
type RollbackPlan struct {
	// Plan is the release as it was when the rollback was planned.
	Plan `json:"-"`
	Name string          `json:"name"`
	From int             `json:"from"`
	To   int             `json:"to"`
	Diff *revdiff.Result `json:"diff"`
	// Applied is set once the rollback ran.
	Applied bool `json:"applied"`
	// NewRevision is the revision the rollback created, once applied.
	NewRevision int `json:"newRevision,omitempty"`
}

// PlanRollback returns what rolling back to rev (0: the one before the latest) would
// change, without changing anything.
func (c *Client) PlanRollback(ctx context.Context, ns, name string, rev int, opts DiffOptions) (*RollbackPlan, error) {
	p, err := c.plan(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	latest := p.Latest
	if rev == 0 {
		if len(p.Rows) < 2 {
			return nil, fmt.Errorf("release %q has only revision %d: nothing to roll back to", name, latest)
		}
		rev = p.Rows[len(p.Rows)-2].Revision
	}
	if rev == latest {
		return nil, fmt.Errorf("revision %d is already the latest of %q", rev, name)
	}
	if err := c.refuseNewerHelm(ctx, OpRollback, p, latest, rev); err != nil {
		return nil, err
	}
	from, err := c.planned(ctx, p, latest)
	if err != nil {
		return nil, err
	}
	to, err := c.planned(ctx, p, rev)
	if err != nil {
		return nil, err
	}
	d, err := revdiff.Diff(from, to, opts)
	if err != nil {
		return nil, err
	}
	return &RollbackPlan{Plan: *p, Name: name, From: latest, To: rev, Diff: d}, nil
}

// planned decodes revision rev as the plan saw it (the details cache has it by
// resourceVersion).
func (c *Client) planned(ctx context.Context, p *Plan, rev int) (*release.Release, error) {
	row, err := p.Row(rev)
	if err != nil {
		return nil, err
	}
	return c.decodeRow(ctx, p.Release, row)
}

// Rollback plans a rollback to revision rev (0: the one before the latest) and
// applies it at once: for callers that show no plan. One that does hands the plan
// it showed to ApplyRollback.
func (c *Client) Rollback(ctx context.Context, ns, name string, rev int, opts DiffOptions) (*RollbackPlan, error) {
	if err := c.checkWritable("rollback"); err != nil {
		return nil, err
	}
	plan, err := c.PlanRollback(ctx, ns, name, rev, opts)
	if err != nil {
		return nil, err
	}
	return c.ApplyRollback(ctx, plan)
}

// ApplyRollback rolls the release back as plan says, with Helm's own rollback
// action through the chunked driver. It refuses, changing nothing, when the release
// is no longer as planned (the error wraps ErrChanged); a change that lands while
// Helm runs stops it there, and the error says what was done by then.
func (c *Client) ApplyRollback(ctx context.Context, plan *RollbackPlan) (*RollbackPlan, error) {
	if err := c.checkWritable("rollback"); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, errors.New("rollback: no plan to apply")
	}
	p := &plan.Plan
	if err := c.check(ctx, "rollback", p); err != nil {
		return plan, err
	}
	if err := c.refuseNewerHelm(ctx, OpRollback, p, plan.From, plan.To); err != nil {
		return plan, err
	}
	latest, err := p.Row(plan.From)
	if err != nil {
		return plan, err
	}
	cfg, log, err := c.actionConfig(p.StorageNamespace, c.releaseNamespace(ctx, latest))
	if err != nil {
		return plan, err
	}
	drv := c.pinned(ctx, p)
	// Helm's rollback, unlike its upgrade, goes ahead when the latest revision is
	// pending, so that a stuck release can be rolled back. A revision that has just
	// turned pending is an operation in flight, though: rolling back over it would
	// leave two revisions deployed. The guard refuses that case only.
	cfg.Releases = helmstorage.Init(pendingGuard{Driver: drv, now: c.now})
	cfg.KubeClient = guard(cfg.KubeClient, drv)
	// Both revisions were decoded for the plan; the details cache has them.
	if from, err := c.planned(ctx, p, plan.From); err == nil {
		if to, err := c.planned(ctx, p, plan.To); err == nil {
			if err := c.checkResources(ctx, "rollback", cfg.KubeClient, from.Manifest, to.Manifest); err != nil {
				return plan, err
			}
		}
	}
	rb := action.NewRollback(cfg)
	rb.Version = plan.To
	rb.MaxHistory = 0
	err = rb.Run(p.Release)
	if err == nil && drv.conflicted() {
		// Helm went on past a write the store refused as a conflict.
		err = fmt.Errorf("%w: the release changed while it was being rolled back", storage.ErrConflict)
	}
	if err != nil {
		// The revision Helm created is left pending-rollback when it stopped
		// after creating it, a conflict included: mark it failed, or the next
		// rollback would wait for it as for an operation in flight. One another
		// writer stored first (ErrReleaseExists) is not ours.
		if drv.created(storage.RecordKey(p.Release, plan.From+1)) {
			c.markAbandoned(ctx, p, plan.From+1, plan.To, err)
		} else if !errors.Is(err, ErrInProgress) && !errors.Is(err, driver.ErrReleaseExists) && !errors.Is(err, storage.ErrConflict) {
			c.markAbandoned(ctx, p, plan.From+1, plan.To, err)
		}
		return plan, c.explainApply("rollback", p, drv, log.explain(err))
	}
	plan.Applied = true
	// Helm numbers the revision after the latest it read, which the pinned driver
	// held to the plan's.
	plan.NewRevision = plan.From + 1
	if err := c.supersedeOlder(ctx, drv, p); err != nil {
		return plan, c.explainOp("rollback", p.StorageNamespace,
			fmt.Errorf("rolled back, but an older revision is still marked deployed and could not be marked superseded: %w", err))
	}
	return plan, nil
}

// markAbandoned marks failed the revision a failed rollback left pending-rollback,
// as Helm does when it gets the chance: when the request that created it failed
// after being applied, or when the write of its failure failed too, Helm leaves it
// pending, and the next rollback would take it for an operation in flight. Best
// effort: when the cluster cannot be reached now, fix-stuck does it later. The
// operation's own driver may not know that revision (its create failed), so one
// driver value of its own reads it and writes it back: a change another writer makes
// in between is a conflict, and the revision is left alone.
func (c *Client) markAbandoned(ctx context.Context, p *Plan, rev, to int, cause error) {
	drv := c.store(p.driver()).driver(ctx, p.StorageNamespace)
	key := storage.RecordKey(p.Release, rev)
	rls, err := drv.Get(key)
	// Helm's own description of the revision it created; anything else is another
	// operation's.
	if err != nil || rls.Info == nil || rls.Info.Status != release.StatusPendingRollback || rls.Info.Description != fmt.Sprintf("Rollback to %d", to) {
		return
	}
	rls.Info.Status = release.StatusFailed
	rls.Info.Description = "Rollback failed: " + firstLine(cause.Error(), 200)
	_ = drv.Update(key, rls)
}

// firstLine returns s up to its first newline, at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// pendingGrace is how long after it started a pending revision counts as an
// operation in flight rather than a stuck one.
const pendingGrace = 2 * time.Minute

// pendingGuard is the driver under Helm's rollback: its history query fails when
// the latest revision turned pending less than pendingGrace ago.
type pendingGuard struct {
	driver.Driver
	now func() time.Time
}

func (g pendingGuard) Query(lbs map[string]string) ([]*release.Release, error) {
	rels, err := g.Driver.Query(lbs)
	// Helm's history query is exactly name and owner; its other queries add status.
	if err != nil || len(lbs) != 2 || lbs["name"] == "" || lbs["owner"] == "" || len(rels) == 0 {
		return rels, err
	}
	latest := rels[0]
	for _, r := range rels {
		if r.Version > latest.Version {
			latest = r
		}
	}
	if latest.Info != nil && latest.Info.Status.IsPending() {
		if since := g.now().Sub(latest.Info.LastDeployed.Time); since < pendingGrace {
			return nil, fmt.Errorf("%w: revision %d of %q has been %s for %s; nothing was changed: wait for that operation to finish and retry (if it was interrupted, for example by a lost connection, `chunkview fix-stuck %s --mark-failed` gets it out)",
				ErrInProgress, latest.Version, latest.Name, latest.Info.Status, since.Round(time.Second), latest.Name)
		}
	}
	return rels, nil
}

// supersedeOlder marks superseded every deployed revision of a release older than
// its latest deployed one. Helm's rollback logs and ignores a failure to write the
// previous revision's new status, which leaves two revisions deployed; this finishes
// its job through the operation's own driver. A revision that changed meanwhile (a
// conflict) is left to whoever changed it.
func (c *Client) supersedeOlder(ctx context.Context, drv *planDriver, p *Plan) error {
	rows, err := c.WithDrivers(p.driver()).versions(ctx, p.Namespace, p.Release)
	if err != nil {
		return err
	}
	top := 0
	for _, r := range rows {
		if r.Status == release.StatusDeployed.String() && r.Revision > top {
			top = r.Revision
		}
	}
	for _, r := range rows {
		if r.Status != release.StatusDeployed.String() || r.Revision >= top {
			continue
		}
		rls, err := drv.Get(r.Key)
		if errors.Is(err, storage.ErrConflict) {
			continue
		}
		if err != nil {
			return err
		}
		rls.Info.Status = release.StatusSuperseded
		if err := drv.Update(r.Key, rls); err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return nil
}
