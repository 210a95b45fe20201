package status

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// renderStatusHead draws the two lines above the resources view's scrolled
// part: the revision and how many objects are Current, then live, how the view
// follows the cluster. It is pure.
func renderStatusHead(st *theme.Styles, s *live.ReleaseStatus, width int, live string) string {
	sum := st.OK.Render(s.Summary())
	if !s.Ready() {
		sum = st.Warning.Render(s.Summary())
	}
	first := st.Title.Render(fmt.Sprintf("%s · revision %d", s.Release, s.Revision)) + " " +
		releaseStatusStyle(st, s.ReleaseStatus).Render(s.ReleaseStatus) + st.Dim.Render(" · ") + sum
	return ansi.Truncate(first, width, "…") + "\n" + st.Dim.Render(ansi.Truncate(live, width, "…"))
}

// renderStatusBody draws the objects, the hooks and the Warning events of a
// status at the given width, measured against now. It is pure.
func renderStatusBody(st *theme.Styles, s *live.ReleaseStatus, width int, now time.Time) string {
	var lines []string
	add := func(xs ...string) {
		for _, x := range xs {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	if s.LatestRevision != 0 && s.LatestRevision != s.Revision {
		add(st.Warning.Render(human.WrapCells(fmt.Sprintf("The latest revision, %d, is %s: s on it in the history shows its objects.", s.LatestRevision, s.LatestStatus), width)))
	}
	for _, n := range s.Notes {
		add(st.Dim.Render(human.WrapCells("note: "+n, width)))
	}

	nsCol := false
	kindW, nameW := len("KIND"), len("NAME")
	for _, r := range s.Resources {
		kindW, nameW = max(kindW, len(r.Kind)), max(nameW, len(r.Name))
		if r.Namespace != "" && r.Namespace != s.Namespace {
			nsCol = true
		}
	}
	cols := []table.Column{
		{Title: "KIND", Width: min(kindW, 22)},
		{Title: "NAMESPACE", Width: 12, Prio: 1},
		{Title: "NAME", Width: min(nameW, 16), Flex: 1},
		{Title: "STATUS", Width: len("Terminating")},
		{Title: "MESSAGE", Width: 16, Flex: 3},
	}
	if !nsCol {
		cols = append(cols[:1], cols[2:]...)
	}
	cols = table.FitColumns(cols, width)
	add(table.RenderHeader(cols, &st.TableHeader))
	for _, r := range s.Resources {
		add(table.RenderRow(cols, map[string]table.Cell{
			"KIND": table.Plain(r.Kind), "NAMESPACE": table.Plain(human.OrUnknown(r.Namespace)), "NAME": table.Plain(r.Name),
			"STATUS": table.Styled(r.Status, statusStyle(st, r.Status)), "MESSAGE": table.Plain(r.Message),
		}, "  "))
	}

	add("", st.Title.Render("Hooks"))
	if len(s.Hooks) == 0 {
		add(st.Dim.Render("  none"))
	}
	for _, h := range s.Hooks {
		add(hookLines(st, h, width, now)...)
	}

	add("", st.Title.Render("Warning events")+st.Dim.Render(" · newest first"))
	if len(s.Events) == 0 {
		add(st.Dim.Render("  none"))
	}
	ecols := table.FitColumns([]table.Column{
		{Title: "AGE", Width: 5, Right: true},
		{Title: "OBJECT", Width: 24, Flex: 1},
		{Title: "REASON", Width: 14},
		{Title: "MESSAGE", Width: 16, Flex: 3},
	}, width)
	if len(s.Events) > 0 {
		add(table.RenderHeader(ecols, &st.TableHeader))
	}
	for _, e := range s.Events {
		msg := e.Message
		if e.Count > 1 {
			msg = fmt.Sprintf("%s (x%d)", msg, e.Count)
		}
		add(table.RenderRow(ecols, map[string]table.Cell{
			"AGE": table.Plain(human.Age(now, e.LastSeen)), "OBJECT": table.Plain(e.Object), "REASON": table.Styled(e.Reason, &st.Warning), "MESSAGE": table.Plain(msg),
		}, "  "))
	}
	if s.EventsOmitted > 0 {
		add(st.Dim.Render(fmt.Sprintf("  … and %d older", s.EventsOmitted)))
	}
	return strings.Join(lines, "\n")
}

// hookLines draws one hook, and for a Job that failed or runs, its Pods and
// the end of the failed container's log.
func hookLines(st *theme.Styles, h live.HookStatus, width int, now time.Time) []string {
	run := "never run"
	switch {
	case h.Phase == "Running":
		run = "Running since " + human.Age(now, h.Started)
	case h.Phase != "" && !h.Completed.IsZero():
		run = fmt.Sprintf("%s %s ago, after %s", h.Phase, human.Age(now, h.Completed), human.Duration(h.Completed.Sub(h.Started)))
	case h.Phase != "":
		run = h.Phase
	}
	out := []string{ansi.Truncate(fmt.Sprintf("  %s/%s ", h.Kind, h.Name)+st.Dim.Render(strings.Join(h.Events, ","))+"  "+hookPhaseStyle(st, h.Phase).Render(run), width, "…")}
	j := h.Job
	if j == nil {
		return out
	}
	sub := func(indent, s string, style *lipgloss.Style) {
		for _, l := range strings.Split(human.WrapCells(s, max(width-len(indent), 10)), "\n") {
			if style != nil {
				l = style.Render(l)
			}
			out = append(out, indent+l)
		}
	}
	sub("    ", fmt.Sprintf("Job: %s: %s", j.Status, j.Message), statusStyle(st, j.Status))
	for _, n := range j.Notes {
		sub("    ", "note: "+n, &st.Dim)
	}
	for _, p := range j.Pods {
		line := "Pod " + p.Name + ": " + p.Phase
		if p.Reason != "" || p.Message != "" {
			line += " (" + strings.TrimSpace(p.Reason+" "+p.Message) + ")"
		}
		sub("    ", line, nil)
		for _, c := range p.Containers {
			sub("      ", containerText(c), nil)
		}
	}
	if l := j.Log; l != nil {
		which := "log"
		if l.Previous {
			which = "log of the previous run"
		}
		switch {
		case l.Unavailable != "":
			sub("    ", fmt.Sprintf("The %s of %s/%s is not available: %s", which, l.Pod, l.Container, l.Unavailable), &st.Dim)
		case len(l.Lines) == 0:
			sub("    ", fmt.Sprintf("The %s of %s/%s is empty.", which, l.Pod, l.Container), &st.Dim)
		default:
			head := fmt.Sprintf("The %s of %s/%s, last %d lines", which, l.Pod, l.Container, len(l.Lines))
			if l.Masked {
				head += ", the release's secrets masked"
			}
			sub("    ", head+":", &st.Dim)
			for _, line := range l.Lines {
				out = append(out, ansi.Truncate("      │ "+line, width, "…"))
			}
		}
	}
	return out
}

// containerText says what state a container is in.
func containerText(c live.ContainerState) string {
	s := c.Name
	if c.Init {
		s += " (init)"
	}
	s += ": " + c.State
	if c.ExitCode != nil {
		s += fmt.Sprintf(", exit code %d", *c.ExitCode)
	}
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	if c.Restarts > 0 {
		s += ", " + human.Plural(int(c.Restarts), "restart", "restarts")
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}
