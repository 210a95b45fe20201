// Package ops plans and applies chunkview's operations on a release: rollback,
// uninstall, the deletion of one revision record, prune (the deletion of the
// oldest ones), and the fixes of a stuck release. The CLI and the TUI run them
// the same way:
//
//  1. read the release's revisions (kube.Client.History) and show them;
//  2. make a Plan of exactly those rows (NewPlan), then the operation's own plan
//     from it (Runner.PlanRollback, PlanUninstall, ...), which decodes what it
//     needs through the connection's details cache and says what will happen,
//     and through which Helm;
//  3. after the person confirms, Runner.Apply runs it.
//
// Apply refuses under --read-only and when the release moved on since the plan
// (one metadata list of its revisions; on Helm's own stores, a rollback's or an
// uninstall's first listing of the records by Helm, held to the plan, is that
// check), and runs the operation on a driver held to the plan's records (their
// resourceVersions): a change that lands while Helm runs stops the operation at
// its next read or write of the records, and from then on Helm's kube client
// refuses to change any resource.
//
// Before a plan, CheckAllowed (and Can, for a screen that greys out what the
// user may not do) asks the API server whether the user may write the release's
// records; a rollback or an uninstall, before it writes, also reviews the release's own
// resources (Runner.Review: one SelfSubjectRulesReview per namespace, which the
// runner keeps for the apply, and an access review of what its rules do not
// grant). An operation refuses while a controller that would undo it is active
// (kube/owner reads it). One runner plans and applies an operation, and reads
// discovery once for it (its controller checks, the removed-APIs check, Helm's
// kube clients).
//
// The Helm kube clients that apply and delete the release's resources come from
// the connection (Appliers): built from its flags as helm's CLIs build them, or
// the demo's, which apply nothing. A release Helm 4 applied server-side is
// applied under the field manager that owns its objects, and a plan lists the
// fields another manager owns (ServerSide). Every record an operation writes
// keeps what other writers put on the record it continues (carry.go).
//
// # Helm 3 and Helm 4
//
// An operation runs through Helm's own actions and drivers, of the store that
// holds the release, and of one Helm major: Helm 4 when any record the operation
// rewrites, or copies into a new revision, was written by Helm 4 (it carries
// fields such as apply_method that Helm 3's types would drop); Helm 3 otherwise,
// so that a release only Helm 3 wrote comes out exactly as Helm 3 writes it. The
// two majors meet the operations in one seam, the helm interface: helm3.go and
// helm4.go are its only implementations.
package ops
