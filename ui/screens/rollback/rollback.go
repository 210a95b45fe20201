// Package rollback is the screen that shows what rolling a release back would
// change, and rolls it back once the person confirms.
package rollback

import (
	"fmt"
	"maps"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/table"
)

// footerLines is the height of the prompt under the diff.
const footerLines = 4

// forceKey is the explicit choice a plan with server-side apply conflicts
// offers in place of ctrl+r: take the fields over, as --force-conflicts does.
var forceKey = key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "force conflicts, roll back"))

// Screen shows the diff of a planned rollback, from the latest revision to the
// one rolled back to, and under it the question; ctrl+r applies exactly the
// plan shown, and y copies it, as y copies a diff: the plan looks like a diff,
// so the key a reader presses by reflex there must not change the cluster.
// The diff viewer is the one the diff screen uses.
type Screen struct {
	common.Common
	ns, name string
	// to is the revision rolled back to.
	to     int
	reveal bool
	// LeftPending names the pending latest revision the rollback will leave
	// behind, to warn before ctrl+r.
	LeftPending string
	// Served is what the history checked its revisions against, for the
	// plan's warning of APIs the cluster no longer serves; nil: read now.
	Served *apis.Served

	// base is the release as the history showed it, which the rollback is
	// planned from; plan is that rollback, once planned.
	base *ops.Plan
	plan *ops.Rollback
	// apis is what the plan's revisions use that the cluster no longer
	// serves, once checked.
	apis *ops.RollbackAPIs
	// diffs holds the plan's diffs, masked and revealed.
	diffs   map[bool]*revdiff.Result
	loading bool
	err     error

	// state is where the rollback is once confirmed; result or actErr say how
	// it ended.
	state  dialog.State
	result string
	actErr error

	view diffview.Model
}

// New shows what rolling the release of base back to revision rev would
// change, and rolls back on ctrl+r.
func New(c common.Common, base *ops.Plan, rev int) *Screen {
	return &Screen{Common: c, ns: base.Namespace, name: base.Release, to: rev, base: base, diffs: map[bool]*revdiff.Result{}, view: c.NewDiff()}
}

// Init plans the rollback.
func (s *Screen) Init() tea.Cmd { return s.load() }

func (s *Screen) load() tea.Cmd {
	if r, ok := s.diffs[s.reveal]; ok {
		s.show(r)
		return nil
	}
	s.loading = true
	return planRollback(s.Ctx, s.Client, s.base, s.to, s.reveal, s.Served)
}

// Title names the revision rolled back to.
func (s *Screen) Title() string { return fmt.Sprintf("roll back to %d", s.to) }

// Busy reports whether the rollback is being planned or applied.
func (s *Screen) Busy() bool { return s.loading || s.state == dialog.Running }

// Capturing is false: the screen takes no typed text.
func (s *Screen) Capturing() bool { return false }

// HandlesBack keeps esc from leaving while the rollback runs.
func (s *Screen) HandlesBack() bool { return s.state == dialog.Running }

// SetSize sets the screen's size; the diff is rendered again at a new width.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.view.SetSize(w, h-footerLines)
	if r, ok := s.diffs[s.reveal]; ok && s.view.Stale(w) {
		s.show(r)
	}
}

// canConfirm reports whether there is a plan to confirm: not while it is being
// made, not when it failed, not under --read-only.
func (s *Screen) canConfirm() bool {
	return s.state == dialog.Asking && s.plan != nil && s.err == nil && !s.ReadOnly()
}

// Help lists ctrl+r (or f), when there is a plan to confirm, then the diff's
// keys.
func (s *Screen) Help() common.HelpKeys {
	k := s.Keys.Diff
	own := []key.Binding{s.Keys.Changes.NextChange, s.Keys.Changes.PrevChange, k.Reveal, k.Copy}
	short := own
	if s.canConfirm() {
		confirm := k.Confirm
		if s.conflicts() != nil {
			confirm = forceKey
		}
		short = append([]key.Binding{confirm}, own...)
		own = append(own, confirm)
	}
	return common.HelpKeys{Short: short, Full: [][]key.Binding{own, s.Keys.Scroll.Bindings()}}
}

// Update takes the plan, the rollback's outcome and the keys.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.Ns != s.ns || msg.Name != s.name || msg.To != s.to || msg.Reveal != s.reveal {
			return nil
		}
		s.loading = false
		if msg.Err != nil {
			s.err = msg.Err
			s.view.ShowError(common.ShortError(msg.Err), s.Width)
			return nil
		}
		s.err = nil
		if s.plan != nil && !maps.Equal(s.plan.Records, msg.Plan.Records) {
			// The release moved on: a diff of the old plan, masked or
			// revealed, no longer shows what would run.
			clear(s.diffs)
		}
		s.plan = msg.Plan
		if msg.APIs != nil {
			s.apis = msg.APIs
		}
		s.diffs[msg.Reveal] = msg.Plan.Diff
		s.show(msg.Plan.Diff)
		return nil
	case common.ActionDoneMsg:
		if msg.Kind != common.ActionRollback || msg.Ns != s.ns || msg.Name != s.name || s.state != dialog.Running {
			return nil
		}
		s.state = dialog.Done
		s.result, s.actErr = msg.Text, msg.Err
		return common.AfterAction(msg)
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return nil
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.Keys.Diff
	switch {
	case key.Matches(msg, k.Reveal):
		s.reveal = !s.reveal
		return s.load()
	case key.Matches(msg, k.Copy):
		if r, ok := s.diffs[s.reveal]; ok && r != nil {
			return common.CopyText(r.Unified(), fmt.Sprintf("plan of rolling %s back to revision %d", s.name, s.to), s.reveal)
		}
		return nil
	case key.Matches(msg, k.Confirm), key.Matches(msg, forceKey):
		// ctrl+r runs a plan without conflicts, f one with: the choice to
		// take fields over from another manager is made explicitly.
		if s.state != dialog.Asking || s.plan == nil || key.Matches(msg, forceKey) != (s.conflicts() != nil) {
			return nil
		}
		s.plan.ForceConflicts = s.conflicts() != nil
		s.state = dialog.Running
		return s.run(s.plan)
	}
	var cmd tea.Cmd
	s.view, cmd = s.view.Update(msg)
	return cmd
}

func (s *Screen) show(r *revdiff.Result) {
	if s.plan != nil && len(s.plan.Drop) > 0 {
		text, anchors := dropView(s.Styles, &s.view.Styles, s.name, s.plan, r, s.Width)
		s.view.SetContent(text, anchors, s.Width)
		return
	}
	s.view.ShowDiff(r, s.Width)
}

// View draws the diff, then the question or the outcome under it.
func (s *Screen) View() string {
	body := s.view.View()
	if s.loading && len(s.diffs) == 0 {
		body = s.Styles.Dim.Render(fmt.Sprintf("Working out what rolling %s back to revision %d would change…", s.name, s.to))
	}
	foot := s.footer()
	// A footer that wraps (the conflicts' reason) takes its lines from the
	// diff, which scrolls.
	s.view.SetSize(s.Width, s.Height-len(foot))
	return table.PadLines(body, max(s.Height-len(foot), 1)) + "\n" + strings.Join(foot, "\n")
}

// footer is the question, then the outcome in its place.
func (s *Screen) footer() []string {
	st := s.Styles
	rule := st.Dim.Render(strings.Repeat("─", s.Width))
	switch {
	case s.err != nil:
		return []string{rule, st.Error.Render("Nothing to roll back: the plan failed (see above)."), "", ""}
	case s.plan == nil:
		return []string{rule, "", "", ""}
	case s.state == dialog.Running:
		return []string{rule, st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("Rolling %s back to revision %d…", s.name, s.plan.To))), "", ""}
	case s.state == dialog.Done && s.actErr != nil:
		return s.outcome(st.Error.Render, "✗ Rollback failed: "+common.ShortError(s.actErr), "esc: back to the history")
	case s.state == dialog.Done:
		return s.outcome(st.OK.Render, "✓ "+s.result, "esc: back to the history, where the new revision is listed")
	case s.ReadOnly():
		return []string{rule, st.Warning.Render(table.Line1(s.Width, "Read-only mode: this is what a rollback would change; rolling back is off.")), "", ""}
	}
	if ss := s.conflicts(); ss != nil {
		// The reason wraps, up to a third of the screen: the diff above
		// scrolls, the fields taken over are what the person decides on.
		out := []string{rule}
		out = append(out, s.wrapped(st.ErrorBold.Render, fmt.Sprintf("⚠ Applied as field manager %q, the rollback would take over %s another manager owns:", ss.Manager, human.Plural(len(ss.Conflicts), "field", "fields")), 2)...)
		out = append(out, s.wrapped(st.Warning.Render, ss.ConflictList(), max(s.Height/3-2, 1))...)
		return append(out, s.wrapped(st.Prompt.Render, "f: take them over and roll back (--force-conflicts) · esc: cancel · on "+s.Where(common.ActionNamespace(s.base.Rows, s.ns)), 2)...)
	}
	first, second := s.question()
	if w1, w2, ok := s.apisWarning(); ok {
		// Before ctrl+r: this rollback would fail, and break the release again.
		first, second = w1, w2
	}
	return []string{rule, first, second, st.Prompt.Render(table.Line1(s.Width, s.applyPrompt()))}
}

// applyPrompt names the key that applies the plan with what it does, then the
// way out and where: "ctrl+r: roll back to 3 · y: copy · esc: cancel · on NS"
// (the question above names the release and the revision written).
func (s *Screen) applyPrompt() string {
	return fmt.Sprintf("%s: roll back to %d · %s: copy · esc: cancel · on %s",
		s.Keys.Diff.Confirm.Help().Key, s.plan.To, s.Keys.Diff.Copy.Help().Key, s.Where(common.ActionNamespace(s.base.Rows, s.ns)))
}

// wrapped is text wrapped at the screen's width onto at most n lines, each
// styled, the last cut with "…" when it still does not fit.
func (s *Screen) wrapped(style func(...string) string, text string, n int) []string {
	lines := strings.Split(table.Wrap(text, s.Width), "\n")
	if len(lines) > n {
		lines = append(lines[:n-1], table.Line1(s.Width, strings.Join(lines[n-1:], " ")))
	}
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}

// outcome is the footer after the rollback: the rule, text wrapped onto up to
// two lines, each styled (the second cut when it still does not fit; :log
// keeps every outcome whole), then the way back.
func (s *Screen) outcome(style func(...string) string, text, back string) []string {
	lines := strings.Split(table.Wrap(text, s.Width), "\n")
	out := []string{s.Styles.Dim.Render(strings.Repeat("─", s.Width)), style(lines[0])}
	if len(lines) > 1 {
		out = append(out, style(table.Line1(s.Width, strings.Join(lines[1:], " "))))
	}
	out = append(out, s.Styles.Dim.Render(back))
	for len(out) < footerLines {
		out = append(out, "")
	}
	return out
}

// conflicts returns the plan's server-side apply when it found conflicts.
func (s *Screen) conflicts() *ops.ServerSide {
	if s.plan == nil || s.plan.ServerSide == nil || len(s.plan.ServerSide.Conflicts) == 0 {
		return nil
	}
	return s.plan.ServerSide
}

// question is the two lines that ask before ctrl+r: what the rollback writes and
// applies, or, with a pending latest revision, a short question and the warning.
func (s *Screen) question() (string, string) {
	st, p := s.Styles, s.plan
	q := fmt.Sprintf("Roll back %s from revision %d to revision %d? Helm %d writes revision %d with revision %d's chart, values and manifest, and applies it.",
		s.name, p.From, p.To, p.Major, p.From+1, p.To)
	short := fmt.Sprintf("Roll back %s from revision %d to revision %d, written as revision %d?", s.name, p.From, p.To, p.From+1)
	switch {
	case len(p.Drop) > 0:
		q = fmt.Sprintf("Revision %s cannot be read: delete its record, then roll %s back to revision %d, written as revision %d? (Helm %d)", dropList(p.Drop), s.name, p.To, p.From+1, p.Major)
		short = q
	case p.Reapply:
		q = fmt.Sprintf("Apply revision %d of %s again? Helm %d applies its objects as recorded (undoing any drift) and writes revision %d.", p.To, s.name, p.Major, p.From+1)
		short = fmt.Sprintf("Apply revision %d of %s again, written as revision %d?", p.To, s.name, p.From+1)
	}
	if s.LeftPending != "" {
		// Helm's rollback supersedes the deployed revision only: say so
		// before ctrl+r, in place of the question's second half.
		return st.Warning.Render(table.Line1(s.Width, short)), st.ErrorBold.Render(table.Line1(s.Width, "⚠ "+s.LeftPending))
	}
	lines := strings.Split(table.Wrap(q, s.Width), "\n")
	for len(lines) < 2 {
		lines = append(lines, "")
	}
	return st.Warning.Render(lines[0]), st.Warning.Render(table.Line1(s.Width, strings.Join(lines[1:], " ")))
}

// run applies rollback rb, which the person confirmed, through kube/ops'
// runner: exactly the plan shown, refused if the release moved on since.
func (s *Screen) run(rb *ops.Rollback) tea.Cmd {
	c := s.Common
	return common.RunAction(common.ActionRollback, rb.Namespace, rb.Release, rb.To, func() error { return ops.NewRunner(c.Client).Apply(c.Ctx, rb) }, func() string {
		if len(rb.Drop) > 0 {
			return dropDone(rb)
		}
		return fmt.Sprintf("Rolled back %s to revision %d: revision %d created.", rb.Release, rb.To, rb.NewRevision)
	})
}

// apisWarning is the two lines that warn, in place of the question, when a
// revision the rollback reads uses APIs the cluster no longer serves: the
// target (rolling back to it breaks the release again), else the latest
// (Helm can no longer upgrade the release, nor roll it back, until fixed).
func (s *Screen) apisWarning() (string, string, bool) {
	a, st := s.apis, s.Styles
	if a == nil || !a.Any() {
		return "", "", false
	}
	if len(a.Target) > 0 {
		return st.ErrorBold.Render(table.Line1(s.Width, fmt.Sprintf("⚠ Revision %d uses APIs the cluster no longer serves: the rollback fails after recording revision %d, and breaks %s again.", a.To, a.From+1, s.name))),
			st.Error.Render(table.Line1(s.Width, "  "+common.UnservedRefs(a.Target))), true
	}
	return st.ErrorBold.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %s %s: revision %d, which the rollback reads first, uses APIs the cluster no longer serves; A in the history fixes it first.", apis.CannotUpgrade, s.name, a.From))),
		st.Error.Render(table.Line1(s.Width, "  "+common.UnservedRefs(a.Current))), true
}
