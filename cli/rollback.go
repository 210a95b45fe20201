package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// RollbackResult is the output of `rollback`.
type RollbackResult struct {
	Release          string `json:"release"`
	StorageNamespace string `json:"storageNamespace"`
	// From is the latest revision before the rollback; To the one it restores.
	From int `json:"from"`
	To   int `json:"to"`
	// Applied is false for --dry-run; NewRevision is the revision the rollback
	// created, once applied.
	Applied     bool `json:"applied"`
	NewRevision int  `json:"newRevision,omitempty"`
	// Diff is what the rollback changes: revision From compared with revision To.
	Diff *revdiff.Result `json:"diff"`
}

func (r *run) rollbackCommand() *cobra.Command {
	var (
		format  string
		dryRun  bool
		yes     bool
		reveal  bool
		unified int
	)
	cmd := &cobra.Command{
		Use:   "rollback NAME [REVISION]",
		Short: "Roll a release back to an earlier revision with Helm's rollback",
		Long: `Roll a release back to REVISION (default: the one before the latest) with Helm's own
rollback action, through the chunked driver: the resources of REVISION are applied
again and recorded as a new revision.

It first shows what would change (the latest revision compared with REVISION,
secrets masked unless --reveal) and asks for confirmation. --dry-run shows the plan
only. What was shown is what runs: if the release changed after it was shown (a
revision added, deleted or rewritten by another writer), nothing is changed and
the exit code is 7.`,
		Example: `  chunkview rollback my-release --dry-run
  chunkview rollback my-release 3 --yes`,
		Args: rangeArgs(1, 2, "a release NAME and optionally a REVISION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			rev := 0
			if len(args) == 2 {
				var err error
				if rev, err = revisionArg(args[1], "REVISION"); err != nil {
					return err
				}
			}
			if unified < 0 {
				return usageErrorf("--unified %d: want 0 or more lines", unified)
			}
			opts := kube.DiffOptions{Reveal: reveal, Context: unified}
			if unified == 0 {
				opts.Context = -1
			}
			if !dryRun {
				if err := r.refuseReadOnly("rollback"); err != nil {
					return fmt.Errorf("%w; --dry-run shows what it would change", err)
				}
			}
			ctx, name := cmd.Context(), args[0]
			c, ns, err := r.connectTo(ctx, name)
			if err != nil {
				return err
			}
			if !dryRun {
				if err := c.CheckAllowed(ctx, ns, kube.OpRollback); err != nil {
					return fmt.Errorf("%w; --dry-run shows what it would change", err)
				}
			}
			plan, err := c.PlanRollback(ctx, ns, name, rev, opts)
			if err != nil {
				return err
			}
			out := RollbackResult{Release: name, StorageNamespace: plan.StorageNamespace, From: plan.From, To: plan.To, Diff: plan.Diff}
			table := format == FormatTable
			if table {
				fmt.Fprintf(r.stdout, "Rollback of %s: from revision %d (latest) to the content of revision %d, recorded as a new revision.\n\n", name, plan.From, plan.To)
				if _, err := io.WriteString(r.stdout, plan.Diff.Unified()); err != nil {
					return err
				}
			}
			r.warnRollback(plan, rev == 0)
			if dryRun {
				if table {
					fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
					return nil
				}
				return printStructured(r.stdout, format, out)
			}
			if err := r.confirm(yes, confirmation{what: fmt.Sprintf("roll %s back to revision %d", name, plan.To), want: "y"}); err != nil {
				return err
			}
			// What was shown and confirmed is what runs: the plan is refused if the
			// release moved on meanwhile.
			done, err := c.ApplyRollback(ctx, plan)
			if err != nil {
				return err
			}
			out.Applied, out.NewRevision = done.Applied, done.NewRevision
			if done.Diff != nil {
				out.Diff = done.Diff
			}
			if !table {
				return printStructured(r.stdout, format, out)
			}
			fmt.Fprintf(r.stdout, "\nRolled %s back to revision %d: now at revision %d.\n", name, plan.To, done.NewRevision)
			return nil
		},
	}
	addOutputFlag(cmd, &format)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what the rollback would change; change nothing")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "roll back without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&reveal, "reveal", false, "show secrets in the diff as they are instead of masking them")
	cmd.Flags().IntVarP(&unified, "unified", "U", 3, "unchanged lines shown around each change")
	return cmd
}
