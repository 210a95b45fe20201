package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

func (r *run) diffCommand() *cobra.Command {
	var (
		format  string
		reveal  bool
		unified int
	)
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
			if err := checkFormat(format); err != nil {
				return err
			}
			from, err := revisionArg(args[1], "FROM")
			if err != nil {
				return err
			}
			to, err := revisionArg(args[2], "TO")
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("unified") && unified < 0 {
				return usageErrorf("--unified %d: want 0 or more lines", unified)
			}
			ctxLines := unified
			if cmd.Flags().Changed("unified") && unified == 0 {
				ctxLines = -1 // revdiff: negative shows none
			}
			ctx, name := cmd.Context(), args[0]
			c, ns, err := r.connectTo(ctx, name)
			if err != nil {
				return err
			}
			res, err := c.Diff(ctx, ns, name, from, to, kube.DiffOptions{Reveal: reveal, Context: ctxLines})
			if err != nil {
				return err
			}
			if format != FormatTable {
				return printStructured(r.stdout, format, res)
			}
			_, err = io.WriteString(r.stdout, res.Unified())
			return err
		},
	}
	addOutputFlag(cmd, &format)
	cmd.Flags().BoolVar(&reveal, "reveal", false, "show secrets as they are instead of masking them")
	// -U/--unified as in diff and git: --context is the kubeconfig context, as on
	// every other command.
	cmd.Flags().IntVarP(&unified, "unified", "U", 3, "unchanged lines shown around each change")
	return cmd
}
