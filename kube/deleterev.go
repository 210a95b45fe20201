package kube

import (
	"context"
	"errors"
	"fmt"

	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// DeleteRevisionPlan is the deletion of one revision record as it was shown.
type DeleteRevisionPlan struct {
	Plan
	// Revision is the revision whose record goes, Key its index Secret.
	Revision int
	Key      string
	// Force deletes the record without decoding it, for one that cannot be read.
	Force bool
}

// DeleteRevision returns the plan of deleting revision rev of the release p
// describes.
func (p *Plan) DeleteRevision(rev int, force bool) (*DeleteRevisionPlan, error) {
	if rev <= 0 {
		return nil, fmt.Errorf("delete-revision needs a revision number")
	}
	row, err := p.Row(rev)
	if err != nil {
		return nil, err
	}
	return &DeleteRevisionPlan{Plan: *p, Revision: rev, Key: row.Key, Force: force}, nil
}

// PlanDeleteRevision reads a release's history and returns the plan of deleting
// revision rev's record.
func (c *Client) PlanDeleteRevision(ctx context.Context, ns, name string, rev int, force bool) (*DeleteRevisionPlan, error) {
	if rev <= 0 {
		return nil, fmt.Errorf("delete-revision needs a revision number")
	}
	p, err := c.plan(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return p.DeleteRevision(rev, force)
}

// DeleteRevision plans and applies at once the deletion of one revision record
// (its index and chunks): for callers that show no plan. With force the record is
// deleted without being decoded. The release's resources are left as they are.
func (c *Client) DeleteRevision(ctx context.Context, ns, name string, rev int, force bool) error {
	if err := c.checkWritable("delete-revision"); err != nil {
		return err
	}
	plan, err := c.PlanDeleteRevision(ctx, ns, name, rev, force)
	if err != nil {
		return err
	}
	return c.ApplyDeleteRevision(ctx, plan)
}

// ApplyDeleteRevision deletes the revision record plan names, through the driver.
// It refuses, changing nothing, when the release is no longer as planned (the
// error wraps ErrChanged).
func (c *Client) ApplyDeleteRevision(ctx context.Context, plan *DeleteRevisionPlan) error {
	if err := c.checkWritable("delete-revision"); err != nil {
		return err
	}
	if plan == nil {
		return errors.New("delete-revision: no plan to apply")
	}
	p := &plan.Plan
	if err := c.check(ctx, "delete-revision", p); err != nil {
		return err
	}
	return c.deleteRecord(ctx, "delete-revision", p, c.pinned(ctx, p), plan.Revision, plan.Key, plan.Force)
}

// deleteRecord deletes revision rev's record through drv, the operation's driver.
func (c *Client) deleteRecord(ctx context.Context, op string, p *Plan, drv *planDriver, rev int, key string, force bool) error {
	var err error
	if force {
		err = drv.ForceDelete(key)
	} else {
		_, err = drv.Delete(key)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, driver.ErrReleaseNotFound):
		return fmt.Errorf("%w: revision %d of %q is already gone", ErrNotFound, rev, p.Release)
	case !force && errors.Is(err, storage.ErrCorrupt):
		return fmt.Errorf("%w; this revision cannot be decoded: use --force to delete its record anyway", err)
	}
	return c.explainApply(op, p, drv, err)
}
