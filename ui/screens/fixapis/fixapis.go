// Package fixapis is the screen that shows what fix-apis would write for a
// release that uses Kubernetes APIs the cluster no longer serves (the new
// revision's manifest diff, masked), and writes it once the person confirms,
// through kube/ops' runner as `chunkview fix-apis` does.
package fixapis

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/table"
)

// footerLines is the height of the prompt under the diff.
const footerLines = 4

var (
	// dropKey plans again dropping the objects no served version replaces,
	// as --drop-unserved does: offered only when the plan was refused for them.
	dropKey = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "drop the unreplaceable objects (--drop-unserved)"))
)

// Screen shows the plan of fix-apis: the diff of the revision it would write
// against the one it copies, and under it what it does. The key that applies a
// rollback plan (ctrl+r) writes exactly the plan shown, refused if the release
// moved on since; y copies the plan, as it does in every diff.
type Screen struct {
	common.Common
	ns, name string
	// base is the release as the history showed it; served what the cluster
	// served when the history checked it, which the fix is planned against.
	base   *ops.Plan
	served *apis.Served
	reveal bool
	// drop is --drop-unserved, chosen with d once a plan was refused.
	drop bool

	plan    *ops.FixAPIs
	loading bool
	err     error

	state  dialog.State
	result string
	actErr error

	view diffview.Model
}

// New plans fix-apis for the release of base against served.
func New(c common.Common, base *ops.Plan, served *apis.Served) *Screen {
	return &Screen{Common: c, ns: base.Namespace, name: base.Release, base: base, served: served, view: c.NewDiff()}
}

// Init plans the fix.
func (s *Screen) Init() tea.Cmd { return s.load() }

func (s *Screen) load() tea.Cmd {
	s.loading = true
	return planFix(s.Ctx, s.Client, s.base, s.served, s.drop, s.reveal)
}

// Title names the operation.
func (s *Screen) Title() string { return "fix-apis" }

// Busy reports whether the fix is being planned or written.
func (s *Screen) Busy() bool { return s.loading || s.state == dialog.Running }

// Capturing is false: the screen takes no typed text.
func (s *Screen) Capturing() bool { return false }

// HandlesBack keeps esc from leaving while the fix is written.
func (s *Screen) HandlesBack() bool { return s.state == dialog.Running }

// SetSize sets the screen's size; the diff is rendered again at a new width.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.view.SetSize(w, h-footerLines)
	if s.plan != nil && s.view.Stale(w) {
		s.view.ShowDiff(s.plan.Diff, w)
	}
}

// canConfirm reports whether there is a fix to confirm: planned, changing
// something, not under --read-only.
func (s *Screen) canConfirm() bool {
	return s.state == dialog.Asking && s.plan != nil && s.err == nil && s.plan.Fix.Changed() && !s.ReadOnly()
}

// noSuccessor reports whether the plan was refused for objects no served
// version replaces, which d drops.
func (s *Screen) noSuccessor() bool {
	return errors.Is(s.err, apis.ErrNoSuccessor) && !s.drop && !s.ReadOnly()
}

// confirmKey writes the fix planned and shown: the keys that apply a rollback
// plan, so that one key applies a plan on every screen, and y only copies.
func (s *Screen) confirmKey() key.Binding {
	k := s.Keys.Diff.Confirm
	return key.NewBinding(key.WithKeys(k.Keys()...), key.WithHelp(k.Help().Key, "write the fix"))
}

// Help lists ctrl+r (or d), when there is something to choose, then the diff's
// keys.
func (s *Screen) Help() common.HelpKeys {
	own := []key.Binding{s.Keys.Changes.NextChange, s.Keys.Changes.PrevChange, s.Keys.Diff.Reveal, s.Keys.Diff.Copy}
	short := own
	switch {
	case s.canConfirm():
		confirm := s.confirmKey()
		short = append([]key.Binding{confirm}, own...)
		own = append(own, confirm)
	case s.noSuccessor():
		short = append([]key.Binding{dropKey}, own...)
		own = append(own, dropKey)
	}
	return common.HelpKeys{Short: short, Full: [][]key.Binding{own, s.Keys.Scroll.Bindings()}}
}

// Update takes the plan, the fix's outcome and the keys.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.Ns != s.ns || msg.Name != s.name || msg.Reveal != s.reveal || msg.Drop != s.drop {
			return nil
		}
		s.loading = false
		s.err, s.plan = msg.Err, msg.Plan
		if msg.Err != nil {
			s.view.ShowError(common.ShortError(msg.Err), s.Width)
			return nil
		}
		s.view.ShowDiff(msg.Plan.Diff, s.Width)
		return nil
	case common.ActionDoneMsg:
		if msg.Kind != common.ActionFixAPIs || msg.Ns != s.ns || msg.Name != s.name || s.state != dialog.Running {
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
	switch {
	case key.Matches(msg, s.Keys.Diff.Reveal) && s.state == dialog.Asking:
		s.reveal = !s.reveal
		return s.load()
	case key.Matches(msg, dropKey) && s.noSuccessor() && s.state == dialog.Asking:
		s.drop = true
		return s.load()
	case key.Matches(msg, s.Keys.Diff.Copy):
		if s.plan != nil && s.plan.Diff != nil {
			return common.CopyText(s.plan.Diff.Unified(), "plan of fix-apis for "+s.name, s.reveal)
		}
		return nil
	case key.Matches(msg, s.confirmKey()):
		if !s.canConfirm() || s.loading {
			return nil
		}
		s.state = dialog.Running
		return s.run(s.plan)
	}
	var cmd tea.Cmd
	s.view, cmd = s.view.Update(msg)
	return cmd
}

// View draws the diff, then what the fix does and the question, or the
// outcome, under it.
func (s *Screen) View() string {
	body := s.view.View()
	if s.loading && s.plan == nil && s.err == nil {
		body = s.Styles.Dim.Render(fmt.Sprintf("Working out what fix-apis would write for %s…", s.name))
	}
	return table.PadLines(body, max(s.Height-footerLines, 1)) + "\n" + strings.Join(s.footer(), "\n")
}

// footer is what the fix does and the question, then the outcome in its place.
func (s *Screen) footer() []string {
	st := s.Styles
	rule := st.Dim.Render(strings.Repeat("─", s.Width))
	line := func(style func(...string) string, text string) string { return style(table.Line1(s.Width, text)) }
	switch {
	case s.noSuccessor():
		return []string{rule, line(st.Error.Render, "✗ "+common.ShortError(s.err)),
			line(st.Warning.Render, "d drops those objects from the stored manifest (--drop-unserved): Helm then no longer manages them."),
			line(st.Prompt.Render, "d: drop them and plan again · esc: cancel · on "+s.Where(common.ActionNamespace(s.base.Rows, s.ns)))}
	case s.err != nil:
		return []string{rule, line(st.Error.Render, "Nothing to write: the plan failed (see above)."), "", ""}
	case s.plan == nil:
		return []string{rule, "", "", ""}
	case s.state == dialog.Running:
		return []string{rule, line(st.Warning.Render, fmt.Sprintf("Writing revision %d of %s…", s.plan.Revision, s.name)), "", ""}
	case s.state == dialog.Done && s.actErr != nil:
		return []string{rule, line(st.Error.Render, "✗ fix-apis failed: "+common.ShortError(s.actErr)), line(st.Dim.Render, "esc: back to the history"), ""}
	case s.state == dialog.Done:
		return []string{rule, line(st.OK.Render, "✓ "+s.result), line(st.Dim.Render, "esc: back to the history, where the new revision is listed"), ""}
	case !s.plan.Fix.Changed():
		return []string{rule, line(st.OK.Render, s.plan.Describe()), "", ""}
	}
	lines := strings.Split(table.Wrap(s.plan.Describe(), s.Width), "\n")
	for len(lines) < 2 {
		lines = append(lines, "")
	}
	prompt := fmt.Sprintf("%s: write revision %d · %s: copy · esc: cancel · on %s",
		s.Keys.Diff.Confirm.Help().Key, s.plan.Revision, s.Keys.Diff.Copy.Help().Key, s.Where(common.ActionNamespace(s.base.Rows, s.ns)))
	if s.ReadOnly() {
		prompt = "Read-only mode: this is what fix-apis would write; writing it is off."
	}
	return []string{rule, line(st.Warning.Render, lines[0]), line(st.Warning.Render, strings.Join(lines[1:], " ")), line(st.Prompt.Render, prompt)}
}

// run writes fix, which the person confirmed, through kube/ops' runner:
// exactly the plan shown, refused if the release moved on since.
func (s *Screen) run(fix *ops.FixAPIs) tea.Cmd {
	c := s.Common
	return common.RunAction(common.ActionFixAPIs, fix.Namespace, fix.Release, fix.Revision, func() error { return ops.NewRunner(c.Client).Apply(c.Ctx, fix) }, func() string {
		text := fmt.Sprintf("Wrote revision %d of %s on served API versions", fix.Revision, fix.Name)
		if fix.Supersede {
			text += fmt.Sprintf("; revision %d is superseded", fix.From)
		}
		return text + ". Helm can upgrade it again."
	})
}
