package ui

import (
	"fmt"
	"maps"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
)

// diffScreen compares two revisions: the resources added, removed and changed
// first, then a coloured unified diff per resource and for values, chart and
// notes, with keys to jump between changes. In rollback mode it shows what a
// rollback would change and asks before doing it.
type diffScreen struct {
	common
	ns, name string
	from, to int
	reveal   bool

	rollback bool
	// base is the release as the history showed it, which the rollback is
	// planned from; plan is that rollback.
	base *ops.Plan
	plan *ops.Rollback
	// state of the rollback once confirmed.
	state  dialogState
	result string
	actErr error

	results map[bool]*revdiff.Result // by reveal
	// live compares revision from with the live cluster (see livediff.go);
	// drifts holds its answers, by reveal.
	live    bool
	drifts  map[bool]*revdiff.Drift
	loading bool
	err     error

	vp      viewport.Model
	anchors []int
	// cur is the index of the change last jumped to; -1 before the first jump.
	cur int
	// leftPending, in rollback mode, names the pending latest revision the
	// rollback will leave behind, to warn before y.
	leftPending string
	width0      int // the width the content was rendered at
}

func newDiffScreen(c common, ns, name string, from, to int) *diffScreen {
	vp := viewport.New()
	vp.KeyMap = c.keys.Scroll.viewportKeys()
	vp.MouseWheelEnabled = false
	return &diffScreen{common: c, ns: ns, name: name, from: from, to: to, results: map[bool]*revdiff.Result{}, vp: vp, cur: -1}
}

// newRollbackScreen shows what rolling the release of base back to revision rev
// would change, and rolls back on "y".
func newRollbackScreen(c common, base *ops.Plan, rev int) *diffScreen {
	s := newDiffScreen(c, base.Namespace, base.Release, 0, rev)
	s.rollback, s.base = true, base
	return s
}

func (s *diffScreen) init() tea.Cmd { return s.load() }

func (s *diffScreen) load() tea.Cmd {
	if s.live {
		if d, ok := s.drifts[s.reveal]; ok {
			s.showLive(d)
			return nil
		}
		s.loading = true
		return loadLiveDiff(s.ctx, s.client, s.ns, s.name, s.from, s.reveal)
	}
	if r, ok := s.results[s.reveal]; ok {
		s.show(r)
		return nil
	}
	s.loading = true
	if s.rollback {
		return planRollback(s.ctx, s.client, s.base, s.to, s.reveal)
	}
	return loadDiff(s.ctx, s.client, s.ns, s.name, s.from, s.to, s.reveal)
}

func (s *diffScreen) title() string {
	switch {
	case s.rollback:
		return fmt.Sprintf("roll back to %d", s.to)
	case s.live:
		return fmt.Sprintf("diff %d→live", s.from)
	}
	return fmt.Sprintf("diff %d→%d", s.from, s.to)
}

func (s *diffScreen) busy() bool { return s.loading || s.state == dialogRunning }

func (s *diffScreen) capturing() bool { return false }

// handlesBack keeps esc from leaving while a rollback runs.
func (s *diffScreen) handlesBack() bool { return s.state == dialogRunning }

// footerLines is the height of the rollback prompt, or of the change counter.
func (s *diffScreen) footerLines() int {
	if s.rollback {
		return 4
	}
	return 1
}

func (s *diffScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h-s.footerLines(), 1))
	if d, ok := s.drifts[s.reveal]; ok && s.live && w != s.width0 {
		s.showLive(d)
	}
	if r, ok := s.results[s.reveal]; ok && w != s.width0 {
		s.show(r)
	}
}

func (s *diffScreen) help() helpKeys {
	k := s.keys.Diff
	short := []key.Binding{k.NextChange, k.PrevChange, k.Reveal}
	// y is offered only for a plan there is to confirm: not while it is being
	// made, not when it failed, not under --read-only.
	canConfirm := s.rollback && s.state == dialogAsking && s.plan != nil && s.err == nil && !s.readOnly()
	if canConfirm {
		short = append([]key.Binding{k.Confirm}, short...)
	}
	own := []key.Binding{k.NextChange, k.PrevChange, k.Reveal}
	if canConfirm {
		// y answers the rollback's question; a plain diff has none.
		own = append(own, k.Confirm)
	}
	return helpKeys{short: short, full: [][]key.Binding{own, s.keys.Scroll.bindings()}}
}

func (s *diffScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case liveDiffLoadedMsg:
		s.takeLive(msg)
		return nil
	case diffLoadedMsg:
		if s.live {
			return nil
		}
		if msg.ns != s.ns || msg.name != s.name || msg.to != s.to || msg.reveal != s.reveal ||
			msg.rollback != s.rollback || (!s.rollback && msg.from != s.from) {
			return nil
		}
		s.loading = false
		if msg.err != nil {
			s.err = msg.err
			s.vp.SetContent(s.styles.renderError(msg.err, s.width) + "\n\n" + s.styles.Dim.Render("esc: back"))
			return nil
		}
		s.err = nil
		if msg.plan != nil {
			if s.plan != nil && !maps.Equal(s.plan.Records, msg.plan.Records) {
				// The release moved on: a diff of the old plan, masked or
				// revealed, no longer shows what would run.
				clear(s.results)
			}
			s.plan = msg.plan
			s.from = msg.plan.From
		}
		s.results[msg.reveal] = msg.result
		s.show(msg.result)
		return nil
	case actionDoneMsg:
		if msg.kind != actionRollback || msg.ns != s.ns || msg.name != s.name || s.state != dialogRunning {
			return nil
		}
		s.state = dialogDone
		s.result, s.actErr = msg.text, msg.err
		return afterAction(msg)
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return nil
}

func (s *diffScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys.Diff
	switch {
	case key.Matches(msg, k.NextChange):
		s.jump(1)
		return nil
	case key.Matches(msg, k.PrevChange):
		s.jump(-1)
		return nil
	case key.Matches(msg, k.Reveal):
		s.reveal = !s.reveal
		return s.load()
	case s.rollback && key.Matches(msg, k.Confirm):
		if s.state != dialogAsking || s.plan == nil {
			return nil
		}
		s.state = dialogRunning
		return runOp(s.ctx, s.client, actionRollback, s.plan.To, s.plan, rollbackDone(s.plan))
	}
	return scrollViewport(msg, s.keys.Scroll, &s.vp)
}

// jump scrolls to the next (dir 1) or previous (dir -1) change. The change
// jumped to is remembered: the last ones cannot scroll to the top of the view,
// and the counter must still reach them.
func (s *diffScreen) jump(dir int) {
	next := s.currentChange() // 1-based current: the next one's index
	if dir < 0 {
		next -= 2
	}
	switch {
	case next >= len(s.anchors):
		return
	case next < 0:
		s.cur = 0
		s.vp.GotoTop()
		return
	}
	s.cur = next
	s.vp.SetYOffset(s.anchors[next])
}

// currentChange returns the number of the change in view (1-based; 0 at the top
// before any jump): the one jumped to while it is on screen, else the first on
// screen, else the last above it.
func (s *diffScreen) currentChange() int {
	y, h := s.vp.YOffset(), s.vp.Height()
	if s.cur < 0 && y == 0 {
		return 0 // not started: n goes to the first
	}
	visible := func(i int) bool { return s.anchors[i] >= y && s.anchors[i] < y+h }
	if s.cur >= 0 && s.cur < len(s.anchors) && visible(s.cur) {
		return s.cur + 1
	}
	for i := range s.anchors {
		if visible(i) {
			return i + 1
		}
	}
	n := 0
	for i, a := range s.anchors {
		if a <= y {
			n = i + 1
		}
	}
	return n
}

func (s *diffScreen) show(r *revdiff.Result) {
	s.setContent(renderDiff(s.styles, r, s.width))
}

// setContent puts a rendered diff (revisions or live) in the viewport, with the
// line of each change's heading for jumping, where the reader was.
func (s *diffScreen) setContent(text string, anchors []int) {
	y := s.vp.YOffset()
	s.anchors = anchors
	s.width0 = s.width
	s.vp.SetContent(text)
	s.vp.SetYOffset(y)
}

// maskedBanner says, beside a diff's title, whether secrets are masked.
func maskedBanner(st *Styles, revealed bool) string {
	if revealed {
		return st.Masked.Render(" secrets REVEALED ") + st.Dim.Render(" (v masks)")
	}
	return st.Dim.Render("secrets masked (v reveals)")
}

// renderDiff draws a diff result at the given width and returns the line of each
// change's heading, for jumping. It is pure.
func renderDiff(st *Styles, r *revdiff.Result, width int) (string, []int) {
	var lines []string
	var anchors []int
	add := func(s ...string) {
		for _, x := range s {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	add(st.Title.Render(fmt.Sprintf("%s: revision %d → %d", r.Release, r.From, r.To)) + "  " + maskedBanner(st, r.Revealed))
	a, rm, c := r.Summary()
	var sections []string
	for _, sec := range []revdiff.Section{r.Values, r.ComputedValues, r.Chart, r.Notes} {
		if sec.Diff != "" {
			sections = append(sections, sec.Name)
		}
	}
	sum := fmt.Sprintf("Resources: %s added, %s removed, %s changed", st.DiffAdd.Render(itoa(a)), st.DiffDel.Render(itoa(rm)), st.DiffHunk.Render(itoa(c)))
	ha, hr, hc := countChanges(r.Hooks)
	if ha+hr+hc > 0 {
		sum += fmt.Sprintf(" · hooks: %d added, %d removed, %d changed", ha, hr, hc)
	}
	if len(sections) > 0 {
		sum += " · also changed: " + strings.Join(sections, ", ")
	}
	add(wrap(sum, width))
	if !r.Changed() {
		add("", st.OK.Render("No differences: the two revisions hold the same resources, values, chart and notes."))
		return strings.Join(lines, "\n"), nil
	}
	add("")
	marks := map[revdiff.ChangeKind]string{revdiff.Added: "+", revdiff.Removed: "-", revdiff.Changed: "~"}
	styleOf := map[revdiff.ChangeKind]func(...string) string{
		revdiff.Added: st.DiffAdd.Render, revdiff.Removed: st.DiffDel.Render, revdiff.Changed: st.DiffHunk.Render,
	}
	listed := false
	for _, group := range []struct {
		what    string
		changes []revdiff.ResourceChange
	}{{"", r.Resources}, {"hook ", r.Hooks}} {
		for _, ch := range group.changes {
			if m, ok := marks[ch.Change]; ok {
				add("  " + styleOf[ch.Change](fmt.Sprintf("%s %s%s", m, group.what, ch.Key)))
				listed = true
			}
		}
	}
	if listed {
		add("")
	}
	heading := func(title string) {
		anchors = append(anchors, len(lines))
		rule := strings.Repeat("─", max(width-ansi.StringWidth(title)-4, 2))
		add(st.DiffSection.Render("── " + title + " " + rule))
	}
	for _, group := range []struct {
		what    string
		changes []revdiff.ResourceChange
	}{{"", r.Resources}, {"hook ", r.Hooks}} {
		for _, ch := range group.changes {
			if ch.Diff == "" {
				continue
			}
			heading(fmt.Sprintf("%s %s%s (%s)", marks[ch.Change], group.what, ch.Key, ch.Change))
			add(st.colorDiff(ch.Diff), "")
		}
	}
	for _, sec := range []revdiff.Section{r.Values, r.ComputedValues, r.Chart, r.Notes} {
		if sec.Diff == "" {
			continue
		}
		heading("~ " + sec.Name)
		add(st.colorDiff(sec.Diff), "")
	}
	return strings.Join(lines, "\n"), anchors
}

func countChanges(cs []revdiff.ResourceChange) (added, removed, changed int) {
	for _, c := range cs {
		switch c.Change {
		case revdiff.Added:
			added++
		case revdiff.Removed:
			removed++
		case revdiff.Changed:
			changed++
		}
	}
	return
}

func (s *diffScreen) view() string {
	st := s.styles
	body := viewMarked(&s.vp)
	if s.loading && len(s.results) == 0 && len(s.drifts) == 0 {
		body = st.Dim.Render(fmt.Sprintf("Comparing revisions of %s…", s.name))
		if s.live {
			body = st.Dim.Render(fmt.Sprintf("Reading the live objects of %s to compare with revision %d…", s.name, s.from))
		}
		if s.rollback {
			body = st.Dim.Render(fmt.Sprintf("Working out what rolling %s back to revision %d would change…", s.name, s.to))
		}
	}
	body = padLines(body, max(s.height-s.footerLines(), 1))
	var foot []string
	if !s.rollback {
		if len(s.anchors) > 0 {
			if n := s.currentChange(); n > 0 {
				foot = append(foot, st.Dim.Render(fmt.Sprintf("change %d of %d · n/N jump", n, len(s.anchors))))
			} else {
				foot = append(foot, st.Dim.Render(fmt.Sprintf("%s · n: the first", human.Plural(len(s.anchors), "change", "changes"))))
			}
		} else {
			foot = append(foot, "")
		}
		return body + "\n" + strings.Join(foot, "\n")
	}
	return body + "\n" + strings.Join(s.rollbackFooter(), "\n")
}

// rollbackFooter is the prompt of rollback mode, then the outcome in its place.
func (s *diffScreen) rollbackFooter() []string {
	st := s.styles
	rule := st.Dim.Render(strings.Repeat("─", s.width))
	switch {
	case s.err != nil:
		return []string{rule, st.Error.Render("Nothing to roll back: the plan failed (see above)."), "", ""}
	case s.plan == nil:
		return []string{rule, "", "", ""}
	case s.state == dialogRunning:
		return []string{rule, st.Warning.Render(line1(s.width, fmt.Sprintf("Rolling %s back to revision %d…", s.name, s.plan.To))), "", ""}
	case s.state == dialogDone && s.actErr != nil:
		return []string{rule, st.Error.Render(line1(s.width, "✗ Rollback failed: "+shortError(s.actErr))), st.Dim.Render("esc: back to the history"), ""}
	case s.state == dialogDone:
		return []string{rule, st.OK.Render(line1(s.width, "✓ "+s.result)), st.Dim.Render("esc: back to the history, where the new revision is listed"), ""}
	case s.readOnly():
		return []string{rule, st.Warning.Render(line1(s.width, "Read-only mode: this is what a rollback would change; rolling back is off.")), "", ""}
	}
	p := s.plan
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
	lines := strings.Split(wrap(q, s.width), "\n")
	for len(lines) < 2 {
		lines = append(lines, "")
	}
	first, second := st.Warning.Render(lines[0]), st.Warning.Render(line1(s.width, strings.Join(lines[1:], " ")))
	if s.leftPending != "" {
		// Helm's rollback supersedes the deployed revision only: say so
		// before y, in place of the question's second half.
		first = st.Warning.Render(line1(s.width, short))
		second = st.ErrorBold.Render(line1(s.width, "⚠ "+s.leftPending))
	}
	return []string{rule, first, second, st.Prompt.Render(line1(s.width, "y: roll back · esc: cancel · on "+s.where(s.ns)))}
}

// dropList names the revisions a rollback deletes first: "3" or "3, 4".
func dropList(drop []ops.Dropped) string {
	out := make([]string, len(drop))
	for i, d := range drop {
		out[i] = fmt.Sprint(d.Revision)
	}
	return strings.Join(out, ", ")
}
