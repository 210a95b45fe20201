package rollback

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
)

// plannedMsg answers planRollback: the rollback to revision To, planned with
// values masked or revealed. It carries the release it answers, so that a late
// answer is dropped.
type plannedMsg struct {
	Ns, Name string
	To       int
	Reveal   bool
	Plan     *ops.Rollback
	// APIs is what the two revisions use that the cluster no longer
	// serves; nil when that is not known (the demo's cluster).
	APIs *ops.RollbackAPIs
	Err  error
}

// planRollback asks what rolling back to rev would change, planned from base: the
// revisions the history showed, not a fresh listing. The controller that would
// undo it is checked too.
//
// The revisions are checked against served (what the history checked its
// revisions against), else what the cluster serves now: Helm's rollback of a
// revision whose API is no longer served fails after recording its new
// revision, which the plan warns of, as the CLI's does.
func planRollback(ctx context.Context, c *kube.Client, base *ops.Plan, rev int, reveal bool, served *apis.Served) tea.Cmd {
	return func() tea.Msg {
		rn := ops.NewRunner(c)
		plan, err := rn.PlanRollback(ctx, base, rev, kube.DiffOptions{Reveal: reveal})
		if err == nil {
			if cerr := rn.CheckController(ctx, plan); cerr != nil {
				plan, err = nil, cerr
			}
		}
		msg := plannedMsg{Ns: base.Namespace, Name: base.Release, To: rev, Reveal: reveal, Plan: plan, Err: err}
		if err != nil {
			return msg
		}
		if served == nil {
			served, _ = kube.NewChecker(c).ServedAPIs(ctx) // unknown on the demo's cluster: no warning
		}
		if served != nil {
			if ra, aerr := rn.RollbackAPIs(ctx, plan, served); aerr == nil {
				msg.APIs = &ra
			}
		}
		return msg
	}
}
