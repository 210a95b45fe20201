package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
)

// diffLoadedMsg answers loadDiff and planRollback.
type diffLoadedMsg struct {
	ns, name string
	from, to int
	reveal   bool
	rollback bool
	result   *revdiff.Result
	plan     *ops.Rollback
	err      error
}

func loadDiff(ctx context.Context, c *kube.Client, ns, name string, from, to int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		res, err := c.Diff(ctx, ns, name, from, to, kube.DiffOptions{Reveal: reveal})
		return diffLoadedMsg{ns: ns, name: name, from: from, to: to, reveal: reveal, result: res, err: err}
	}
}

// planRollback asks what rolling back to rev would change, planned from base: the
// revisions the history showed, not a fresh listing. The message's from and to are
// those of the request (0 for from: the latest); the plan has the real ones.
func planRollback(ctx context.Context, c *kube.Client, base *ops.Plan, rev int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		rn := ops.NewRunner(c)
		plan, err := rn.PlanRollback(ctx, base, rev, kube.DiffOptions{Reveal: reveal})
		if err == nil {
			if cerr := rn.CheckController(ctx, plan); cerr != nil {
				plan, err = nil, cerr
			}
		}
		msg := diffLoadedMsg{ns: base.Namespace, name: base.Release, to: rev, reveal: reveal, rollback: true, plan: plan, err: err}
		if plan != nil {
			msg.result = plan.Diff
		}
		return msg
	}
}
