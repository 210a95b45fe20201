package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
)

// ErrControlled is wrapped by the refusal of an operation on a release whose
// controller is active: it would undo the change minutes later.
var ErrControlled = errors.New("the release's controller would undo this")

// CheckController refuses op when the release it changes is reconciled by an
// active controller (a Flux HelmRelease that is not suspended, an OLMv1
// ClusterExtension named by any revision's controller reference or owner
// labels, or by the release's own labels), unless its plan says to go ahead anyway
// (Plan.IgnoreController). The refusal names the controller and how to pause it.
// It reads the controller afresh: a HelmRelease suspended after the plan lets the
// operation run. A controller that cannot be read does not stop the operation.
func (r *Runner) CheckController(ctx context.Context, op Operation) error {
	return r.CheckControllerOf(ctx, op.Base(), op.Verb())
}

// releaseLabels returns the release's own labels, from the payload of its
// latest revision that can be read (through the details cache, which the plan
// reads anyway).
func (r *Runner) releaseLabels(ctx context.Context, p *Plan) map[string]string {
	for i := len(p.Rows) - 1; i >= 0; i-- {
		d, err := r.c.Details(ctx, p.Rows[i])
		if err != nil {
			return nil
		}
		if d.Release != nil {
			return d.Release.Labels
		}
	}
	return nil
}

// CheckControllerOf is CheckController for the operation verb (kube.OpRollback,
// ...) on the release as p found it, before that operation is planned: a refusal
// then comes before a plan is made and shown, whose diff may run to megabytes.
func (r *Runner) CheckControllerOf(ctx context.Context, p *Plan, verb string) error {
	if p == nil || p.IgnoreController || len(p.Rows) == 0 {
		return nil
	}
	r.discovery()
	ctl, err := owner.OfRelease(ctx, r.c, p.Rows, func() map[string]string { return r.releaseLabels(ctx, p) })
	if err != nil || !ctl.Active() {
		return nil
	}
	state := "active"
	if ctl.Kind == kube.KindHelmRelease {
		state = "not suspended"
	}
	return fmt.Errorf("%w: %s of %s refused: %s (%s) reconciles it and would undo the change; %s, or pass --ignore-controller to go ahead anyway. Nothing was changed",
		ErrControlled, verb, p.Release, ctl.ID(), state, ctl.Pause())
}
