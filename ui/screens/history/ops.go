package history

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
)

// The operations the history offers (uninstall, prune, delete a revision, fix a
// stuck release): each is worded and planned here, from the release as the
// screen shows it (ops.Plan), and confirmed in a dialog, which runs exactly the
// operation planned and shows its outcome.

// openDialog shows d for operation op, planning it with plan (nil: nothing to
// plan, d asks or says no at once).
func (s *Screen) openDialog(d dialog.Model, op *pendingOp, plan tea.Cmd) tea.Cmd {
	d.SetSize(s.Width, s.Height)
	s.confirm, s.op = &d, op
	if plan != nil {
		*s.confirm = s.confirm.Planning()
	}
	return tea.Batch(plan, s.confirm.Init())
}

// updateDialog gives msg to the dialog, and closes it once it is done with.
func (s *Screen) updateDialog(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*s.confirm, cmd = s.confirm.Update(msg)
	if !s.confirm.Closed() {
		return cmd
	}
	ok, op := s.confirm.Succeeded(), s.op
	s.confirm, s.op = nil, nil
	if ok && op != nil && op.after != nil {
		return tea.Batch(cmd, op.after())
	}
	return cmd
}

// takeOpMsg takes the plan of the operation its dialog asks about, and its
// outcome.
func (s *Screen) takeOpMsg(msg tea.Msg) tea.Cmd {
	d, op := s.confirm, s.op
	if d == nil || op == nil {
		return nil
	}
	switch msg := msg.(type) {
	case opPlannedMsg:
		if msg.Kind != op.kind || msg.Ns != op.ns || msg.Name != op.name || d.State() != dialog.Planning {
			return nil
		}
		if msg.Err != nil {
			d.Fail(common.ShortError(msg.Err))
			return nil
		}
		op.planned(msg.Op)
	case common.ActionDoneMsg:
		if msg.Kind != op.kind || msg.Ns != op.ns || msg.Name != op.name || d.State() != dialog.Running {
			return nil
		}
		failure := ""
		if msg.Err != nil {
			failure = common.ShortError(msg.Err)
		}
		d.Finish(msg.Text, failure)
		return common.AfterAction(msg)
	}
	return nil
}

// runOp applies op, which the person confirmed, through kube/ops' runner:
// exactly the operation planned, refused if the release moved on since.
func runOp(c common.Common, kind common.ActionKind, rev int, op ops.Operation, done func() string) tea.Cmd {
	p := op.Base()
	return common.RunAction(kind, p.Namespace, p.Release, rev, func() error { return ops.NewRunner(c.Client).Apply(c.Ctx, op) }, done)
}

// newDialog is the dialog of an operation on the release.
func (s *Screen) newDialog(heading, body string) dialog.Model {
	return s.NewDialog(heading, common.ActionNamespace(s.rows, s.ns), body)
}

// deniedDialog says why the user may not run op (why wraps kube.ErrForbidden),
// in place of the operation's dialog: nothing is asked and nothing is sent.
func (s *Screen) deniedDialog(op string, why error) tea.Cmd {
	d := s.newDialog(fmt.Sprintf("%s %s: not permitted", op, s.name),
		"Your credentials do not allow this, so chunkview did not try it: nothing was sent to the cluster.")
	d.Fail(common.ShortError(why))
	return s.openDialog(d, nil, nil)
}

// checked is a planned operation, refused when the release's controller is
// active (ops.Runner.CheckController): the dialog then says so and asks nothing.
func checked[O ops.Operation](c common.Common) func(op O, err error) (ops.Operation, error) {
	return func(op O, err error) (ops.Operation, error) {
		if err != nil {
			return nil, err
		}
		if err := ops.NewRunner(c.Client).CheckController(c.Ctx, op); err != nil {
			return nil, err
		}
		return op, nil
	}
}

// uninstallDialog asks to type the release name before uninstalling it, for
// the release as plan p shows it.
func (s *Screen) uninstallDialog(p *ops.Plan) tea.Cmd {
	c := s.Common
	d := s.newDialog("Uninstall "+p.Release,
		fmt.Sprintf("Helm uninstalls %s: it deletes the release's resources (running its delete hooks) and all %d revision records. This cannot be undone.", p.Release, len(p.Rows))).Typed(p.Release)
	plan := planOp(common.ActionUninstall, p.Namespace, p.Release, func() (ops.Operation, error) {
		return checked[*ops.Uninstall](c)(ops.NewRunner(c.Client).PlanUninstall(c.Ctx, p, false))
	})
	op := &pendingOp{kind: common.ActionUninstall, ns: p.Namespace, name: p.Release, after: func() tea.Cmd {
		return common.Pop("Uninstalled " + s.name + ".")
	}}
	op.planned = func(o ops.Operation) {
		u := o.(*ops.Uninstall)
		s.confirm.Ask(u.Describe()+objectList("Deletes", u.Deletes, 6)+objectList("Keeps", u.Keeps, 3), nil)
		s.confirm.OnConfirm = func(int) tea.Cmd {
			return runOp(c, common.ActionUninstall, 0, u, func() string {
				return fmt.Sprintf("Uninstalled %s: its resources and all its revision records were deleted.", p.Release)
			})
		}
	}
	return s.openDialog(d, op, plan)
}

// pruneKeeps are the --keep values the prune dialog offers, the first being
// Helm's own default --history-max.
var pruneKeeps = []int{10, 5, 3, 1}

// pruneDialog offers to prune the history of the release p shows: each choice
// keeps a number of the newest revisions (and the deployed one), and says what
// goes and the bytes it frees; the release's name is typed to confirm.
func (s *Screen) pruneDialog(p *ops.Plan) tea.Cmd {
	c := s.Common
	d := s.newDialog("Prune "+p.Release,
		fmt.Sprintf("Deletes the records of old revisions of %s, oldest first, with all their Secrets. The release's resources stay as they are.", p.Release)).Typed(p.Release)
	var plans []*ops.Prune
	plan := planOp(common.ActionPrune, p.Namespace, p.Release, func() (ops.Operation, error) {
		rn := ops.NewRunner(c.Client)
		var first ops.Operation
		for _, keep := range pruneKeeps {
			pr, err := checked[*ops.Prune](c)(rn.PlanPrune(c.Ctx, p, keep))
			if err != nil {
				return nil, err
			}
			if len(pr.(*ops.Prune).Removed) == 0 {
				continue
			}
			plans = append(plans, pr.(*ops.Prune))
			if first == nil {
				first = pr
			}
		}
		if first == nil {
			return nil, fmt.Errorf("%s keeps its %d revisions with every choice (%v): there is nothing to prune", p.Release, len(p.Rows), pruneKeeps)
		}
		return first, nil
	})
	op := &pendingOp{kind: common.ActionPrune, ns: p.Namespace, name: p.Release}
	op.planned = func(ops.Operation) {
		choices := []dialog.Choice{}
		for _, pr := range plans {
			choices = append(choices, dialog.Choice{Label: fmt.Sprintf("Keep the newest %d (delete %d)", pr.Keep, len(pr.Removed)), Warning: pr.Describe()})
		}
		s.confirm.Ask(fmt.Sprintf("Deletes the records of old revisions of %s, oldest first, with all their Secrets. The release's resources stay as they are.", p.Release), choices)
		s.confirm.OnConfirm = func(i int) tea.Cmd {
			pr := plans[i]
			return runOp(c, common.ActionPrune, 0, pr, func() string {
				return fmt.Sprintf("Pruned %s: deleted %d revision records, kept %d.", pr.Release, pr.Done, len(pr.Kept))
			})
		}
	}
	return s.openDialog(d, op, plan)
}

// objectList lists objects under a heading, at most n of them and how many more.
func objectList(heading string, objs []string, n int) string {
	if len(objs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n%s:", heading)
	for i, o := range objs {
		if i == n {
			fmt.Fprintf(&b, "\n  … and %d more", len(objs)-n)
			break
		}
		b.WriteString("\n  " + o)
	}
	return b.String()
}

// deleteDialog asks to type the release name before deleting one revision's
// record, of the release as plan p shows it.
func (s *Screen) deleteDialog(p *ops.Plan, row kube.RevisionRow) tea.Cmd {
	c := s.Common
	force := row.Broken
	d := s.newDialog(fmt.Sprintf("Delete revision %d of %s", row.Revision, row.Name),
		fmt.Sprintf("Deletes the record of revision %d of %s: its %s.", row.Revision, row.Name, common.ObjectNoun(row.Driver))).Typed(row.Name)
	plan := planOp(common.ActionDelete, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.DeleteRevision](c)(ops.NewRunner(c.Client).PlanDeleteRevision(c.Ctx, p, row.Revision, force))
	})
	op := &pendingOp{kind: common.ActionDelete, ns: p.Namespace, name: row.Name}
	op.planned = func(o ops.Operation) {
		del := o.(*ops.DeleteRevision)
		s.confirm.Ask(fmt.Sprintf("Deletes the record of revision %d of %s: its %s. ", row.Revision, row.Name, common.ObjectNoun(row.Driver))+
			strings.TrimPrefix(del.Describe(), fmt.Sprintf("Deletes the record of revision %d of %s. ", row.Revision, row.Name)), nil)
		s.confirm.OnConfirm = func(int) tea.Cmd {
			return runOp(c, common.ActionDelete, row.Revision, del, func() string {
				return fmt.Sprintf("Deleted the record of revision %d of %s (its %s).", row.Revision, row.Name, common.ObjectNoun(row.Driver))
			})
		}
	}
	return s.openDialog(d, op, plan)
}

// fixStuckDialog offers the two ways out of a stuck release, each with its
// warning, for the release as plan p shows it.
func (s *Screen) fixStuckDialog(p *ops.Plan) tea.Cmd {
	c := s.Common
	fixes := []ops.StuckFix{ops.FixMarkFailed, ops.FixDeletePending}
	row := p.Rows[len(p.Rows)-1]
	d := s.newDialog("Fix stuck release "+row.Name, fmt.Sprintf("Revision %d of %s is %s.", row.Revision, row.Name, row.Status)).WithChoices([]dialog.Choice{
		{Label: fmt.Sprintf("Mark revision %d failed (%s)", row.Revision, ops.FixMarkFailed), Warning: ops.FixMarkFailed.Warning()},
		{Label: fmt.Sprintf("Delete revision %d (%s)", row.Revision, ops.FixDeletePending), Warning: ops.FixDeletePending.Warning()},
	})
	plan := planOp(common.ActionFixStuck, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.FixStuck](c)(ops.NewRunner(c.Client).PlanFixStuck(c.Ctx, p, ""))
	})
	op := &pendingOp{kind: common.ActionFixStuck, ns: p.Namespace, name: row.Name}
	op.planned = func(o ops.Operation) {
		fs := o.(*ops.FixStuck)
		if fs.Stuck == nil {
			s.confirm.Fail(common.ShortError(fmt.Errorf("%s is not stuck: there is nothing to fix", row.Name)))
			return
		}
		state := fmt.Sprintf("has been %s for %s", row.Status, human.Span(fs.Stuck.For))
		if fs.Stuck.InProgress {
			state += fmt.Sprintf(", less than %s: the operation that wrote it is probably still running. Fix it only if you know it was interrupted", human.Span(c.Client.StuckAfter()))
		}
		s.confirm.Ask(fmt.Sprintf("Revision %d of %s %s. %s If the operation that wrote it is gone (a killed helm, a restarted operator), pick a way out (through Helm %d):",
			row.Revision, row.Name, state, render.PendingMeans(row.Revision, row.Status), fs.Major), nil)
		s.confirm.OnConfirm = func(i int) tea.Cmd {
			fs.Fix = fixes[i]
			return runOp(c, common.ActionFixStuck, row.Revision, fs, func() string {
				if fixes[i] == ops.FixMarkFailed {
					return fmt.Sprintf("Revision %d of %s is now marked failed; Helm can upgrade it again.", row.Revision, row.Name)
				}
				return fmt.Sprintf("Deleted %s revision %d of %s; the previous revision is the latest again.", row.Status, row.Revision, row.Name)
			})
		}
	}
	return s.openDialog(d, op, plan)
}
