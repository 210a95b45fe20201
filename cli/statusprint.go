package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
)

// statusWidth is the width `status` lays its tables out in: the narrowest
// terminal there is. A message longer than its column wraps under it.
const statusWidth = 80

// maxEventsShown bounds the events the table lists; -o json has them all.
const maxEventsShown = 10

// printStatus writes st as `status` shows it, in width columns.
func printStatus(w io.Writer, st *live.ReleaseStatus, now time.Time, width int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Release %q (namespace %s), revision %d: %s, in the %s store\n", st.Release, st.Namespace, st.Revision, human.OrUnknown(st.ReleaseStatus), st.Store)
	if !st.LastDeployed.IsZero() || st.Description != "" {
		b.WriteString(human.WrapHanging(fmt.Sprintf("Last deployed %s: %s", human.Timestamp(st.LastDeployed), human.OrUnknown(oneLine(st.Description))), width, "  "))
	}
	if st.LatestRevision != 0 && st.LatestRevision != st.Revision {
		fmt.Fprintf(&b, "The latest revision, %d, is %s; --revision %d shows its objects and hooks.\n", st.LatestRevision, st.LatestStatus, st.LatestRevision)
	}
	for _, n := range st.Notes {
		b.WriteString(human.WrapHanging("Note: "+n, width, "  "))
	}
	fmt.Fprintf(&b, "Objects: %s\n\n", st.Summary())

	nsCol := false
	for _, r := range st.Resources {
		if r.Namespace != "" && r.Namespace != st.Namespace {
			nsCol = true
		}
	}
	head := []string{"KIND", "NAME", "STATUS", "MESSAGE"}
	if nsCol {
		head = []string{"KIND", "NAMESPACE", "NAME", "STATUS", "MESSAGE"}
	}
	var rows [][]string
	for _, r := range st.Resources {
		cells := []string{r.Kind, r.Name, r.Status, r.Message}
		if nsCol {
			cells = []string{r.Kind, human.OrUnknown(r.Namespace), r.Name, r.Status, r.Message}
		}
		rows = append(rows, cells)
	}
	b.WriteString(fitTable(head, rows, width))

	if len(st.Hooks) > 0 {
		b.WriteString("\nHooks (last run, as Helm recorded it):\n")
		var hrows [][]string
		for _, h := range st.Hooks {
			hrows = append(hrows, []string{h.Kind, h.Name, strings.Join(h.Events, ","), lastRun(h, now)})
		}
		b.WriteString(fitTable([]string{"KIND", "NAME", "EVENTS", "LAST RUN"}, hrows, width))
		for _, h := range st.Hooks {
			if h.Job != nil {
				writeHookJob(&b, h, width)
			}
		}
	}

	if st.Hooks != nil || st.Events != nil {
		if len(st.Events) == 0 {
			b.WriteString("\nNo Warning events.\n")
		} else {
			b.WriteString("\nWarning events, newest first:\n")
			var erows [][]string
			for i, e := range st.Events {
				if i == maxEventsShown {
					break
				}
				erows = append(erows, []string{human.Age(now, e.LastSeen), e.Object, e.Reason, eventMessage(e)})
			}
			b.WriteString(fitTable([]string{"LAST SEEN", "OBJECT", "REASON", "MESSAGE"}, erows, width))
			if more := len(st.Events) - maxEventsShown + st.EventsOmitted; more > 0 {
				fmt.Fprintf(&b, "... and %d older (-o json lists up to %d).\n", more, live.MaxStatusEvents)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// eventMessage is an event's message, with its count when it happened more than
// once.
func eventMessage(e live.WarningEvent) string {
	if e.Count > 1 {
		return fmt.Sprintf("%s (x%d)", e.Message, e.Count)
	}
	return e.Message
}

// lastRun says how a hook's last run went: "Failed 2m ago, after 12s".
func lastRun(h live.HookStatus, now time.Time) string {
	switch {
	case h.Phase == "":
		return "never run"
	case h.Phase == "Running":
		return "Running since " + human.Age(now, h.Started)
	case h.Completed.IsZero() || h.Started.IsZero():
		return h.Phase
	}
	return fmt.Sprintf("%s %s ago, after %s", h.Phase, human.Age(now, h.Completed), human.Duration(h.Completed.Sub(h.Started)))
}

// writeHookJob writes what the cluster says of a hook Job: its status, its Pods
// and the end of the failed container's log.
func writeHookJob(b *strings.Builder, h live.HookStatus, width int) {
	j := h.Job
	b.WriteString(human.WrapHanging(fmt.Sprintf("  Job %s: %s: %s", h.Name, j.Status, j.Message), width, "    "))
	for _, n := range j.Notes {
		b.WriteString(human.WrapHanging("    note: "+n, width, "      "))
	}
	for _, p := range j.Pods {
		line := fmt.Sprintf("    Pod %s: %s", p.Name, p.Phase)
		if p.Reason != "" || p.Message != "" {
			line += " (" + strings.TrimSpace(p.Reason+" "+p.Message) + ")"
		}
		b.WriteString(human.WrapHanging(line, width, "      "))
		for _, c := range p.Containers {
			b.WriteString(human.WrapHanging("      "+containerLine(c), width, "        "))
		}
	}
	if l := j.Log; l != nil {
		which := "log"
		if l.Previous {
			which = "log of its previous run"
		}
		masked := ""
		if l.Masked {
			masked = ", the release's secrets masked"
		}
		if l.Unavailable != "" {
			b.WriteString(human.WrapHanging(fmt.Sprintf("    The %s of %s/%s is not available: %s", which, l.Pod, l.Container, l.Unavailable), width, "      "))
			return
		}
		if len(l.Lines) == 0 {
			fmt.Fprintf(b, "    The %s of %s/%s is empty.\n", which, l.Pod, l.Container)
			return
		}
		b.WriteString(human.WrapHanging(fmt.Sprintf("    The %s of %s/%s, last %d lines%s:", which, l.Pod, l.Container, len(l.Lines), masked), width, "      "))
		for _, line := range l.Lines {
			fmt.Fprintf(b, "      | %s\n", line)
		}
	}
}

// containerLine says what state a container is in.
func containerLine(c live.ContainerState) string {
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
		s += fmt.Sprintf(", %s", human.Plural(int(c.Restarts), "restart", "restarts"))
		if c.LastExitCode != nil {
			s += fmt.Sprintf(", the last ended with exit code %d", *c.LastExitCode)
		}
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// fitTable lays rows out under head in width columns, as kubectl's tables (three
// spaces between columns); the last column takes what is left, at least 20, and
// wraps under itself when longer. Other columns longer than a fair share are
// cut with "…".
func fitTable(head []string, rows [][]string, width int) string {
	const gap = 3
	n := len(head)
	widths := make([]int, n)
	for i, h := range head {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i := 0; i < n-1; i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	// The columns before the last share width with it: shrink the widest
	// until the last has 20 columns.
	for {
		used := 0
		for i := 0; i < n-1; i++ {
			used += widths[i] + gap
		}
		if width-used >= 20 {
			break
		}
		wi := 0
		for i := 1; i < n-1; i++ {
			if widths[i] > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 8 {
			break
		}
		widths[wi]--
	}
	used := 0
	for i := 0; i < n-1; i++ {
		used += widths[i] + gap
	}
	last := max(width-used, 20)
	var b strings.Builder
	line := func(cells []string) {
		var pre strings.Builder
		for i := 0; i < n-1; i++ {
			pre.WriteString(padCut(cells[i], widths[i]))
			pre.WriteString(strings.Repeat(" ", gap))
		}
		parts := human.Cut(cells[n-1], last)
		for k, p := range parts {
			if k == 0 {
				b.WriteString(strings.TrimRight(pre.String()+p, " "))
			} else {
				b.WriteString(strings.Repeat(" ", used) + p)
			}
			b.WriteByte('\n')
		}
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// padCut pads s to w runes, or cuts it to w with "…".
func padCut(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n > w {
		return string([]rune(s)[:w-1]) + "…"
	}
	return s + strings.Repeat(" ", w-n)
}
