package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// PruneResult is the output of `prune`.
type PruneResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
	StorageNamespace string `json:"storageNamespace"`
	Keep             int    `json:"keep"`
	// Kept are the revisions that stay; Removed those whose records go, oldest
	// first, with their sizes.
	Kept    []int        `json:"kept"`
	Removed []ops.Pruned `json:"removed"`
	// FreedBytes is what the removed records hold (FreedExact), or a lower
	// figure with FreedAtMost its bound.
	FreedBytes  int64 `json:"freedBytes"`
	FreedExact  bool  `json:"freedExact"`
	FreedAtMost int64 `json:"freedAtMost,omitempty"`
	// Applied is false for --dry-run; Deleted counts the records deleted.
	Applied bool `json:"applied"`
	Deleted int  `json:"deleted"`
	// Helm is the Helm major whose drivers delete the records, HelmReason why.
	Helm       int    `json:"helm"`
	HelmReason string `json:"helmReason"`
}

// pruneOptions are the flags and argument of `prune`, in kubectl's shape; Run is
// the shared mutating step.
type pruneOptions struct {
	ignoreController bool
	name             string
	keep             int
	format           string
	dryRun           bool
	yes              bool

	out PruneResult
}

// Complete takes the release name from args.
func (o *pruneOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the output format and --keep.
func (o *pruneOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.keep < 1 {
		return usageErrorf("prune needs --keep N, the number of newest revisions to keep (1 or more; the latest deployed one is kept too)")
	}
	return nil
}

// Run shows what the pruning removes and applies it once confirmed.
func (o *pruneOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *pruneOptions) intent() intent {
	in := intent{release: o.name, op: kube.OpPrune, yes: o.yes, ignoreController: o.ignoreController, hint: "--dry-run shows what it would delete"}
	if !o.dryRun {
		in.what = "prune"
	}
	return in
}

func (o *pruneOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	pr, err := rn.PlanPrune(ctx, p, o.keep)
	if err != nil {
		return nil, nil, err
	}
	o.out = PruneResult{Release: o.name, Driver: p.Driver, StorageNamespace: p.StorageNamespace, Keep: o.keep, Kept: pr.Kept, Removed: pr.Removed,
		FreedBytes: pr.FreedBytes, FreedExact: pr.FreedExact, FreedAtMost: pr.FreedAtMost, Helm: pr.Major, HelmReason: pr.Reason}
	if o.out.Removed == nil {
		o.out.Removed = []ops.Pruned{}
	}
	table := o.format == FormatTable
	if table {
		fmt.Fprintln(r.stdout, pr.Describe())
		if len(pr.Removed) > 0 {
			fmt.Fprintln(r.stdout)
			tw := newTable(r.stdout)
			row(tw, "REVISION", "STATUS", "SIZE", "RECORD")
			for _, it := range pr.Removed {
				sz := human.StoredBytes(it.StoredBytes)
				if it.StoredBytes <= 0 && it.AtMost > 0 {
					sz = "≤" + human.Bytes(it.AtMost)
				}
				status := it.Status
				if it.Unreadable {
					status += " (unreadable: deleted as it is)"
				}
				row(tw, it.Revision, status, sz, objectName(p.Driver, it.Key))
			}
			tw.Flush()
		}
	}
	if o.dryRun || len(pr.Removed) == 0 {
		if !table {
			return nil, nil, printStructured(r.stdout, o.format, o.out)
		}
		if o.dryRun {
			fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
		}
		return nil, nil, nil
	}
	return pr, &confirmation{what: fmt.Sprintf("delete %s of release %q", human.Plural(len(pr.Removed), "revision record", "revision records"), o.name), want: o.name}, nil
}

func (o *pruneOptions) applied(r *run, op ops.Operation) error {
	pr := op.(*ops.Prune)
	o.out.Applied, o.out.Deleted = true, pr.Done
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	fmt.Fprintf(r.stdout, "\nPruned %s: deleted %s; %s left.\n", o.name, human.Plural(pr.Done, "revision record", "revision records"), human.Plural(len(pr.Kept), "revision", "revisions"))
	return nil
}

func (r *run) pruneCommand() *cobra.Command {
	o := &pruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune NAME --keep N",
		Short: "Delete old revision records: keep the N newest, and the deployed one",
		Long: `Delete the records of a release's old revisions, in any store, keeping the N newest
and the latest deployed one wherever it is; the latest revision is never removed.
Helm only limits history going forward (--history-max); this prunes what is there.

Each removed revision goes with all its Secrets (chunks included), oldest first,
so that an interruption leaves a shorter history, never a gap among the newest.
It first lists what goes and the bytes that frees (--dry-run lists it only), and
asks you to type the release's name; otherwise it needs --yes. The release's
resources are left as they are. If the release changed after it was shown,
nothing more is changed and the exit code is 7.`,
		Example: `  chunkview prune my-release --keep 5 --dry-run
  chunkview prune my-release --keep 3 --yes`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().IntVar(&o.keep, "keep", 0, "how many of the newest revisions to keep, 1 or more (the latest deployed one is kept too); required")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "list what would be deleted; change nothing")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "prune without asking (needed when stdin is not a terminal)")
	return cmd
}
