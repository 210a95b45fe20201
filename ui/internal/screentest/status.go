package screentest

import (
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
)

// fakeStatus is what the resources view of web could be given: a Deployment
// rolling out, a deleted Service, a failed hook Job with its Pod and log, and
// warnings. The demo's cluster holds no live objects, so the screen gets it as
// a message, as the read would answer.
// FakeStatus is the status of revision 4 of web in ns as kube would read it:
// objects in every state, a failed hook Job with its log, Warning events.
func FakeStatus(ns string) *live.ReleaseStatus {
	code := int32(1)
	return &live.ReleaseStatus{
		Release: "web", Namespace: ns, Revision: 4, ReleaseStatus: "deployed", Store: kube.DriverChunked, StorageNamespace: ns,
		LastDeployed: Now.Add(-24 * time.Hour),
		Resources: []live.ResourceStatus{
			{Kind: "ConfigMap", Namespace: ns, Name: "web-assets", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "ConfigMap", Namespace: ns, Name: "web-flags", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "Deployment", Namespace: ns, Name: "web", Status: live.StatusInProgress, Message: "Available: 1/2"},
			{Kind: "Secret", Namespace: ns, Name: "web-db", Status: live.StatusCurrent, Message: "Resource is always ready"},
			{Kind: "Service", Namespace: ns, Name: "web", Status: live.StatusNotFound, Message: "not in the cluster: deleted, or never created"},
		},
		Hooks: []live.HookStatus{{
			Kind: "Job", Name: "web-migrate", Namespace: ns, Events: []string{"pre-upgrade", "pre-install"}, Phase: "Failed",
			Started: Now.Add(-10 * time.Minute), Completed: Now.Add(-10*time.Minute + 12*time.Second),
			Job: &live.HookJob{
				Status: live.StatusFailed, Message: "Job Failed. failed: 1/1",
				Pods: []live.PodState{{Name: "web-migrate-x7k2p", Phase: "Failed", Containers: []live.ContainerState{{
					Name: "migrate", State: "terminated", Reason: "Error", ExitCode: &code,
					Message: "migration 0042 failed: password " + revdiff.MaskPrefix + "1a2b3c4d> rejected",
				}}}},
				Log: &live.ContainerLog{Pod: "web-migrate-x7k2p", Container: "migrate", Masked: true, Lines: []string{
					"applying 0041_orders.sql", "applying 0042_refunds.sql",
					"connecting to db.default.svc as web with password " + revdiff.MaskPrefix + "1a2b3c4d>",
					"ERROR: password authentication failed for user \"web\"", "exit status 1",
				}},
			},
		}},
		Events: []live.WarningEvent{
			{Namespace: ns, Object: "Pod/web-7d9f8c-abcde", For: "Deployment/web", Reason: "BackOff", Message: "Back-off restarting failed container web in pod web-7d9f8c-abcde", Count: 14, LastSeen: Now.Add(-time.Minute)},
			{Namespace: ns, Object: "Pod/web-migrate-x7k2p", For: "Job/web-migrate", Reason: "Failed", Message: "Error: container migrate exited 1", Count: 1, LastSeen: Now.Add(-10 * time.Minute)},
		},
	}
}
