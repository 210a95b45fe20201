package fixapis

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
)

// plannedMsg answers planFix: the fix planned with values masked or revealed,
// with or without --drop-unserved. It carries the release it answers, so that
// a late answer is dropped.
type plannedMsg struct {
	Ns, Name string
	Reveal   bool
	Drop     bool
	Plan     *ops.FixAPIs
	Err      error
}

// planFix plans fix-apis from base (the revisions the history showed) against
// served, as the CLI's fix-apis does; the controller that would undo it is
// checked too.
func planFix(ctx context.Context, c *kube.Client, base *ops.Plan, served *apis.Served, drop, reveal bool) tea.Cmd {
	return func() tea.Msg {
		rn := ops.NewRunner(c)
		fix, err := rn.PlanFixAPIs(ctx, base, served, drop, kube.DiffOptions{Reveal: reveal})
		if err == nil && fix.Fix.Changed() {
			if cerr := rn.CheckController(ctx, fix); cerr != nil {
				fix, err = nil, cerr
			}
		}
		return plannedMsg{Ns: base.Namespace, Name: base.Release, Reveal: reveal, Drop: drop, Plan: fix, Err: err}
	}
}
