package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// The live diff: the diff screen with the live cluster as its second side.
// It compares one revision's manifest with the objects the cluster runs, per
// resource, masked until v, like a diff between revisions.

// liveDiffLoadedMsg answers loadLiveDiff. It carries the release, revision and
// reveal it answers, so that a late answer to an earlier request is dropped.
type liveDiffLoadedMsg struct {
	ns, name string
	rev      int
	reveal   bool
	drift    *revdiff.Drift
	err      error
}

// loadLiveDiff compares revision rev of a release with the live cluster.
func loadLiveDiff(ctx context.Context, c *kube.Client, ns, name string, rev int, reveal bool) tea.Cmd {
	return func() tea.Msg {
		d, err := c.Drift(ctx, ns, name, rev, kube.DriftOptions{Reveal: reveal})
		return liveDiffLoadedMsg{ns: ns, name: name, rev: rev, reveal: reveal, drift: d, err: err}
	}
}

// newLiveDiffScreen compares revision rev with the live cluster.
func newLiveDiffScreen(c common, ns, name string, rev int) *diffScreen {
	s := newDiffScreen(c, ns, name, rev, 0)
	s.live = true
	s.drifts = map[bool]*revdiff.Drift{}
	return s
}

// takeLive shows a live diff that answers the screen's request.
func (s *diffScreen) takeLive(msg liveDiffLoadedMsg) {
	if !s.live || msg.ns != s.ns || msg.name != s.name || msg.rev != s.from || msg.reveal != s.reveal {
		return
	}
	s.loading = false
	if msg.err != nil {
		s.err = msg.err
		s.anchors = nil
		s.vp.SetContent(s.styles.renderError(msg.err, s.width) + "\n\n" + s.styles.Dim.Render("esc: back"))
		return
	}
	s.err = nil
	s.drifts[msg.reveal] = msg.drift
	s.showLive(msg.drift)
}

func (s *diffScreen) showLive(d *revdiff.Drift) {
	s.setContent(renderLive(s.styles, d, s.width))
}

// renderLive draws a live diff at the given width, as renderDiff draws a diff
// between revisions, and returns the line of each object's heading. It is pure.
func renderLive(st *Styles, d *revdiff.Drift, width int) (string, []int) {
	var lines []string
	var anchors []int
	add := func(s ...string) {
		for _, x := range s {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	add(st.Title.Render(fmt.Sprintf("%s: revision %d → live", d.Release, d.Revision)) + "  " + maskedBanner(st, d.Revealed))
	sum := fmt.Sprintf("Objects: %s changed, %s missing, %s extra, %d unreadable, %d in sync",
		st.DiffHunk.Render(itoa(d.Count(revdiff.Drifted))), st.DiffDel.Render(itoa(d.Count(revdiff.Missing))),
		st.DiffAdd.Render(itoa(d.Count(revdiff.Extra))), d.Count(revdiff.Unreadable), d.Count(revdiff.InSync))
	add(wrap(sum, width))
	if !d.Drifted() {
		msg := "No drift: every object the revision holds is live as its manifest says."
		if !d.Complete() {
			msg = "No drift in what could be read; some objects could not be read (below)."
		}
		add("", st.OK.Render(wrap(msg, width)))
	}
	add("")
	marks := map[revdiff.DriftState]string{revdiff.Drifted: "~", revdiff.Missing: "-", revdiff.Extra: "+", revdiff.Unreadable: "?"}
	styleOf := map[revdiff.DriftState]func(...string) string{
		revdiff.Drifted: st.DiffHunk.Render, revdiff.Missing: st.DiffDel.Render,
		revdiff.Extra: st.DiffAdd.Render, revdiff.Unreadable: st.Warning.Render,
	}
	listed := false
	for _, o := range d.Objects {
		m, ok := marks[o.State]
		if !ok {
			continue
		}
		listed = true
		add("  " + styleOf[o.State](fmt.Sprintf("%s %s (%s)", m, o.Key, o.State)))
		if o.Reason != "" {
			add(st.Dim.Render(wrap("    "+o.Reason, width)))
		}
	}
	for _, n := range d.Notes {
		listed = true
		add(st.Dim.Render(wrap("  note: "+n, width)))
	}
	if listed {
		add("")
	}
	for _, o := range d.Objects {
		if o.Diff == "" {
			continue
		}
		title := fmt.Sprintf("%s %s (%s)", marks[o.State], o.Key, o.State)
		anchors = append(anchors, len(lines))
		rule := strings.Repeat("─", max(width-ansi.StringWidth(title)-4, 2))
		add(st.DiffSection.Render("── "+title+" "+rule), st.colorDiff(o.Diff), "")
	}
	return strings.Join(lines, "\n"), anchors
}
