package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// dialogState is where a confirmation dialog is: asking, waiting for the
// operation, or showing its outcome.
type dialogState int

const (
	dialogAsking dialogState = iota
	dialogRunning
	dialogDone
	// dialogPlanning: the operation is being planned (decoding what it needs);
	// nothing can be confirmed yet.
	dialogPlanning
)

// choice is one of the ways a dialog offers (the stuck-release fixes).
type choice struct {
	label   string
	warning string
}

// confirmDialog asks before an operation that changes the cluster, runs it, and
// shows its outcome in place. Destructive ones (uninstall, delete a revision) want
// the release's name typed out; the others a "y". With choices, the user first
// picks one, and its warning is shown before the "y".
type confirmDialog struct {
	common
	kind     actionKind
	ns, name string
	rev      int
	heading  string
	body     string
	// where names the context and namespace the operation changes: shown
	// above the question, so that the wrong cluster is noticed.
	where string
	// want, when set, must be typed to confirm.
	want  string
	input textinput.Model
	// choices, when set, are picked from; cursor is the one picked.
	choices []choice
	cursor  int
	// run starts the operation with the picked choice.
	run func(choice int) tea.Cmd
	// plan, while planning, makes the operation; planned takes it, filling the
	// body and run.
	plan    tea.Cmd
	planned func(op ops.Operation)
	// after runs when a successful dialog is closed.
	after func() tea.Cmd

	state  dialogState
	result string
	err    error
	hint   string
}

func newConfirmDialog(c common, kind actionKind, ns, name string, rev int, heading, body string) *confirmDialog {
	in := newTextInput()
	in.Prompt = "> "
	in.SetWidth(30)
	return &confirmDialog{common: c, kind: kind, ns: ns, name: name, rev: rev, heading: heading, body: body, where: c.where(ns), input: in}
}

// typed makes the dialog want the release name typed out.
func (d *confirmDialog) typed() *confirmDialog {
	d.want = d.name
	d.input.Placeholder = d.name
	return d
}

func (d *confirmDialog) init() tea.Cmd {
	var cmds []tea.Cmd
	if d.plan != nil {
		d.state = dialogPlanning
		cmds = append(cmds, d.plan)
	}
	if d.want != "" {
		cmds = append(cmds, d.input.Focus())
	}
	return tea.Batch(cmds...)
}

// planning makes the dialog plan its operation with plan before it asks;
// planned then takes the operation.
func (d *confirmDialog) planning(plan tea.Cmd, planned func(op ops.Operation)) *confirmDialog {
	d.plan, d.planned = plan, planned
	return d
}

// capturing reports whether typed letters belong to the dialog.
func (d *confirmDialog) capturing() bool { return d.want != "" && d.state == dialogAsking }

// update handles the dialog's keys and its operation's outcome; closed reports
// that the dialog is done with.
func (d *confirmDialog) update(msg tea.Msg) (cmd tea.Cmd, closed bool) {
	switch msg := msg.(type) {
	case opPlannedMsg:
		if msg.kind != d.kind || msg.ns != d.ns || msg.name != d.name || d.state != dialogPlanning {
			return nil, false
		}
		if msg.err != nil {
			d.state, d.err = dialogDone, msg.err
			return nil, false
		}
		d.state = dialogAsking
		d.planned(msg.op)
		return nil, false
	case actionDoneMsg:
		if msg.kind != d.kind || msg.ns != d.ns || msg.name != d.name || d.state != dialogRunning {
			return nil, false
		}
		d.state = dialogDone
		d.result, d.err = msg.text, msg.err
		return afterAction(msg), false
	case tea.KeyPressMsg:
		return d.handleKey(msg)
	}
	if d.want != "" && d.state == dialogAsking {
		var c tea.Cmd
		d.input, c = d.input.Update(msg)
		return c, false
	}
	return nil, false
}

func (d *confirmDialog) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.keys.Dialog
	switch d.state {
	case dialogRunning:
		return nil, false
	case dialogPlanning:
		if key.Matches(msg, d.keys.Global.Back) {
			return nil, true
		}
		return nil, false
	case dialogDone:
		if key.Matches(msg, k.Close) {
			if d.err == nil && d.after != nil {
				return d.after(), true
			}
			return nil, true
		}
		return nil, false
	}
	if key.Matches(msg, d.keys.Global.Back) {
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
			if strings.TrimSpace(d.input.Value()) != d.want {
				d.hint = fmt.Sprintf("Type %q exactly to confirm, or press esc.", d.want)
				return nil, false
			}
			return d.start(), false
		}
		var c tea.Cmd
		d.input, c = d.input.Update(msg)
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

func (d *confirmDialog) start() tea.Cmd {
	d.state = dialogRunning
	d.input.Blur()
	return d.run(d.cursor)
}

func (d *confirmDialog) busy() bool { return d.state == dialogRunning }

func (d *confirmDialog) help() helpKeys {
	k := d.keys.Dialog
	var short []key.Binding
	switch {
	case d.state == dialogDone:
		short = []key.Binding{k.Close}
	case d.state == dialogRunning:
	case d.state == dialogPlanning:
		short = []key.Binding{d.keys.Global.Back}
	case d.want != "":
		short = []key.Binding{k.Submit, d.keys.Global.Back}
	case len(d.choices) > 0:
		short = []key.Binding{k.Up, k.Down, k.Confirm, k.Cancel}
	default:
		short = []key.Binding{k.Confirm, k.Cancel}
	}
	return helpKeys{short: short, full: [][]key.Binding{short}}
}

func (d *confirmDialog) view() string {
	st := d.styles
	width := min(d.width-4, 72)
	inner := width - 4
	var lines []string
	add := func(text string) { lines = append(lines, strings.Split(text, "\n")...) }
	add(st.Bold.Render(wrap("On "+d.where, inner)))
	add(wrap(d.body, inner))
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
		for j, l := range strings.Split(wrap(fmt.Sprintf("%d. %s", i+1, c.label), inner-2), "\n") {
			if i == d.cursor {
				l = st.Selected.Render(l)
			}
			if j > 0 {
				mark = "  "
			}
			lines = append(lines, mark+l)
		}
		if i == d.cursor && c.warning != "" {
			add(st.Warning.Render(wrap("⚠ "+c.warning, inner)))
		}
	}
	var foot strings.Builder
	switch d.state {
	case dialogPlanning:
		foot.WriteString(st.Dim.Render(wrap("Working out what this would do… (nothing is changed yet)", inner)))
	case dialogAsking:
		if d.want != "" {
			foot.WriteString(st.Prompt.Render(fmt.Sprintf("Type the release name (%s) to confirm:", d.want)) + "\n")
			foot.WriteString(d.input.View())
			if d.hint != "" {
				foot.WriteString("\n" + st.Warning.Render(wrap(d.hint, inner)))
			}
		} else {
			foot.WriteString(st.Prompt.Render("Proceed? y: yes · esc: cancel"))
		}
	case dialogRunning:
		foot.WriteString(st.Dim.Render(wrap("Working… (the cluster is being changed; wait for the result)", inner)))
	case dialogDone:
		if d.err != nil {
			foot.WriteString(st.renderError(d.err, inner))
		} else {
			foot.WriteString(st.OK.Render(wrap("✓ "+d.result, inner)))
		}
		foot.WriteString("\n" + st.Dim.Render("enter: close"))
	}
	// The box must fit the screen with its buttons: the text above them gives
	// way, keeping the selected choice in view.
	footLines := strings.Count(foot.String(), "\n") + 1
	room := d.height - st.Dialog.GetVerticalFrameSize() - 2 - 1 - footLines
	lines = windowLines(lines, max(room, 1), selected)
	return st.dialogBox(d.heading, strings.Join(lines, "\n")+"\n\n"+foot.String(), width)
}

// windowLines returns at most n of lines, a window that shows line keep (-1: the
// first ones), with "…" in place of the first or last line shown when lines
// continue above or below it.
func windowLines(lines []string, n, keep int) []string {
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

// deniedDialog says why the user may not run op (why wraps kube.ErrForbidden), in
// place of the operation's dialog: nothing is asked and nothing is sent.
func deniedDialog(c common, ns, name, op string, why error) *confirmDialog {
	d := newConfirmDialog(c, actionKind(op), ns, name, 0, fmt.Sprintf("%s %s: not permitted", op, name),
		"Your credentials do not allow this, so chunkview did not try it: nothing was sent to the cluster.")
	d.state, d.err = dialogDone, why
	return d
}

// uninstallDialog asks to type the release name before uninstalling it. It holds
// the plan it shows: the release as the screen read it.
func uninstallDialog(c common, p *ops.Plan) *confirmDialog {
	d := newConfirmDialog(c, actionUninstall, p.Namespace, p.Release, 0, "Uninstall "+p.Release,
		fmt.Sprintf("Helm uninstalls %s: it deletes the release's resources (running its delete hooks) and all %d revision records. This cannot be undone.", p.Release, len(p.Rows)))
	plan := planOp(actionUninstall, p.Namespace, p.Release, func() (ops.Operation, error) {
		return checked[*ops.Uninstall](c)(ops.NewRunner(c.client).PlanUninstall(c.ctx, p, false))
	})
	return d.planning(plan, func(op ops.Operation) {
		u := op.(*ops.Uninstall)
		d.body = u.Describe() + objectList("Deletes", u.Deletes, 6) + objectList("Keeps", u.Keeps, 3)
		d.run = func(int) tea.Cmd {
			return runOp(c.ctx, c.client, actionUninstall, 0, u, func() string {
				return fmt.Sprintf("Uninstalled %s: its resources and all its revision records were deleted.", p.Release)
			})
		}
	}).typed()
}

// checked is a planned operation, refused when the release's controller is
// active (ops.Runner.CheckController): the dialog then says so and asks nothing.
func checked[O ops.Operation](c common) func(op O, err error) (ops.Operation, error) {
	return func(op O, err error) (ops.Operation, error) {
		if err != nil {
			return nil, err
		}
		if err := ops.NewRunner(c.client).CheckController(c.ctx, op); err != nil {
			return nil, err
		}
		return op, nil
	}
}

// pruneKeeps are the --keep values the prune dialog offers, the first being
// Helm's own default --history-max.
var pruneKeeps = []int{10, 5, 3, 1}

// pruneDialog offers to prune the history of the release p shows: each choice
// keeps a number of the newest revisions (and the deployed one), and says what
// goes and the bytes it frees; the release's name is typed to confirm.
func pruneDialog(c common, p *ops.Plan) *confirmDialog {
	d := newConfirmDialog(c, actionPrune, p.Namespace, p.Release, 0, "Prune "+p.Release,
		fmt.Sprintf("Deletes the records of old revisions of %s, oldest first, with all their Secrets. The release's resources stay as they are.", p.Release))
	var plans []*ops.Prune
	plan := planOp(actionPrune, p.Namespace, p.Release, func() (ops.Operation, error) {
		rn := ops.NewRunner(c.client)
		var first ops.Operation
		for _, keep := range pruneKeeps {
			pr, err := checked[*ops.Prune](c)(rn.PlanPrune(c.ctx, p, keep))
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
			return runOp(c.ctx, c.client, actionPrune, 0, pr, func() string {
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

// deleteRevisionDialog asks to type the release name before deleting one
// revision's record, of the release as plan p shows it.
func deleteRevisionDialog(c common, p *ops.Plan, row kube.RevisionRow) *confirmDialog {
	force := row.Broken
	d := newConfirmDialog(c, actionDelete, p.Namespace, row.Name, row.Revision, fmt.Sprintf("Delete revision %d of %s", row.Revision, row.Name),
		fmt.Sprintf("Deletes the record of revision %d of %s: its %s.", row.Revision, row.Name, objectNoun(row.Driver)))
	plan := planOp(actionDelete, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.DeleteRevision](c)(ops.NewRunner(c.client).PlanDeleteRevision(c.ctx, p, row.Revision, force))
	})
	return d.planning(plan, func(op ops.Operation) {
		del := op.(*ops.DeleteRevision)
		d.body = fmt.Sprintf("Deletes the record of revision %d of %s: its %s. ", row.Revision, row.Name, objectNoun(row.Driver)) + strings.TrimPrefix(del.Describe(), fmt.Sprintf("Deletes the record of revision %d of %s. ", row.Revision, row.Name))
		d.run = func(int) tea.Cmd {
			return runOp(c.ctx, c.client, actionDelete, row.Revision, del, func() string {
				return fmt.Sprintf("Deleted the record of revision %d of %s (its %s).", row.Revision, row.Name, objectNoun(row.Driver))
			})
		}
	}).typed()
}

// fixStuckDialog offers the two ways out of a stuck release, each with its
// warning, for the release as plan p shows it.
func fixStuckDialog(c common, p *ops.Plan) *confirmDialog {
	fixes := []ops.StuckFix{ops.FixMarkFailed, ops.FixDeletePending}
	row := p.Rows[len(p.Rows)-1]
	d := newConfirmDialog(c, actionFixStuck, p.Namespace, row.Name, row.Revision, "Fix stuck release "+row.Name,
		fmt.Sprintf("Revision %d of %s is %s.", row.Revision, row.Name, row.Status))
	d.choices = []choice{
		{label: fmt.Sprintf("Mark revision %d failed (%s)", row.Revision, ops.FixMarkFailed), warning: ops.FixMarkFailed.Warning()},
		{label: fmt.Sprintf("Delete revision %d (%s)", row.Revision, ops.FixDeletePending), warning: ops.FixDeletePending.Warning()},
	}
	plan := planOp(actionFixStuck, p.Namespace, row.Name, func() (ops.Operation, error) {
		return checked[*ops.FixStuck](c)(ops.NewRunner(c.client).PlanFixStuck(c.ctx, p, ""))
	})
	return d.planning(plan, func(op ops.Operation) {
		fs := op.(*ops.FixStuck)
		if fs.Stuck == nil {
			d.state, d.err = dialogDone, fmt.Errorf("%s is not stuck: there is nothing to fix", row.Name)
			return
		}
		state := fmt.Sprintf("has been %s for %s", row.Status, human.Span(fs.Stuck.For))
		if fs.Stuck.InProgress {
			state += fmt.Sprintf(", less than %s: the operation that wrote it is probably still running. Fix it only if you know it was interrupted", human.Span(c.client.StuckAfter()))
		}
		d.body = fmt.Sprintf("Revision %d of %s %s. Helm refuses to upgrade a release while a revision is pending (a rollback runs, but leaves the pending revision behind). If the operation that wrote it is gone (a killed helm, a restarted operator), pick a way out (through Helm %d):",
			row.Revision, row.Name, state, fs.Major)
		d.run = func(i int) tea.Cmd {
			fs.Fix = fixes[i]
			return runOp(c.ctx, c.client, actionFixStuck, row.Revision, fs, func() string {
				if fixes[i] == ops.FixMarkFailed {
					return fmt.Sprintf("Revision %d of %s is now marked failed; the next upgrade or rollback can proceed.", row.Revision, row.Name)
				}
				return fmt.Sprintf("Deleted %s revision %d of %s; the previous revision is the latest again.", row.Status, row.Revision, row.Name)
			})
		}
	})
}
