package rollback

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
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
	Err      error
}

// planRollback asks what rolling back to rev would change, planned from base: the
// revisions the history showed, not a fresh listing. The controller that would
// undo it is checked too.
func planRollback(ctx context.Context, c *kube.Client, base *ops.Plan, rev int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		rn := ops.NewRunner(c)
		plan, err := rn.PlanRollback(ctx, base, rev, kube.DiffOptions{Reveal: reveal})
		if err == nil {
			if cerr := rn.CheckController(ctx, plan); cerr != nil {
				plan, err = nil, cerr
			}
		}
		return plannedMsg{Ns: base.Namespace, Name: base.Release, To: rev, Reveal: reveal, Plan: plan, Err: err}
	}
}
