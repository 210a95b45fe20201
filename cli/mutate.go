package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// intent is what a run of a mutating command means to change, as the shared step
// needs to know it before any request.
type intent struct {
	// release is the release the command works on.
	release string
	// what names the change in a refusal ("rollback", "fix-stuck --mark-failed");
	// "" for a run that changes nothing (--dry-run, fix-stuck without a fix), which
	// is neither refused under --read-only nor checked for permissions.
	what string
	// op is the operation (kube.Op...) whose permissions on Secrets it needs.
	op string
	// hint is added to a refusal: what the user can run instead.
	hint string
	// yes is --yes: apply without asking.
	yes bool
	// ignoreController is --ignore-controller: go ahead although an active
	// controller reconciles the release.
	ignoreController bool
}

// mutation is a mutating command's own part of the shared step.
type mutation interface {
	// intent says what this run means to change.
	intent() intent
	// plan makes the command's operation from the release as it was read (p),
	// through rn, and prints what it would do, with what it reads through c.
	// It returns the operation and the question to ask before applying it, or
	// a nil operation when there is nothing to apply (a dry run, nothing to
	// fix), the plan printed.
	plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error)
	// applied prints the outcome of the operation once it was applied.
	applied(r *run, op ops.Operation) error
}

// mutate is the one step every mutating command runs: refuse under --read-only,
// connect, locate the release, check the permissions and the controller, plan
// from the revisions the locating listing read, show the plan, confirm, apply. The refusals come before
// anything is asked of the cluster that a refusal would waste, and the question
// before anything changes. What was shown and confirmed is what runs: Apply
// refuses a plan the release moved on from (exit code 7), with one more listing
// of the release's revisions.
func (r *run) mutate(ctx context.Context, m mutation) error {
	in := m.intent()
	refuse := func(err error) error {
		if err == nil || in.hint == "" {
			return err
		}
		return fmt.Errorf("%w; %s", err, in.hint)
	}
	if in.what != "" {
		if err := r.refuseReadOnly(in.what); err != nil {
			return refuse(err)
		}
	}
	c, l, err := r.connectRelease(ctx, in.release)
	if err != nil {
		return err
	}
	// One runner plans and applies: the permission rules its check reads
	// answer the apply's review of the release's resources too.
	rn := ops.NewRunner(c)
	if in.what != "" {
		if err := rn.CheckAllowed(ctx, l.ns, in.op); err != nil {
			return refuse(err)
		}
	}
	rows := l.rows
	if rows == nil {
		if rows, err = c.Versions(ctx, l.ns, in.release); err != nil {
			return err
		}
	}
	p, err := ops.NewPlan(l.ns, rows)
	if err != nil {
		return err
	}
	p.IgnoreController = in.ignoreController
	if in.what != "" {
		// A controller that would undo the change refuses it before the
		// plan is shown (a rollback's diff may run to megabytes) and before
		// the question. Apply checks again.
		if err := rn.CheckControllerOf(ctx, p, in.op); err != nil {
			return err
		}
	}
	op, ask, err := m.plan(ctx, r, rn, c, p)
	if err != nil || op == nil {
		return err
	}
	ask.where = r.where(ctx, c, rn, p)
	if err := r.confirm(in.yes, *ask); err != nil {
		return err
	}
	if err := rn.Apply(ctx, op); err != nil {
		return err
	}
	return m.applied(r, op)
}

// addControllerFlag registers --ignore-controller on a mutating command.
func addControllerFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "ignore-controller", false, "go ahead although a Flux HelmRelease (not suspended) or an OLMv1 ClusterExtension reconciles the release and will undo the change")
}

// where names the kube context and the namespace an operation on p changes, for
// its question: "context prod, namespace payments".
func (r *run) where(ctx context.Context, c *kube.Client, rn *ops.Runner, p *ops.Plan) string {
	ns := p.Namespace
	if latest, err := p.Row(0); err == nil {
		if s := latest.Summary.Namespace; s != "" && !latest.NamespaceUnknown {
			ns = s
		} else if d, err := c.Details(ctx, latest); err == nil && d.Release != nil && d.Release.Namespace != "" {
			ns = d.Release.Namespace
		}
	}
	name := r.session(ctx, c).Context
	if name == "" {
		name = "(none)"
	}
	return fmt.Sprintf("context %s, namespace %s", name, ns)
}
