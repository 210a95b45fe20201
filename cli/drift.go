package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube/live"
)

// Exit codes of `drift`, which follow `kubectl diff`: 0 no drift, 1 drift
// found, anything above an error. Errors keep chunkview's codes (2 usage, 3 not
// found, 6 unreachable or forbidden); other failures, which are 1 elsewhere,
// are ExitDriftError.
const (
	// ExitDrift is drift's code when objects differ from the revision.
	ExitDrift = 1
	// ExitDriftError is drift's code for a failure that other commands report
	// with 1, since 1 means drift found.
	ExitDriftError = 8
	// ExitDriftIncomplete is drift's code when no readable object drifted but
	// some could not be read: "in sync" would be a claim about objects not seen.
	ExitDriftIncomplete = ExitUnreachable
)

// driftOptions are the flags and argument of `drift`, in kubectl's shape:
// Complete, Validate, Run.
type driftOptions struct {
	name     string
	revision int
	format   string
	reveal   bool
}

// Complete reads the release name.
func (o *driftOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the flags before anything is read.
func (o *driftOptions) Validate() error {
	if o.revision < 0 {
		return usageErrorf("--revision %d: want a revision number (1, 2, ...), or none for the latest deployed", o.revision)
	}
	return checkFormat(o.format)
}

// Run compares the revision with the cluster, prints what differs and returns
// the exit code as an error: nil when nothing drifted.
func (o *driftOptions) Run(ctx context.Context, r *run) error {
	err := o.run(ctx, r)
	if err != nil && exitCode(err) == ExitFailure {
		// 1 means drift found: an error must not read as one.
		var ce *codedError
		if !errors.As(err, &ce) {
			return &codedError{code: ExitDriftError, err: err}
		}
	}
	return err
}

func (o *driftOptions) run(ctx context.Context, r *run) error {
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	d, err := live.Drift(ctx, c, ns, o.name, o.revision, live.DriftOptions{Reveal: o.reveal})
	if err != nil {
		return err
	}
	if o.format != FormatTable {
		err = printStructured(r.stdout, o.format, d)
	} else {
		_, err = io.WriteString(r.stdout, d.Text())
	}
	switch {
	case err != nil:
		return err
	case d.Drifted():
		return silent(ExitDrift)
	case !d.Complete():
		return silent(ExitDriftIncomplete)
	}
	return nil
}

func (r *run) driftCommand() *cobra.Command {
	o := &driftOptions{}
	cmd := &cobra.Command{
		Use:   "drift NAME",
		Short: "Compare a revision's manifest with the objects live in the cluster",
		Long: `Compare the manifest of a revision of a release (by default the latest deployed one)
with the objects live in the cluster, and report every object changed, missing, or
extra (labelled and annotated as the release's by Helm, but not in the manifest), with
the fields that differ and, where the server's field managers say, who changed them.

Only what the manifest sets is compared: fields the API server defaulted, status, and
metadata the server or controllers own are not drift. Quantities ("1000m" is "1"),
numbers, a Secret's stringData against its data, and lists merged by key (containers,
env, ports, volumes, ...) are compared by meaning. Extra objects are looked for among
the kinds the manifest holds. Secret values are masked unless --reveal.

An object the user may not read is reported unreadable, with the
'kubectl auth can-i' line to check, and does not fail the rest.

Exit status, as kubectl diff: 0 no drift, 1 drift found, above 1 an error: 2 usage,
3 release or revision not found, 6 unreachable or forbidden, and also when nothing
readable drifted but some objects could not be read (the check is incomplete),
8 any other failure.

-o json and -o yaml print release, namespace, revision, revealed, objects (key,
apiVersion, kind, namespace, name, state, fields: path, manifest, live, changedBy;
reason; diff) and notes.`,
		Example: `  chunkview drift my-release -n shop
  chunkview drift my-release --revision 3 -o json`,
		Args: exactArgs(1, "a release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().IntVar(&o.revision, "revision", 0, "revision to compare (default: the latest deployed)")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets as they are instead of masking them")
	return cmd
}
