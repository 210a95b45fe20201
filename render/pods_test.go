package render_test

import (
	"slices"
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/render/rendertest"
)

// TestPodsOf: a workload's Pods as kubectl get pods -o wide shows them, each
// cell with its meaning: a running Pod is well, one whose container waits in
// CrashLoopBackOff failed (its restarts with when the last was, its last exit
// code and reason), one still starting needs attention, a Job's completed Pod
// is well; ages in kubectl's words (human.Age); the title counts the failing ones, and a remark is muted.
func TestPodsOf(t *testing.T) {
	now := rendertest.Now
	one, zero := int32(1), int32(0)
	w := live.WorkloadPods{Kind: "Deployment", Namespace: "shop", Name: "web", Remark: "it has more than 100 Pods", Pods: []live.PodState{
		{Name: "web-a", Phase: "Running", Status: "Running", Ready: 1, Total: 1, Node: "n1", Created: now.Add(-2 * time.Hour),
			Containers: []live.ContainerState{{Name: "web", State: "running", Ready: true}}},
		{Name: "web-b", Phase: "Running", Status: "CrashLoopBackOff", Ready: 0, Total: 2, Restarts: 12, LastRestart: now.Add(-3 * time.Minute), Node: "n2", Created: now.Add(-time.Hour),
			Containers: []live.ContainerState{
				{Name: "sidecar", State: "running", Ready: true},
				{Name: "web", State: "waiting", Reason: "CrashLoopBackOff", Restarts: 12, LastExitCode: &one, LastReason: "OOMKilled"},
			}},
		{Name: "web-c", Phase: "Pending", Status: "ContainerCreating", Ready: 0, Total: 1, Created: now.Add(-time.Minute),
			Containers: []live.ContainerState{{Name: "web", State: "waiting", Reason: "ContainerCreating"}}},
		{Name: "web-d", Phase: "Succeeded", Status: "Completed", Ready: 0, Total: 1, Node: "n1", Created: now.Add(-time.Hour),
			Containers: []live.ContainerState{{Name: "web", State: "terminated", Reason: "Completed", ExitCode: &zero}}},
	}}
	p := render.PodsOf(w, now)
	if got := p.Table.Head(); !slices.Equal(got, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE", "LAST EXIT"}) {
		t.Errorf("columns %v", got)
	}
	if p.Title != (render.Line{Text: "Deployment web: 4 Pods, 1 failing", Meaning: render.Failed}) {
		t.Errorf("title %+v", p.Title)
	}
	if p.Remark == nil || p.Remark.Meaning != render.Muted {
		t.Errorf("remark %+v", p.Remark)
	}
	want := [][]render.Cell{
		{{Text: "web-a", Meaning: render.Plain}, {Text: "1/1", Meaning: render.OK}, {Text: "Running", Meaning: render.OK}, {Text: "0", Meaning: render.Plain}, {Text: "120m", Meaning: render.Plain}, {Text: "n1", Meaning: render.Plain}, {Text: "-", Meaning: render.Muted}},
		{{Text: "web-b", Meaning: render.Plain}, {Text: "0/2", Meaning: render.Warning}, {Text: "CrashLoopBackOff", Meaning: render.Failed}, {Text: "12 (3m ago)", Meaning: render.Warning}, {Text: "60m", Meaning: render.Plain}, {Text: "n2", Meaning: render.Plain}, {Text: "web: 1 (OOMKilled)", Meaning: render.Failed}},
		{{Text: "web-c", Meaning: render.Plain}, {Text: "0/1", Meaning: render.Warning}, {Text: "ContainerCreating", Meaning: render.Warning}, {Text: "0", Meaning: render.Plain}, {Text: "60s", Meaning: render.Plain}, {Text: "-", Meaning: render.Plain}, {Text: "-", Meaning: render.Muted}},
		{{Text: "web-d", Meaning: render.Plain}, {Text: "0/1", Meaning: render.OK}, {Text: "Completed", Meaning: render.OK}, {Text: "0", Meaning: render.Plain}, {Text: "60m", Meaning: render.Plain}, {Text: "n1", Meaning: render.Plain}, {Text: "-", Meaning: render.Muted}},
	}
	for i, row := range want {
		if !slices.Equal(p.Table.Rows[i], row) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, p.Table.Rows[i], row)
		}
	}
	if p := render.PodsOf(live.WorkloadPods{Kind: "Job", Name: "migrate", Hook: true}, now); p.Title.Text != "hook Job migrate: 0 Pods" || p.Title.Meaning != render.Plain {
		t.Errorf("an empty hook Job's title %+v", p.Title)
	}
}
