package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// defaultFailingTail is how many lines of each log `logs NAME` shows when it
// picks the failing containers itself and --tail is not given.
const defaultFailingTail = 100

// logsOptions are the flags and arguments of `logs`, in kubectl's shape.
type logsOptions struct {
	name       string
	kind, obj  string
	container  string
	revision   int
	previous   bool
	follow     bool
	tail       int64
	tailGiven  bool
	prefix     bool
	reveal     bool
	objectName bool
}

// Complete reads the release name and the object, KIND/NAME.
func (o *logsOptions) Complete(args []string) error {
	o.name = args[0]
	if len(args) == 2 {
		kind, obj, ok := strings.Cut(args[1], "/")
		if !ok || kind == "" || obj == "" {
			return usageErrorf("%q: name the object as KIND/NAME (deployment/web, pod/web-7d9f8c-abcde, job/web-migrate)", args[1])
		}
		o.kind, o.obj, o.objectName = kind, obj, true
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *logsOptions) Validate() error {
	switch {
	case o.revision < 0:
		return usageErrorf("--revision %d: want a revision number (1, 2, ...), or none for the latest deployed", o.revision)
	case o.tail < -1:
		return usageErrorf("--tail %d: want a number of lines, or -1 for all", o.tail)
	case o.container != "" && !o.objectName:
		return usageErrorf("-c %s: name the object too (chunkview logs %s KIND/NAME -c %s)", o.container, o.name, o.container)
	}
	return nil
}

// Run reads the release's Pods, picks the containers and streams their logs.
func (o *logsOptions) Run(ctx context.Context, r *run) error {
	c, rows, err := r.connectReleaseRows(ctx, o.name)
	if err != nil {
		return err
	}
	return o.stream(ctx, r, c, rows)
}

// stream reads the Pods of the release (its revisions rows) through c, picks
// the containers and streams their logs.
func (o *logsOptions) stream(ctx context.Context, r *run, c live.Source, rows []kube.RevisionRow) error {
	pods, err := live.PodsOf(ctx, c, rows, o.revision, o.reveal)
	if err != nil {
		return err
	}
	targets, err := o.targets(r, pods)
	if err != nil || len(targets) == 0 {
		return err
	}
	opts := live.LogOptions{Previous: o.previous, Follow: o.follow, Tail: o.tail, Prefix: o.prefix || len(targets) > 1}
	if !o.objectName && !o.tailGiven {
		opts.Tail = defaultFailingTail
	}
	err = live.Stream(ctx, c.Clientset(), targets, opts, pods.Scrub, r.stdout)
	return o.failures(r, err)
}

// targets are the containers whose logs are shown: those of the object named,
// else the release's failing containers, said on stderr.
func (o *logsOptions) targets(r *run, pods *live.ReleasePods) ([]live.LogTarget, error) {
	if o.objectName {
		t, err := pods.Select(o.kind, o.obj, o.container)
		if errors.Is(err, live.ErrUnknownKind) {
			return nil, usageErrorf("%s", err.Error())
		}
		return t, err
	}
	targets, more := pods.Failing()
	if len(targets) == 0 {
		fmt.Fprintf(r.stderr, "No container of release %q (revision %d) is failing: none waits in a back-off or an error, ended with a non-zero exit code, or restarted. Name one: %s\n",
			pods.Release, pods.Revision, r.suggest("logs", pods.Release, "KIND/NAME"))
		return nil, nil
	}
	tail := fmt.Sprintf("the last %d lines of each (--tail N, -1 for all)", defaultFailingTail)
	if o.tailGiven {
		tail = fmt.Sprintf("--tail %d", o.tail)
	}
	which := "the current run's log"
	if o.previous {
		which = "the previous run's log"
	}
	fmt.Fprintf(r.stderr, "The %s of release %q (revision %d), %s, %s:\n",
		human.Plural(len(targets), "failing container", "failing containers"), pods.Release, pods.Revision, which, tail)
	restarted := false
	for _, t := range targets {
		fmt.Fprintf(r.stderr, "  %s: %s\n", t.Name(), t.Why)
		restarted = restarted || t.Restarts > 0
	}
	if more > 0 {
		fmt.Fprintf(r.stderr, "  ... and %d more; name an object to see theirs.\n", more)
	}
	if restarted && !o.previous {
		fmt.Fprintln(r.stderr, "--previous shows the run before the last restart.")
	}
	if !pods.Revealed {
		fmt.Fprintln(r.stderr, "The release's secrets are masked; --reveal shows them.")
	}
	return targets, nil
}

// failures says on stderr which logs could not be read, and returns the exit
// code: 1 when some could not, 6 when the cluster could not be reached.
func (o *logsOptions) failures(r *run, err error) error {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var le *live.LogError
		if !errors.As(e, &le) {
			// The cluster failed, not one log: its code and message.
			return e
		}
		fmt.Fprintf(r.stderr, "Error: %s\n", le.Error())
	}
	return silent(ExitFailure)
}

func (r *run) logsCommand() *cobra.Command {
	o := &logsOptions{}
	cmd := &cobra.Command{
		Use:   "logs NAME [KIND/OBJECT]",
		Short: "Print the logs of a release's failing containers, or of one of its workloads or Pods",
		Long: `Print the logs of the containers of a release, as kubectl logs does.

With no object named, it picks the release's failing containers: each container
of the Pods behind its workloads (the Deployments, StatefulSets, DaemonSets and
Jobs of the manifest of its latest deployed revision, or --revision N) and behind
its hook Jobs (of that revision and of the latest, a failed upgrade's) that waits
in a back-off or an error (CrashLoopBackOff, ImagePullBackOff, ...), ended with a
non-zero exit code, or restarted; at most 10. It says on stderr which it picked
and why, then prints the current run's log of each, the last 100 lines unless
--tail; --previous prints the run before the last restart instead.

KIND/OBJECT names one of the release's workloads (deployment/NAME, statefulset/,
daemonset/, job/, or kubectl's short names) or one of their Pods (pod/NAME): every
container of its Pods, or -c CONTAINER; all their lines unless --tail.

When more than one container is printed, each line starts with [pod/POD/CONTAINER],
as kubectl logs --prefix. -f follows the logs until Ctrl-C, all at once.

Logs are masked of the secrets the release holds (its values under sensitive keys,
its Secrets' data), as status masks them, unless --reveal; a secret the release does
not hold, or one shorter than 8 characters, is not known to be one.

Exit status: 0 the logs were printed (or no container is failing, which it says),
1 some log could not be read (the node gone, the Pod never scheduled, no previous
run, no kubelet to serve it; each said on stderr), 2 usage, 3 no such release,
revision or object, 6 the cluster could not be used.`,
		Example: `  chunkview logs my-release                        # the failing containers' logs
  chunkview logs my-release --previous             # of the run before their restart
  chunkview logs my-release deployment/web -f      # follow every Pod of a workload
  chunkview logs my-release pod/web-7d9f8c-abcde -c nginx --tail 20`,
		Args: rangeArgs(1, 2, "a release NAME and optionally KIND/OBJECT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.tailGiven = cmd.Flags().Changed("tail")
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.container, "container", "c", "", "the container of each Pod whose log to print (default: every container)")
	f.BoolVarP(&o.previous, "previous", "p", false, "print the log of the run before the last restart")
	f.BoolVarP(&o.follow, "follow", "f", false, "follow the logs until Ctrl-C")
	f.Int64Var(&o.tail, "tail", -1, "lines of the end of each log to print, -1 for all (default: all, or 100 when no object is named)")
	f.BoolVar(&o.prefix, "prefix", false, "start each line with [pod/POD/CONTAINER], even for one container")
	f.IntVar(&o.revision, "revision", 0, "revision whose workloads to look at (default: the latest deployed)")
	f.BoolVar(&o.reveal, "reveal", false, "print the logs as they are instead of masking the release's secrets")
	return cmd
}
