// Package live reads a release's objects as they are in the cluster, through the
// connection's kube.LiveClients: their health in kstatus's words with the
// release's hook Jobs, Pods, container logs and Warning events (Status,
// StatusOf), a watch that follows them (WatchStatus), and what drifted from the
// revision's manifest (Drift). The CLI's status, drift and rollback --wait and
// the TUI's status and drift screens call it.
//
// It reads records through kube (History, Versions, Details) and never writes:
// on a connection without live objects, such as the demo's, every read returns
// kube.ErrNoLive.
package live
