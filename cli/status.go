package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// Exit codes of `status`: 0 when every object is Current, ExitNotCurrent when
// any is not, ExitNotFound when there is no such release or revision, and
// ExitStatusUnreadable for anything that kept the status from being read.
const (
	// ExitNotCurrent is status's code when some object is not Current
	// (InProgress, Failed, Terminating, NotFound, or Unknown because it could
	// not be read or judged).
	ExitNotCurrent = 1
	// ExitStatusUnreadable is status's code when the status could not be read:
	// the cluster unreachable, the records forbidden, the revision's record
	// unreadable, or any other failure, which other
	// commands report with 1, since 1 means not Current.
	ExitStatusUnreadable = ExitUnreachable
)

// statusOptions are the flags and argument of `status`, in kubectl's shape.
type statusOptions struct {
	name     string
	revision int
	format   string
	reveal   bool
}

// Complete reads the release name.
func (o *statusOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the flags before anything is read.
func (o *statusOptions) Validate() error {
	if o.revision < 0 {
		return usageErrorf("--revision %d: want a revision number (1, 2, ...), or none for the latest deployed", o.revision)
	}
	if o.format == FormatWide {
		return nil
	}
	if err := checkFormat(o.format); err != nil {
		return usageErrorf("unknown output format -o %q: use table, wide, json or yaml", o.format)
	}
	return nil
}

// Run reads the status, prints it and returns the exit code as an error: nil
// when every object is Current.
func (o *statusOptions) Run(ctx context.Context, r *run) error {
	err := o.run(ctx, r)
	var ce *codedError
	if err != nil && !errors.As(err, &ce) {
		if code := exitCode(err); code != ExitNotFound && code != ExitUsage && code != ExitCancelled {
			// 1 means not Current: a failure must not read as one.
			return &codedError{code: ExitStatusUnreadable, err: err}
		}
	}
	return err
}

func (o *statusOptions) run(ctx context.Context, r *run) error {
	c, rows, err := r.connectReleaseRows(ctx, o.name)
	if err != nil {
		return err
	}
	return o.show(ctx, r, c, kube.NewChecker(c), rows)
}

// show reads how the objects of the release (its revisions rows) run through
// c, checks the APIs of the revision shown with chk, and prints them.
func (o *statusOptions) show(ctx context.Context, r *run, c live.Source, chk apiChecker, rows []kube.RevisionRow) error {
	wide := o.format == FormatWide
	st, err := live.StatusOf(ctx, c, rows, o.revision, live.StatusOptions{Reveal: o.reveal, Pods: wide})
	if err != nil {
		return err
	}
	found := checkStatusAPIs(ctx, c, chk, rows, st)
	if isTable(o.format) {
		err = printStatus(r.stdout, st, r.now(), statusWidth, wide)
	} else {
		err = printStructured(r.stdout, o.format, statusJSON{st, found})
	}
	switch {
	case err != nil:
		return err
	case !st.Ready():
		return silent(ExitNotCurrent)
	}
	return nil
}

func (r *run) statusCommand() *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status NAME",
		Short: "Show whether a release's objects run: their health, its Pods, hooks, warning events, NOTES",
		Long: `Show how the objects of a release run, under helm status's header (NAME, LAST
DEPLOYED, NAMESPACE, STATUS, REVISION, DESCRIPTION, then the STORE) and over the
chart's NOTES: every object in the manifest of its latest
deployed revision (or --revision N; with no deployed revision, the latest), with its
health in kstatus's words (Current, InProgress, Failed, Terminating, NotFound,
Unknown) and the reason, computed by sigs.k8s.io/cli-utils' kstatus, as Helm 4
computes it when it waits. Then the last run of each of its hooks, as Helm recorded
it; for a hook Job whose last run failed or is still running, its Pods' state and
the last 20 lines of the failed container's log. Then the recent Warning events of
the objects, of the Pods and ReplicaSets their controllers create (by the names they
give them) and of the hook Jobs' Pods.

-o wide adds the Pods behind each workload (Deployment, StatefulSet, DaemonSet,
Job), selected by its spec.selector (a Job without one, by its job-name label):
NAME, READY, STATUS, RESTARTS, AGE, NODE and LAST EXIT (how the failing
container's run ended), as kubectl get pods shows them; one list of at most 100
Pods per workload. 'chunkview logs NAME' shows the failing containers' logs.

Logs, termination messages and event messages are masked of the secrets the release
holds (its values under sensitive keys, its Secrets' data) unless --reveal; a secret
the release does not hold, or one shorter than 8 characters, is not known to be one.

An object whose API version the cluster no longer serves is Unknown, and a note
says that Helm can no longer upgrade the release, with each object's served
successor and the fix-apis command (removedAPIs in -o json, deprecated APIs too).

It reads the revisions' metadata, the record, discovery (the server's version and
two aggregated documents), one GET per object, and one list of Warning events per
namespace; for a failed hook Job, the Job, its Pods and one log.

Exit status: 0 every object Current, 1 some object is not (Unknown included), 2
usage, 3 release or revision not found, 6 the status could not be read (cluster
unreachable, forbidden, the revision's record unreadable, any other failure).

-o json and -o yaml print release, namespace, revision, releaseStatus, store,
resources (kind, namespace, name, status, message), hooks (kind, name, events,
phase, started, completed; job: status, message, pods, log, remarks), events
(namespace, object, for, reason, message, count, lastSeen; [] when none), notes
(the chart's NOTES, as helm status -o json has them), remarks (chunkview's: what
could not be looked at) and removedAPIs.`,
		Example: `  chunkview status my-release -n shop
  chunkview status my-release -o wide           # and the Pods of each workload
  chunkview status my-release --revision 3 -o json`,
		Args: exactArgs(1, "a release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	cmd.Flags().StringVarP(&o.format, "output", "o", FormatTable, "output format: table, wide (the Pods of each workload too), json or yaml")
	cmd.Flags().IntVar(&o.revision, "revision", 0, "revision whose objects to show (default: the latest deployed)")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show logs and messages as they are instead of masking the release's secrets")
	return cmd
}
