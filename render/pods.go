package render

import (
	"fmt"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
)

// Pods are the Pods behind one workload, as both front ends show them: the
// CLI's status -o wide, the TUI's drill-down from a workload.
type Pods struct {
	// Title names the workload and counts its Pods: "Deployment web-frontend:
	// 5 Pods, 2 failing".
	Title Line
	// Table is NAME, READY, STATUS, RESTARTS, AGE, NODE, LAST EXIT, as
	// kubectl get pods -o wide shows them (LAST EXIT: how the failing
	// container's last run ended).
	Table Table
	// Remark says why the Pods are not shown, or not all of them.
	Remark *Line
}

// PodColumns are the columns of a Pods table.
var PodColumns = []Column{
	{Name: "NAME"}, {Name: "READY", Right: true}, {Name: "STATUS"}, {Name: "RESTARTS", Right: true},
	{Name: "AGE", Right: true}, {Name: "NODE"}, {Name: "LAST EXIT"},
}

// PodsOf renders the Pods of workload w as of now.
func PodsOf(w live.WorkloadPods, now time.Time) Pods {
	out := Pods{Table: Table{Columns: PodColumns}}
	failing := 0
	for _, p := range w.Pods {
		if len(p.Failing()) > 0 {
			failing++
		}
		out.Table.Rows = append(out.Table.Rows, PodRow(p, now))
	}
	kind := w.Kind
	if w.Hook {
		kind = "hook " + kind
	}
	title := fmt.Sprintf("%s %s: %s", kind, w.Name, human.Plural(len(w.Pods), "Pod", "Pods"))
	out.Title = Line{Text: title}
	if failing > 0 {
		out.Title = Line{Text: fmt.Sprintf("%s, %d failing", title, failing), Meaning: Failed}
	}
	if w.Remark != "" {
		out.Remark = &Line{Text: w.Remark, Meaning: Muted, Depth: 1}
	}
	return out
}

// PodRow is one Pod's row of a Pods table as of now.
func PodRow(p live.PodState, now time.Time) []Cell {
	ready := Cell{Text: fmt.Sprintf("%d/%d", p.Ready, p.Total), Meaning: OK}
	if p.Ready < p.Total && p.Status != "Completed" {
		ready.Meaning = Warning
	}
	restarts := Text(fmt.Sprint(p.Restarts))
	if p.Restarts > 0 {
		restarts = Cell{Text: fmt.Sprintf("%d (%s ago)", p.Restarts, human.Age(now, p.LastRestart)), Meaning: Warning}
		if p.LastRestart.IsZero() {
			restarts.Text = fmt.Sprint(p.Restarts)
		}
	}
	return []Cell{
		Text(p.Name), ready, {Text: p.Status, Meaning: PodStatus(p)}, restarts,
		Text(human.Age(now, p.Created)), Text(human.OrUnknown(p.Node)), lastExit(p),
	}
}

// lastExit says how the first failing container's run ended: its exit code
// and reason, the current run's when it ended, else the last one's; the
// container is named when the Pod has several.
func lastExit(p live.PodState) Cell {
	f := p.Failing()
	if len(f) == 0 {
		return Cell{Text: "-", Meaning: Muted}
	}
	c := f[0]
	code, reason := c.ExitCode, c.Reason
	if code == nil {
		code, reason = c.LastExitCode, c.LastReason
	}
	if code == nil {
		return Cell{Text: "-", Meaning: Muted}
	}
	s := fmt.Sprint(*code)
	if reason != "" {
		s += " (" + reason + ")"
	}
	if len(p.Containers) > 1 {
		s = c.Name + ": " + s
	}
	m := Failed
	if *code == 0 {
		m = Muted
	}
	return Cell{Text: s, Meaning: m}
}

// PodStatus is what a Pod's state means: Running with every container ready,
// or Completed, is well; one of its containers failing (CrashLoopBackOff,
// ImagePullBackOff, Error, OOMKilled, ...) or the Pod Failed is not; starting,
// not ready or terminating needs attention soon.
func PodStatus(p live.PodState) Meaning {
	switch {
	case p.Phase == "Failed":
		return Failed
	case p.Status == "Completed" || p.Phase == "Succeeded":
		return OK
	case p.Status == "Terminating":
		return Warning
	}
	for _, c := range p.Containers {
		if c.State == "waiting" && c.Failing() || c.ExitCode != nil && *c.ExitCode != 0 {
			return Failed
		}
	}
	if p.Status == "Running" && p.Ready == p.Total {
		return OK
	}
	return Warning
}
