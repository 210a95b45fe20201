// Package cli is chunkview's non-interactive front end: the cobra command tree with
// one subcommand per release operation (ls, history, get, inspect, status, logs, diff, drift, fit,
// verify, gc, rollback, uninstall, delete-revision, prune, fix-stuck, fix-apis), plus version
// and completion.
// It calls kube and prints tables, JSON or YAML; it never exits the process. main
// builds an App, calls Run and exits with the code Run returns. Read-only commands
// have kubectl's shape: an options struct with Complete, Validate and Run.
//
// # Exit codes
//
//	0  success
//	1  any other failure (the API server refused a write, a bug)
//	2  usage error: unknown command or flag, wrong arguments, bad flag value
//	3  not found: no such release or revision (an empty ls is not an error)
//	4  verify found problems in the stored records, or inspect a revision
//	   that cannot be read
//	5  refused: --read-only, a destructive command not confirmed, or no terminal
//	   to confirm on and no --yes; an active controller; server-side apply
//	   conflicts without --force-conflicts
//	6  the cluster could not be used: no kubeconfig, no such --context, unreachable, timed out,
//	   credentials rejected, or access forbidden
//	7  the release changed after the plan was shown, or while the operation ran
//	   (kube.ErrChanged: another operator, helm or chunkview wrote it); the
//	   message says whether anything was changed. Look at the release again
//	   before deciding to retry
//	130 cancelled with Ctrl-C at a confirmation prompt; nothing was changed
//
// drift exits as kubectl diff does: 0 no drift, 1 drift found, above 1 an error
// (2, 3 and 6 as above; 6 also when nothing readable drifted but some objects
// could not be read; 8 for any failure other commands report with 1). fit
// exits the same way: 0 the chart fits every store checked, 1 it does not fit
// some, 8 any other failure; so does diff --exit-code: 0 the same, 1 they
// differ. status exits 0 when every object of the release is Current, 1 when
// any is not, 3 when there is no such release or revision, and 6 when the
// status could not be read (see ExitNotCurrent). logs exits 0 when it printed
// the logs (or found no failing container, which it says), 1 when some log
// could not be read, 2, 3 and 6 as above.
//
// # Output
//
// Every subcommand but logs takes -o table|json|yaml; ls and history also take -o wide and
// -o name (the index Secrets, as kubectl names them), status -o wide (the Pods
// behind each workload). Tables are for people. JSON and YAML
// come from the same structs (Releases, History, Inspection, VerifyResult, GCResult,
// RollbackResult, UninstallResult, DeleteRevisionResult, PruneResult, StuckResult, FixAPIsResult,
// for status live.ReleaseStatus, for diff revdiff.Result, for drift revdiff.Drift); their field names are part of chunkview's interface and change
// only by addition. Prompts, warnings and errors go to stderr, so stdout stays
// parseable.
//
// # Confirmation
//
// Commands that change the cluster ask first on a terminal: rollback, gc, fix-stuck
// and fix-apis want "y", uninstall, delete-revision and prune want the release's name
// typed out. When stdin is not a terminal they refuse (exit 5) unless --yes is given.
package cli
