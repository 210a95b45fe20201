package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// diffOptions are the flags and arguments of `diff`, in kubectl's shape:
// Complete, Validate, Run.
type diffOptions struct {
	name     string
	from, to int
	format   string
	reveal   bool
	unified  int
	// unifiedSet is whether -U was given: -U 0 shows no context, while the
	// default is revdiff's.
	unifiedSet bool
	// exitCode makes differences exit ExitDiffers, as git diff --exit-code.
	exitCode bool
}

// Exit codes of `diff --exit-code`, as git diff --exit-code and diff(1) use them:
// 0 the revisions are the same, 1 they differ. A failure keeps its code (2 usage,
// 3 not found, 6 unreachable or forbidden, ...), except the one other commands
// exit 1 with, which exits ExitDiffError so that 1 always means "they differ".
const (
	ExitDiffers   = 1
	ExitDiffError = 8
)

// Complete reads the release name and the revisions from args, as helm diff
// revision takes them: none compares the revision before the latest with the
// latest, one compares it with the latest (0, kube's latest).
func (o *diffOptions) Complete(args []string) error {
	o.name = args[0]
	o.from, o.to = kube.PreviousRevision, 0
	var err error
	if len(args) > 1 {
		if o.from, err = revisionArg(args[1], "FROM"); err != nil {
			return err
		}
	}
	if len(args) > 2 {
		if o.to, err = revisionArg(args[2], "TO"); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *diffOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.unifiedSet && o.unified < 0 {
		return usageErrorf("--unified %d: want 0 or more lines", o.unified)
	}
	return nil
}

// Run compares the revisions and prints the comparison.
func (o *diffOptions) Run(ctx context.Context, r *run) error {
	ctxLines := o.unified
	if o.unifiedSet && o.unified == 0 {
		ctxLines = -1 // revdiff: negative shows none
	}
	err := o.diff(ctx, r, ctxLines)
	var coded *codedError
	if o.exitCode && err != nil && !errors.As(err, &coded) && exitCode(err) == ExitFailure {
		return &codedError{code: ExitDiffError, err: err}
	}
	return err
}

// diff prints the comparison; with --exit-code, revisions that differ end it
// with ExitDiffers.
func (o *diffOptions) diff(ctx context.Context, r *run, ctxLines int) error {
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	return o.show(ctx, r, c, kube.NewInspector(c), ns, ctxLines)
}

// show compares the revisions of the release in namespace ns through in and
// prints the comparison, the store named from c's configuration.
func (o *diffOptions) show(ctx context.Context, r *run, c readClient, in differ, ns string, ctxLines int) error {
	res, err := in.Diff(ctx, ns, o.name, o.from, o.to, kube.DiffOptions{Reveal: o.reveal, Context: ctxLines})
	if err != nil {
		return err
	}
	if ds := c.Config().Drivers; len(ds) == 1 {
		res.Driver = ds[0]
	}
	if o.format != FormatTable {
		err = printStructured(r.stdout, o.format, res)
	} else {
		_, err = io.WriteString(r.stdout, res.Unified())
	}
	if err == nil && o.exitCode && res.Changed() {
		return silent(ExitDiffers)
	}
	return err
}

func (r *run) diffCommand() *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff NAME [FROM [TO]]",
		Short: "Compare two revisions of a release: resources, values, chart, hooks, notes",
		Long: `Compare revision FROM with revision TO of a release: the rendered resources, the
user-supplied and computed values, the chart, the hooks and the notes. As helm diff
revision: without TO, FROM is compared with the latest revision; with neither, the
revision before the latest is. Secrets (Secret
data, and values under keys such as password or token) are masked unless --reveal: a
masked value shows as a token that changes when the value changes.

-o json and -o yaml print the comparison as data: release, from, to, revealed,
resources and hooks (key, kind, namespace, name, change, diff), and the values,
computedValues, chart and notes sections (name, diff).

Exit status: 0 when the comparison was printed, whatever it found. With
--exit-code, as git diff --exit-code: 0 the revisions are the same, 1 they differ
(a secret that changed counts, though masked), and a failure keeps its code (2
usage, 3 no such release or revision, 6 unreachable or forbidden, 8 any other).`,
		Example: `  chunkview diff my-release          # the previous revision against the latest
  chunkview diff my-release 2        # revision 2 against the latest
  chunkview diff my-release 3 4
  chunkview diff my-release 1 4 -U 0 -o json
  chunkview diff my-release 3 4 --exit-code >/dev/null || echo changed`,
		Args: rangeArgs(1, 3, "a release NAME, and revisions FROM and TO (default: the previous revision and the latest)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.unifiedSet = cmd.Flags().Changed("unified")
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets as they are instead of masking them")
	// -U/--unified as in diff and git: --context is the kubeconfig context, as on
	// every other command.
	cmd.Flags().IntVarP(&o.unified, "unified", "U", 3, "unchanged lines shown around each change")
	cmd.Flags().BoolVar(&o.exitCode, "exit-code", false, "exit 1 when the revisions differ, 0 when they are the same (failures: 2 and up)")
	return cmd
}
