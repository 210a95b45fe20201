package kube

import (
	"context"
	"errors"
	"fmt"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// UninstallPlan is an uninstall as it was shown: the release's revisions and
// whether their records are kept.
type UninstallPlan struct {
	Plan
	// KeepHistory keeps the records, marked uninstalled.
	KeepHistory bool
}

// Uninstall returns the plan of uninstalling the release p describes.
func (p *Plan) Uninstall(keepHistory bool) *UninstallPlan {
	return &UninstallPlan{Plan: *p, KeepHistory: keepHistory}
}

// PlanUninstall reads a release's history and returns the plan of uninstalling it.
func (c *Client) PlanUninstall(ctx context.Context, ns, name string, keepHistory bool) (*UninstallPlan, error) {
	p, err := c.plan(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if err := c.refuseNewerHelm(ctx, OpUninstall, p, p.Latest); err != nil {
		return nil, err
	}
	return p.Uninstall(keepHistory), nil
}

// Uninstall plans and applies at once the removal of a release's resources and
// records (all revisions), or with keepHistory marks it uninstalled and keeps the
// records: for callers that show no plan.
func (c *Client) Uninstall(ctx context.Context, ns, name string, keepHistory bool) (*release.UninstallReleaseResponse, error) {
	if err := c.checkWritable("uninstall"); err != nil {
		return nil, err
	}
	plan, err := c.PlanUninstall(ctx, ns, name, keepHistory)
	if err != nil {
		return nil, err
	}
	return c.ApplyUninstall(ctx, plan)
}

// ApplyUninstall uninstalls the release as plan says, with Helm's own action. It
// refuses, changing nothing, when the release is no longer as planned (the error
// wraps ErrChanged).
func (c *Client) ApplyUninstall(ctx context.Context, plan *UninstallPlan) (*release.UninstallReleaseResponse, error) {
	if err := c.checkWritable("uninstall"); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, errors.New("uninstall: no plan to apply")
	}
	p := &plan.Plan
	if err := c.check(ctx, "uninstall", p); err != nil {
		return nil, err
	}
	latest := p.Rows[len(p.Rows)-1]
	// Helm rewrites the latest revision (uninstalling) before it deletes
	// anything, with or without --keep-history.
	if err := c.refuseNewerHelm(ctx, OpUninstall, p, latest.Revision); err != nil {
		return nil, err
	}
	cfg, log, err := c.actionConfig(p.StorageNamespace, c.releaseNamespace(ctx, latest))
	if err != nil {
		return nil, err
	}
	drv := c.pinned(ctx, p)
	cfg.Releases = helmstorage.Init(drv)
	// Helm's uninstall logs a failed write of the release's status and goes on to
	// delete its resources: the guard stops it there when that failure was the
	// release moving on.
	cfg.KubeClient = guard(cfg.KubeClient, drv)
	// A release already uninstalled with its history kept has no resources left
	// for Helm to delete: only its records go.
	if latest.Status != release.StatusUninstalled.String() {
		if rls, err := c.planned(ctx, p, latest.Revision); err == nil {
			if err := c.checkResources(ctx, "uninstall", cfg.KubeClient, rls.Manifest, ""); err != nil {
				return nil, err
			}
		}
	}
	u := action.NewUninstall(cfg)
	u.KeepHistory = plan.KeepHistory
	u.DisableHooks = false
	res, err := u.Run(p.Release)
	if err != nil || drv.conflicted() {
		if err == nil {
			err = fmt.Errorf("%w: the release changed while it was being uninstalled", storage.ErrConflict)
		}
		return res, c.explainApply("uninstall", p, drv, log.explain(err))
	}
	return res, nil
}
