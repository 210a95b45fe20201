package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
)

// Status is a release's status as both front ends show it: `chunkview status`
// and the TUI's resources view.
type Status struct {
	Release   string
	Namespace string
	Revision  int
	// Helm is Helm's status of the revision, "-" when not known.
	Helm Cell
	// Store is the store that holds the release.
	Store string
	// Deployed says when the revision was deployed and how ("Last deployed
	// 2026-12-02 14:00:00 UTC: Upgrade complete"); "" when neither is known.
	Deployed string
	// Objects counts the objects by status: ok when every one is Current.
	Objects Cell
	// Latest names the latest revision when it is not the one shown, a
	// warning: each front end adds how to see it (LatestRevision).
	Latest         *Line
	LatestRevision int
	// Remarks are chunkview's: what could not be looked at.
	Remarks []Line
	// LastDeployed and Description are the revision's, for a header in
	// helm status's words (LAST DEPLOYED, DESCRIPTION).
	LastDeployed time.Time
	Description  string
	// ChartNotes are the chart's NOTES as the revision rendered them, masked.
	ChartNotes string
	// Resources are the manifest's objects: KIND, NAMESPACE (when some object
	// lives outside the release's namespace), NAME, STATUS, MESSAGE.
	Resources Table
	// Hooks are the revision's hooks; HooksRead says whether the hooks and the
	// events were read at all (a read that did not ask has neither).
	Hooks     []Hook
	HooksRead bool
	// Events are the Warning events, newest first: LAST SEEN, OBJECT, REASON,
	// MESSAGE. EventsOmitted counts the older ones the read left out.
	Events        Table
	EventsOmitted int
}

// Hook is one hook and its last run; for a Job that failed or runs, how it
// stands in the cluster.
type Hook struct {
	Kind, Name string
	// Events are the hook's events, comma-separated.
	Events string
	// Run says how the last run went: "Failed 2m ago, after 12s".
	Run Cell
	// Job is the Job's kstatus and message ("Failed: BackoffLimitExceeded"),
	// nil when the hook has no Job to show.
	Job *Cell
	// Details are under the Job: its notes, its Pods and their containers,
	// and the head of its log.
	Details []Line
	// Log is the end of the failed container's log.
	Log []string
}

// StatusOf renders st as of now.
func StatusOf(st *live.ReleaseStatus, now time.Time) Status {
	out := Status{
		Release: st.Release, Namespace: st.Namespace, Revision: st.Revision, Store: st.Store,
		Helm:      Cell{Text: human.OrUnknown(st.ReleaseStatus), Meaning: ReleaseStatus(st.ReleaseStatus)},
		Objects:   Cell{Text: st.Summary(), Meaning: OK},
		HooksRead: st.Hooks != nil, EventsOmitted: st.EventsOmitted,
	}
	if !st.Ready() {
		out.Objects.Meaning = Warning
	}
	if !st.LastDeployed.IsZero() || st.Description != "" {
		out.Deployed = fmt.Sprintf("Last deployed %s: %s", human.Timestamp(st.LastDeployed), human.OrUnknown(human.FoldLines(st.Description)))
	}
	if st.LatestRevision != 0 && st.LatestRevision != st.Revision {
		out.Latest = &Line{Text: fmt.Sprintf("The latest revision, %d, is %s", st.LatestRevision, st.LatestStatus), Meaning: Warning}
		out.LatestRevision = st.LatestRevision
	}
	out.LastDeployed, out.Description, out.ChartNotes = st.LastDeployed, human.FoldLines(st.Description), st.Notes
	for _, n := range st.Remarks {
		out.Remarks = append(out.Remarks, Line{Text: n, Meaning: Muted})
	}
	out.Resources = resourceTable(st)
	for _, h := range st.Hooks {
		out.Hooks = append(out.Hooks, hookOf(h, now))
	}
	out.Events = EventsOf(st.Events, now)
	return out
}

// EventsOf is the table of Warning events evs as of now: LAST SEEN, OBJECT,
// REASON, MESSAGE, in their order.
func EventsOf(evs []live.WarningEvent, now time.Time) Table {
	t := Table{Columns: []Column{{Name: "LAST SEEN", Short: "AGE", Right: true}, {Name: "OBJECT"}, {Name: "REASON"}, {Name: "MESSAGE"}}}
	for _, e := range evs {
		t.Rows = append(t.Rows, []Cell{Text(human.Age(now, e.LastSeen)), Text(e.Object), {Text: e.Reason, Meaning: Warning}, Text(eventMessage(e))})
	}
	return t
}

// resourceTable is the objects of st, with a NAMESPACE column only when some
// object lives outside the release's namespace.
func resourceTable(st *live.ReleaseStatus) Table {
	nsCol := false
	for _, r := range st.Resources {
		if r.Namespace != "" && r.Namespace != st.Namespace {
			nsCol = true
		}
	}
	t := Table{Columns: []Column{{Name: "KIND"}, {Name: "NAME"}, {Name: "STATUS"}, {Name: "MESSAGE"}}}
	if nsCol {
		t.Columns = []Column{{Name: "KIND"}, {Name: "NAMESPACE"}, {Name: "NAME"}, {Name: "STATUS"}, {Name: "MESSAGE"}}
	}
	for _, r := range st.Resources {
		status := Cell{Text: r.Status, Meaning: KStatus(r.Status)}
		row := []Cell{Text(r.Kind), Text(r.Name), status, Text(r.Message)}
		if nsCol {
			row = []Cell{Text(r.Kind), Text(human.OrUnknown(r.Namespace)), Text(r.Name), status, Text(r.Message)}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HookTable is the hooks as a table: KIND, NAME, EVENTS, LAST RUN.
func (s Status) HookTable() Table {
	t := Table{Columns: []Column{{Name: "KIND"}, {Name: "NAME"}, {Name: "EVENTS"}, {Name: "LAST RUN"}}}
	for _, h := range s.Hooks {
		t.Rows = append(t.Rows, []Cell{Text(h.Kind), Text(h.Name), Text(h.Events), h.Run})
	}
	return t
}

// eventMessage is an event's message, with its count when it happened more than
// once.
func eventMessage(e live.WarningEvent) string {
	if e.Count > 1 {
		return fmt.Sprintf("%s (x%d)", e.Message, e.Count)
	}
	return e.Message
}

// hookOf renders one hook as of now.
func hookOf(h live.HookStatus, now time.Time) Hook {
	out := Hook{Kind: h.Kind, Name: h.Name, Events: strings.Join(h.Events, ","), Run: Cell{Text: lastRun(h, now), Meaning: HookPhase(h.Phase)}}
	j := h.Job
	if j == nil {
		return out
	}
	out.Job = &Cell{Text: fmt.Sprintf("%s: %s", j.Status, j.Message), Meaning: KStatus(j.Status)}
	for _, n := range j.Remarks {
		out.Details = append(out.Details, Line{Text: "note: " + n, Meaning: Muted, Depth: 1})
	}
	for _, p := range j.Pods {
		line := "Pod " + p.Name + ": " + p.Phase
		if p.Reason != "" || p.Message != "" {
			line += " (" + strings.TrimSpace(p.Reason+" "+p.Message) + ")"
		}
		out.Details = append(out.Details, Line{Text: line, Depth: 1})
		for _, c := range p.Containers {
			out.Details = append(out.Details, Line{Text: containerText(c), Depth: 2})
		}
	}
	if l := j.Log; l != nil {
		out.Details = append(out.Details, Line{Text: logHead(l), Meaning: Muted, Depth: 1})
		if l.Unavailable == "" {
			out.Log = l.Lines
		}
	}
	return out
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

// logHead says whose log follows, or why none does.
func logHead(l *live.ContainerLog) string {
	which := "log"
	if l.Previous {
		which = "log of the previous run"
	}
	switch {
	case l.Unavailable != "":
		return fmt.Sprintf("The %s of %s/%s is not available: %s", which, l.Pod, l.Container, l.Unavailable)
	case len(l.Lines) == 0:
		return fmt.Sprintf("The %s of %s/%s is empty.", which, l.Pod, l.Container)
	}
	head := fmt.Sprintf("The %s of %s/%s, last %d lines", which, l.Pod, l.Container, len(l.Lines))
	if l.Masked {
		head += ", the release's secrets masked"
	}
	return head + ":"
}

// containerText says what state a container is in, and for one that restarted,
// how its last run ended.
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
		if c.LastExitCode != nil {
			s += fmt.Sprintf(", the last ended with exit code %d", *c.LastExitCode)
		}
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}
