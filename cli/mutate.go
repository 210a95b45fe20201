package cli

import (
	"context"
	"fmt"

	"github.com/chunkview/chunkview/kube"
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
}

// mutation is a mutating command's own part of the shared step.
type mutation interface {
	// intent says what this run means to change.
	intent() intent
	// plan reads the release in storage namespace ns into the plan that apply will
	// hold to, and prints what it would change. It returns the question to ask
	// before applying, or nil when there is nothing to apply (a dry run, nothing
	// to fix), the plan printed.
	plan(ctx context.Context, r *run, c *kube.Client, ns string) (*confirmation, error)
	// apply applies the plan that was shown and confirmed, and prints the result.
	apply(ctx context.Context, r *run, c *kube.Client) error
}

// mutate is the one step every mutating command runs: refuse under --read-only,
// connect, locate the release, check the permissions, plan and show, confirm,
// apply. The refusals come before anything is asked of the cluster that a
// refusal would waste, and the question before anything changes. What was shown
// and confirmed is what runs: apply refuses a plan the release moved on from
// (exit code 7).
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
	c, ns, err := r.connectTo(ctx, in.release)
	if err != nil {
		return err
	}
	if in.what != "" {
		if err := c.CheckAllowed(ctx, ns, in.op); err != nil {
			return refuse(err)
		}
	}
	ask, err := m.plan(ctx, r, c, ns)
	if err != nil || ask == nil {
		return err
	}
	if err := r.confirm(in.yes, *ask); err != nil {
		return err
	}
	return m.apply(ctx, r, c)
}
