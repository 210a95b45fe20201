package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// DeleteRevision is the planned deletion of one revision record: its index and
// chunk Secrets, or Helm's one Secret or ConfigMap. The release's resources stay
// as they are.
type DeleteRevision struct {
	// Plan is the release as it was when the deletion was planned.
	Plan `json:"-"`
	// Revision is the revision whose record goes, Key its record's name.
	Revision int    `json:"revision"`
	Key      string `json:"key"`
	// Force deletes the record without decoding it, for one that cannot be read.
	Force bool `json:"force"`
	// LeavesNoneDeployed is set when the revision is the only deployed one and
	// the latest: without it, `helm ls` no longer lists the release (it lists
	// releases by their latest deployed, failed or pending revision).
	LeavesNoneDeployed bool `json:"leavesNoneDeployed,omitempty"`
	// Helm is which Helm's driver deletes it, and why.
	HelmChoice
}

var _ Operation = (*DeleteRevision)(nil)

// Verb is kube.OpDeleteRevision.
func (o *DeleteRevision) Verb() string { return kube.OpDeleteRevision }

// Base is the release the deletion was planned from.
func (o *DeleteRevision) Base() *Plan { return &o.Plan }

// Helm is the Helm whose driver deletes the record.
func (o *DeleteRevision) Helm() int { return o.Major }

// PlanDeleteRevision returns the plan of deleting revision rev's record of the
// release of p. With force the record is deleted without being decoded.
func (r *Runner) PlanDeleteRevision(ctx context.Context, p *Plan, rev int, force bool) (*DeleteRevision, error) {
	if rev <= 0 {
		return nil, fmt.Errorf("delete-revision needs a revision number")
	}
	row, err := p.Row(rev)
	if err != nil {
		return nil, err
	}
	o := &DeleteRevision{Plan: *p, Revision: rev, Key: row.Key, Force: force}
	deployed := 0
	for _, r := range p.Rows {
		if r.Status == "deployed" {
			deployed++
		}
	}
	o.LeavesNoneDeployed = rev == p.Latest && row.Status == "deployed" && deployed == 1
	if force {
		o.HelmChoice = HelmChoice{Major: 3, Reason: "the record is deleted as it is, without being read"}
		return o, nil
	}
	if o.HelmChoice, err = r.helmFor(ctx, p, rev); err != nil {
		return nil, err
	}
	return o, nil
}

// Describe says in a sentence what the deletion does.
func (o *DeleteRevision) Describe() string {
	s := fmt.Sprintf("Deletes the record of revision %d of %s. The release's resources stay as they are.", o.Revision, o.Release)
	if o.Revision == o.Latest {
		s += " This is the latest revision: Helm will then see the one before as the latest."
	}
	if o.LeavesNoneDeployed {
		s += " It is the only deployed revision: no revision is deployed afterwards, so `helm ls` no longer lists the release (`helm ls -a` does), and a rollback is needed to deploy one again."
	}
	if o.Force {
		s += " It is deleted without being read (--force)."
	}
	return s
}

// run deletes the record through Helm's driver.
func (o *DeleteRevision) run(_ context.Context, r *Runner, h helm) error {
	var err error
	if o.Force {
		err = h.forceDelete(o.Key)
	} else {
		err = h.delete(o.Key)
	}
	switch {
	case err == nil:
		return nil
	case notFound(err) && !h.track().conflicted():
		return refuse(fmt.Errorf("%w: revision %d of %q is already gone", kube.ErrNotFound, o.Revision, o.Release))
	case !o.Force && errors.Is(err, storage.ErrCorrupt):
		return refuse(fmt.Errorf("%w; this revision cannot be decoded: use --force to delete its record anyway", err))
	}
	return err
}
