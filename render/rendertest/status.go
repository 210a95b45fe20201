// Package rendertest holds what the tests of package render and of its two
// printers (the CLI's and the TUI's) render alike, so that each printer is held
// to the same facts.
package rendertest

import (
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
)

// Now is the moment the fixtures' times lead up to.
var Now = time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)

// LastExitCode is how the previous run of Status's restarted container ended.
const LastExitCode = 137

// Status is a release whose objects are not all Current, with a failed hook Job
// whose container restarted (its last run ended with LastExitCode), an object
// in another namespace, a hook never run, a note and a Warning event.
func Status() *live.ReleaseStatus {
	one, last := int32(1), int32(LastExitCode)
	return &live.ReleaseStatus{
		Release: "web", Namespace: "default", Revision: 4, ReleaseStatus: "deployed", Store: kube.DriverChunked, StorageNamespace: "default",
		LastDeployed: Now.Add(-24 * time.Hour), Description: "Upgrade complete",
		Resources: []live.ResourceStatus{
			{Kind: "Deployment", Namespace: "default", Name: "web", Status: live.StatusInProgress, Message: "Available: 1/2"},
			{Kind: "Service", Namespace: "default", Name: "web", Status: live.StatusNotFound, Message: "not in the cluster"},
			{Kind: "ConfigMap", Namespace: "shared", Name: "web-flags", Status: live.StatusCurrent, Message: "Resource is always ready"},
		},
		Hooks: []live.HookStatus{
			{Kind: "Job", Name: "web-migrate", Namespace: "default", Events: []string{"pre-upgrade"}, Phase: "Failed",
				Started: Now.Add(-10 * time.Minute), Completed: Now.Add(-10*time.Minute + 12*time.Second),
				Job: &live.HookJob{
					Status: live.StatusFailed, Message: "BackoffLimitExceeded", Remarks: []string{"an earlier Pod was deleted"},
					Pods: []live.PodState{{Name: "web-migrate-x7k2p", Phase: "Failed", Containers: []live.ContainerState{
						{Name: "migrate", State: "terminated", Reason: "Error", ExitCode: &one, Restarts: 2, LastExitCode: &last, LastReason: "OOMKilled"},
					}}},
					Log: &live.ContainerLog{Pod: "web-migrate-x7k2p", Container: "migrate", Previous: true, Lines: []string{"applying 0042", "exit status 1"}},
				}},
			{Kind: "Pod", Name: "web-test", Namespace: "default", Events: []string{"test"}},
		},
		Events: []live.WarningEvent{
			{Namespace: "default", Object: "Pod/web-7d9f8c-abcde", Reason: "BackOff", Message: "Back-off restarting failed container", Count: 14, LastSeen: Now.Add(-time.Minute)},
		},
		Remarks: []string{"watching deployments was refused"},
	}
}

// StatusFacts are the texts of s that both front ends show, each whole: the
// objects' cells, the hooks with their runs, their Jobs' details down to the
// log, the events and the notes. A printer that leaves one out has drifted.
func StatusFacts(s render.Status) []string {
	var out []string
	cells := func(t render.Table) {
		for _, r := range t.Rows {
			for _, c := range r {
				if c.Text != "" {
					out = append(out, c.Text)
				}
			}
		}
	}
	out = append(out, s.Helm.Text, s.Objects.Text)
	if s.Latest != nil {
		out = append(out, s.Latest.Text)
	}
	for _, n := range s.Remarks {
		out = append(out, n.Text)
	}
	cells(s.Resources)
	for _, h := range s.Hooks {
		out = append(out, h.Kind, h.Name, h.Events, h.Run.Text)
		if h.Job != nil {
			out = append(out, h.Job.Text)
		}
		for _, d := range h.Details {
			out = append(out, d.Text)
		}
		out = append(out, h.Log...)
	}
	cells(s.Events)
	return out
}
