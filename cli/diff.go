package cli

import (
	"context"
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
}

// Complete reads the release name and the two revisions from args.
func (o *diffOptions) Complete(args []string) error {
	o.name = args[0]
	var err error
	if o.from, err = revisionArg(args[1], "FROM"); err != nil {
		return err
	}
	if o.to, err = revisionArg(args[2], "TO"); err != nil {
		return err
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
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	res, err := c.Diff(ctx, ns, o.name, o.from, o.to, kube.DiffOptions{Reveal: o.reveal, Context: ctxLines})
	if err != nil {
		return err
	}
	if ds := c.Config().Drivers; len(ds) == 1 {
		res.Driver = ds[0]
	}
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, res)
	}
	_, err = io.WriteString(r.stdout, res.Unified())
	return err
}

func (r *run) diffCommand() *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff NAME FROM TO",
		Short: "Compare two revisions of a release: resources, values, chart, hooks, notes",
		Long: `Compare revision FROM with revision TO of a release: the rendered resources, the
user-supplied and computed values, the chart, the hooks and the notes. Secrets (Secret
data, and values under keys such as password or token) are masked unless --reveal: a
masked value shows as a token that changes when the value changes.

-o json and -o yaml print the comparison as data: release, from, to, revealed,
resources and hooks (key, kind, namespace, name, change, diff), and the values,
computedValues, chart and notes sections (name, diff).`,
		Example: `  chunkview diff my-release 3 4
  chunkview diff my-release 1 4 -U 0 -o json`,
		Args: exactArgs(3, "a release NAME and two revisions FROM and TO"),
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
	return cmd
}
