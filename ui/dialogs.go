package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// dialogState is where a confirmation dialog is: asking, waiting for the
// operation, or showing its outcome.
type dialogState int

const (
	dialogAsking dialogState = iota
	dialogRunning
	dialogDone
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
	if d.want != "" {
		return d.input.Focus()
	}
	return nil
}

// capturing reports whether typed letters belong to the dialog.
func (d *confirmDialog) capturing() bool { return d.want != "" && d.state == dialogAsking }

// update handles the dialog's keys and its operation's outcome; closed reports
// that the dialog is done with.
func (d *confirmDialog) update(msg tea.Msg) (cmd tea.Cmd, closed bool) {
	switch msg := msg.(type) {
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
		switch {
		case key.Matches(msg, k.Up):
			d.cursor = max(d.cursor-1, 0)
			return nil, false
		case key.Matches(msg, k.Down):
			d.cursor = min(d.cursor+1, len(d.choices)-1)
			return nil, false
		}
		if s := msg.String(); len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < len(d.choices) {
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
		label := fmt.Sprintf("%d. %s", i+1, c.label)
		if i == d.cursor {
			mark = st.Cursor.Render("▶ ")
			label = st.Selected.Render(label)
			selected = len(lines)
		}
		add(mark + label)
		if i == d.cursor && c.warning != "" {
			add(st.Warning.Render(wrap("⚠ "+c.warning, inner)))
		}
	}
	var foot strings.Builder
	switch d.state {
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
func uninstallDialog(c common, p *kube.Plan) *confirmDialog {
	d := newConfirmDialog(c, actionUninstall, p.Namespace, p.Release, 0, "Uninstall "+p.Release,
		fmt.Sprintf("Helm uninstalls %s: it deletes the release's resources (running its delete hooks) and all %d revision records. This cannot be undone.", p.Release, len(p.Rows)))
	plan := p.Uninstall(false)
	d.run = func(int) tea.Cmd { return runUninstall(c.ctx, c.client, plan) }
	return d.typed()
}

// deleteRevisionDialog asks to type the release name before deleting one
// revision's record, of the release as plan p shows it.
func deleteRevisionDialog(c common, p *kube.Plan, row kube.RevisionRow) *confirmDialog {
	body := fmt.Sprintf("Deletes the record of revision %d of %s: its %s. The release's resources stay as they are.", row.Revision, row.Name, objectNoun(row.Driver))
	if p.Latest == row.Revision {
		body += " This is the latest revision: Helm will then see the one before as the latest."
	}
	force := row.Broken
	if force {
		body += " It cannot be decoded, so it is deleted without being read (--force)."
	}
	d := newConfirmDialog(c, actionDelete, p.Namespace, row.Name, row.Revision, fmt.Sprintf("Delete revision %d of %s", row.Revision, row.Name), body)
	plan, err := p.DeleteRevision(row.Revision, force)
	if err != nil {
		d.state, d.err = dialogDone, err
		return d
	}
	d.run = func(int) tea.Cmd { return runDeleteRevision(c.ctx, c.client, plan) }
	return d.typed()
}

// fixStuckDialog offers the two ways out of a pending release, each with its
// warning, for the release as plan sp shows it.
func fixStuckDialog(c common, sp *kube.StuckPlan) *confirmDialog {
	fixes := []kube.StuckFix{kube.FixMarkFailed, kube.FixDeletePending}
	row := sp.Stuck.Row
	body := fmt.Sprintf("Revision %d of %s has been %s for %s. Helm refuses to upgrade a release while a revision is pending (a rollback runs, but leaves the pending revision behind). If the operation that wrote it is gone (a killed helm, a restarted operator), pick a way out:",
		row.Revision, row.Name, row.Status, duration(sp.Stuck.For))
	d := newConfirmDialog(c, actionFixStuck, sp.Namespace, row.Name, row.Revision, "Fix stuck release "+row.Name, body)
	d.choices = []choice{
		{label: fmt.Sprintf("Mark revision %d failed (%s)", row.Revision, kube.FixMarkFailed), warning: kube.FixMarkFailed.Warning()},
		{label: fmt.Sprintf("Delete pending revision %d (%s)", row.Revision, kube.FixDeletePending), warning: kube.FixDeletePending.Warning()},
	}
	d.run = func(i int) tea.Cmd { return runFixStuck(c.ctx, c.client, sp, fixes[i]) }
	return d
}
