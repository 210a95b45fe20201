package dialog

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// State is where a confirmation dialog is: asking, waiting for the
// operation, or showing its outcome.
type State int

const (
	Asking State = iota
	Running
	Done
	// Planning: the operation is being planned (decoding what it needs);
	// nothing can be confirmed yet.
	Planning
)

// choice is one of the ways a dialog offers (the stuck-release fixes).
type choice struct {
	label   string
	warning string
}

// Confirm asks before an operation that changes the cluster, runs it, and
// shows its outcome in place. Destructive ones (uninstall, delete a revision) want
// the release's name typed out; the others a "y". With choices, the user first
// picks one, and its warning is shown before the "y".
type Confirm struct {
	common.Common
	kind     common.ActionKind
	ns, name string
	rev      int
	heading  string
	body     string
	// where names the context and namespace the operation changes: shown
	// above the question, so that the wrong cluster is noticed.
	where string
	// want, when set, must be typed to confirm.
	want  string
	Input textinput.Model
	// choices, when set, are picked from; cursor is the one picked.
	choices []choice
	cursor  int
	// run starts the operation with the picked choice.
	run func(choice int) tea.Cmd
	// plan, while planning, makes the operation; planned takes it, filling the
	// body and run.
	plan    tea.Cmd
	planned func(op ops.Operation)
	// After runs when a successful dialog is closed.
	After func() tea.Cmd

	State  State
	result string
	Err    error
	hint   string
}

// New asks heading and body about operation kind on revision rev of a release.
func New(c common.Common, kind common.ActionKind, ns, name string, rev int, heading, body string) *Confirm {
	in := common.NewTextInput()
	in.Prompt = "> "
	in.SetWidth(30)
	return &Confirm{Common: c, kind: kind, ns: ns, name: name, rev: rev, heading: heading, body: body, where: c.Where(ns), Input: in}
}

// typed makes the dialog want the release name typed out.
func (d *Confirm) typed() *Confirm {
	d.want = d.name
	d.Input.Placeholder = d.name
	return d
}

// Init starts the first loads.
func (d *Confirm) Init() tea.Cmd {
	var cmds []tea.Cmd
	if d.plan != nil {
		d.State = Planning
		cmds = append(cmds, d.plan)
	}
	if d.want != "" {
		cmds = append(cmds, d.Input.Focus())
	}
	return tea.Batch(cmds...)
}

// planning makes the dialog plan its operation with plan before it asks;
// planned then takes the operation.
func (d *Confirm) planning(plan tea.Cmd, planned func(op ops.Operation)) *Confirm {
	d.plan, d.planned = plan, planned
	return d
}

// Capturing reports whether typed letters belong to the dialog.
func (d *Confirm) Capturing() bool { return d.want != "" && d.State == Asking }

// Update handles the dialog's keys and its operation's outcome; closed reports
// that the dialog is done with.
func (d *Confirm) Update(msg tea.Msg) (cmd tea.Cmd, closed bool) {
	switch msg := msg.(type) {
	case common.OpPlannedMsg:
		if msg.Kind != d.kind || msg.Ns != d.ns || msg.Name != d.name || d.State != Planning {
			return nil, false
		}
		if msg.Err != nil {
			d.State, d.Err = Done, msg.Err
			return nil, false
		}
		d.State = Asking
		d.planned(msg.Op)
		return nil, false
	case common.ActionDoneMsg:
		if msg.Kind != d.kind || msg.Ns != d.ns || msg.Name != d.name || d.State != Running {
			return nil, false
		}
		d.State = Done
		d.result, d.Err = msg.Text, msg.Err
		return common.AfterAction(msg), false
	case tea.KeyPressMsg:
		return d.handleKey(msg)
	}
	if d.want != "" && d.State == Asking {
		var c tea.Cmd
		d.Input, c = d.Input.Update(msg)
		return c, false
	}
	return nil, false
}

func (d *Confirm) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.Keys.Dialog
	switch d.State {
	case Running:
		return nil, false
	case Planning:
		if key.Matches(msg, d.Keys.Global.Back) {
			return nil, true
		}
		return nil, false
	case Done:
		if key.Matches(msg, k.Close) {
			if d.Err == nil && d.After != nil {
				return d.After(), true
			}
			return nil, true
		}
		return nil, false
	}
	if key.Matches(msg, d.Keys.Global.Back) {
		return nil, true
	}
	if len(d.choices) > 0 {
		// With a name to type, letters and digits are the name's: only the
		// arrow keys move between the choices.
		up, down := key.Matches(msg, k.Up), key.Matches(msg, k.Down)
		if d.want != "" {
			up, down = msg.String() == "up", msg.String() == "down"
		}
		switch {
		case up:
			d.cursor = max(d.cursor-1, 0)
			return nil, false
		case down:
			d.cursor = min(d.cursor+1, len(d.choices)-1)
			return nil, false
		}
		if s := msg.String(); d.want == "" && len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < len(d.choices) {
			d.cursor = int(s[0] - '1')
			return nil, false
		}
	}
	if d.want != "" {
		if key.Matches(msg, k.Submit) {
			if strings.TrimSpace(d.Input.Value()) != d.want {
				d.hint = fmt.Sprintf("Type %q exactly to confirm, or press esc.", d.want)
				return nil, false
			}
			return d.start(), false
		}
		var c tea.Cmd
		d.Input, c = d.Input.Update(msg)
		d.hint = ""
		return c, false
	}
	switch {
	case key.Matches(msg, k.Confirm):
		return d.start(), false
	case key.Matches(msg, k.Cancel):
		return nil, true
	}
	return nil, false
}

func (d *Confirm) start() tea.Cmd {
	d.State = Running
	d.Input.Blur()
	return d.run(d.cursor)
}

// Busy reports whether it waits on the cluster, for the spinner.
func (d *Confirm) Busy() bool { return d.State == Running }

// Help returns its keys for the help line and the overlay.
func (d *Confirm) Help() common.HelpKeys {
	k := d.Keys.Dialog
	var short []key.Binding
	switch {
	case d.State == Done:
		short = []key.Binding{k.Close}
	case d.State == Running:
	case d.State == Planning:
		short = []key.Binding{d.Keys.Global.Back}
	case d.want != "":
		short = []key.Binding{k.Submit, d.Keys.Global.Back}
	case len(d.choices) > 0:
		short = []key.Binding{k.Up, k.Down, k.Confirm, k.Cancel}
	default:
		short = []key.Binding{k.Confirm, k.Cancel}
	}
	return common.HelpKeys{Short: short, Full: [][]key.Binding{short}}
}

// View draws it in exactly its size.
func (d *Confirm) View() string {
	st := d.Styles
	width := min(d.Width-4, 72)
	inner := width - 4
	var lines []string
	add := func(text string) { lines = append(lines, strings.Split(text, "\n")...) }
	add(st.Bold.Render(table.Wrap("On "+d.where, inner)))
	add(table.Wrap(d.body, inner))
	selected := -1
	for i, c := range d.choices {
		add("")
		mark := "  "
		if i == d.cursor {
			mark = st.Cursor.Render("▶ ")
			selected = len(lines)
		}
		// A label the box would wrap is wrapped here, so that the lines
		// counted are the lines drawn.
		for j, l := range strings.Split(table.Wrap(fmt.Sprintf("%d. %s", i+1, c.label), inner-2), "\n") {
			if i == d.cursor {
				l = st.Selected.Render(l)
			}
			if j > 0 {
				mark = "  "
			}
			lines = append(lines, mark+l)
		}
		if i == d.cursor && c.warning != "" {
			add(st.Warning.Render(table.Wrap("⚠ "+c.warning, inner)))
		}
	}
	var foot strings.Builder
	switch d.State {
	case Planning:
		foot.WriteString(st.Dim.Render(table.Wrap("Working out what this would do… (nothing is changed yet)", inner)))
	case Asking:
		if d.want != "" {
			foot.WriteString(st.Prompt.Render(fmt.Sprintf("Type the release name (%s) to confirm:", d.want)) + "\n")
			foot.WriteString(d.Input.View())
			if d.hint != "" {
				foot.WriteString("\n" + st.Warning.Render(table.Wrap(d.hint, inner)))
			}
		} else {
			foot.WriteString(st.Prompt.Render("Proceed? y: yes · esc: cancel"))
		}
	case Running:
		foot.WriteString(st.Dim.Render(table.Wrap("Working… (the cluster is being changed; wait for the result)", inner)))
	case Done:
		if d.Err != nil {
			foot.WriteString(st.RenderError(d.Err, inner))
		} else {
			foot.WriteString(st.OK.Render(table.Wrap("✓ "+d.result, inner)))
		}
		foot.WriteString("\n" + st.Dim.Render("enter: close"))
	}
	// The box must fit the screen with its buttons: the text above them gives
	// way, keeping the selected choice in view.
	footLines := strings.Count(foot.String(), "\n") + 1
	room := d.Height - st.Dialog.GetVerticalFrameSize() - 2 - 1 - footLines
	lines = WindowLines(lines, max(room, 1), selected)
	return st.DialogBox(d.heading, strings.Join(lines, "\n")+"\n\n"+foot.String(), width)
}

// WindowLines returns at most n of lines, a window that shows line keep (-1: the
// first ones), with "…" in place of the first or last line shown when lines
// continue above or below it.
func WindowLines(lines []string, n, keep int) []string {
	if len(lines) <= n {
		return lines
	}
	start := 0
	if keep >= 0 {
		// The selected line and the two after it (its warning) in view, and
		// never under the "…" that marks the lines above.
		start = max(0, min(keep+3-n, keep-1, len(lines)-n))
	}
	out := append([]string(nil), lines[start:start+n]...)
	if start > 0 {
		out[0] = "…"
	}
	if start+n < len(lines) && n > 1 {
		out[n-1] = "…"
	}
	return out
}

// Denied says why the user may not run op (why wraps kube.ErrForbidden), in
// place of the operation's dialog: nothing is asked and nothing is sent.
func Denied(c common.Common, ns, name, op string, why error) *Confirm {
	d := New(c, common.ActionKind(op), ns, name, 0, fmt.Sprintf("%s %s: not permitted", op, name),
		"Your credentials do not allow this, so chunkview did not try it: nothing was sent to the cluster.")
	d.State, d.Err = Done, why
	return d
}

// Uninstall asks to type the release name before uninstalling it. It holds
// the plan it shows: the release as the screen read it.
func Uninstall(c common.Common, p *ops.Plan) *Confirm {
	d := New(c, common.ActionUninstall, p.Namespace, p.Release, 0, "Uninstall "+p.Release,
		fmt.Sprintf("Helm uninstalls %s: it deletes the release's resources (running its delete hooks) and all %d revision records. This cannot be undone.", p.Release, len(p.Rows)))
	plan := common.PlanOp(common.ActionUninstall, p.Namespace, p.Release, func() (ops.Operation, error) {
		return checked[*ops.Uninstall](c)(ops.NewRunner(c.Client).PlanUninstall(c.Ctx, p, false))
	})
	return d.planning(plan, func(op ops.Operation) {
		u := op.(*ops.Uninstall)
		d.body = u.Describe() + objectList("Deletes", u.Deletes, 6) + objectList("Keeps", u.Keeps, 3)
		d.run = func(int) tea.Cmd {
			return common.RunOp(c.Ctx, c.Client, common.ActionUninstall, 0, u, func() string {
				return fmt.Sprintf("Uninstalled %s: its resources and all its revision records were deleted.", p.Release)
			})
		}
	}).typed()
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

// pruneKeeps are the --keep values the prune dialog offers, the first being
// Helm's own default --history-max.
var pruneKeeps = []int{10, 5, 3, 1}

// Prune offers to prune the history of the release p shows: each choice
// keeps a number of the newest revisions (and the deployed one), and says what
// goes and the bytes it frees; the release's name is typed to confirm.
func Prune(c common.Common, p *ops.Plan) *Confirm {
	d := New(c, common.ActionPrune, p.Namespace, p.Release, 0, "Prune "+p.Release,
		fmt.Sprintf("Deletes the records of old revisions of %s, oldest first, with all their Secrets. The release's resources stay as they are.", p.Release))
	var plans []*ops.Prune
	plan := common.PlanOp(common.ActionPrune, p.Namespace, p.Release, func() (ops.Operation, error) {
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
	return d.planning(plan, func(ops.Operation) {
		d.choices = nil
		for _, pr := range plans {
			d.choices = append(d.choices, choice{label: fmt.Sprintf("Keep the newest %d (delete %d)", pr.Keep, len(pr.Removed)), warning: pr.Describe()})
		}
		d.run = func(i int) tea.Cmd {
			pr := plans[i]
			return common.RunOp(c.Ctx, c.Client, common.ActionPrune, 0, pr, func() string {
				return fmt.Sprintf("Pruned %s: deleted %d revision records, kept %d.", pr.Release, pr.Done, len(pr.Kept))
			})
		}
	}).typed()
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

// DeleteRevision asks to type the release name before deleting one
// revision's record, of the release as plan p shows it.
func DeleteRevision(c common.Common, p *ops.Plan, row kube.RevisionRow) *Confirm {
	force := row.Broken
	d := New(c, common.ActionDelete, p.Namespace, row.Name, row.Revision, fmt.Sprintf("Delete revision %d of %s", row.Revision, row.Name),
		fmt.Sprintf("Deletes the record of revision %d of %s: its %s.", row.Revision, row.Name, common.ObjectNoun(row.Driver)))
	plan := common.PlanOp(common.ActionDelete, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.DeleteRevision](c)(ops.NewRunner(c.Client).PlanDeleteRevision(c.Ctx, p, row.Revision, force))
	})
	return d.planning(plan, func(op ops.Operation) {
		del := op.(*ops.DeleteRevision)
		d.body = fmt.Sprintf("Deletes the record of revision %d of %s: its %s. ", row.Revision, row.Name, common.ObjectNoun(row.Driver)) + strings.TrimPrefix(del.Describe(), fmt.Sprintf("Deletes the record of revision %d of %s. ", row.Revision, row.Name))
		d.run = func(int) tea.Cmd {
			return common.RunOp(c.Ctx, c.Client, common.ActionDelete, row.Revision, del, func() string {
				return fmt.Sprintf("Deleted the record of revision %d of %s (its %s).", row.Revision, row.Name, common.ObjectNoun(row.Driver))
			})
		}
	}).typed()
}

// FixStuck offers the two ways out of a stuck release, each with its
// warning, for the release as plan p shows it.
func FixStuck(c common.Common, p *ops.Plan) *Confirm {
	fixes := []ops.StuckFix{ops.FixMarkFailed, ops.FixDeletePending}
	row := p.Rows[len(p.Rows)-1]
	d := New(c, common.ActionFixStuck, p.Namespace, row.Name, row.Revision, "Fix stuck release "+row.Name,
		fmt.Sprintf("Revision %d of %s is %s.", row.Revision, row.Name, row.Status))
	d.choices = []choice{
		{label: fmt.Sprintf("Mark revision %d failed (%s)", row.Revision, ops.FixMarkFailed), warning: ops.FixMarkFailed.Warning()},
		{label: fmt.Sprintf("Delete revision %d (%s)", row.Revision, ops.FixDeletePending), warning: ops.FixDeletePending.Warning()},
	}
	plan := common.PlanOp(common.ActionFixStuck, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.FixStuck](c)(ops.NewRunner(c.Client).PlanFixStuck(c.Ctx, p, ""))
	})
	return d.planning(plan, func(op ops.Operation) {
		fs := op.(*ops.FixStuck)
		if fs.Stuck == nil {
			d.State, d.Err = Done, fmt.Errorf("%s is not stuck: there is nothing to fix", row.Name)
			return
		}
		state := fmt.Sprintf("has been %s for %s", row.Status, human.Span(fs.Stuck.For))
		if fs.Stuck.InProgress {
			state += fmt.Sprintf(", less than %s: the operation that wrote it is probably still running. Fix it only if you know it was interrupted", human.Span(c.Client.StuckAfter()))
		}
		d.body = fmt.Sprintf("Revision %d of %s %s. Helm refuses to upgrade a release while a revision is pending (a rollback runs, but leaves the pending revision behind). If the operation that wrote it is gone (a killed helm, a restarted operator), pick a way out (through Helm %d):",
			row.Revision, row.Name, state, fs.Major)
		d.run = func(i int) tea.Cmd {
			fs.Fix = fixes[i]
			return common.RunOp(c.Ctx, c.Client, common.ActionFixStuck, row.Revision, fs, func() string {
				if fixes[i] == ops.FixMarkFailed {
					return fmt.Sprintf("Revision %d of %s is now marked failed; the next upgrade or rollback can proceed.", row.Revision, row.Name)
				}
				return fmt.Sprintf("Deleted %s revision %d of %s; the previous revision is the latest again.", row.Status, row.Revision, row.Name)
			})
		}
	})
}
