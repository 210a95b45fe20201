package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// RollbackResult is the output of `rollback`.
type RollbackResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
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

// rollbackOptions are the flags and arguments of `rollback`, in kubectl's shape;
// Run is the shared mutating step.
type rollbackOptions struct {
	name, revArg string
	rev          int
	format       string
	dryRun       bool
	yes          bool
	reveal       bool
	unified      int

	diff kube.DiffOptions
	p    *kube.RollbackPlan
	out  RollbackResult
}

// Complete takes the release name and the revision, if any, from args.
func (o *rollbackOptions) Complete(args []string) error {
	o.name = args[0]
	if len(args) == 2 {
		o.revArg = args[1]
	}
	return nil
}

// Validate checks the output format, the revision and --unified.
func (o *rollbackOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.revArg != "" {
		rev, err := revisionArg(o.revArg, "REVISION")
		if err != nil {
			return err
		}
		o.rev = rev
	}
	if o.unified < 0 {
		return usageErrorf("--unified %d: want 0 or more lines", o.unified)
	}
	o.diff = kube.DiffOptions{Reveal: o.reveal, Context: o.unified}
	if o.unified == 0 {
		o.diff.Context = -1
	}
	return nil
}

// Run plans the rollback, shows it and, unless --dry-run, applies it once confirmed.
func (o *rollbackOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *rollbackOptions) intent() intent {
	in := intent{release: o.name, op: kube.OpRollback, hint: "--dry-run shows what it would change", yes: o.yes}
	if !o.dryRun {
		in.what = "rollback"
	}
	return in
}

func (o *rollbackOptions) plan(ctx context.Context, r *run, c *kube.Client, ns string) (*confirmation, error) {
	p, err := c.PlanRollback(ctx, ns, o.name, o.rev, o.diff)
	if err != nil {
		return nil, err
	}
	o.p = p
	o.out = RollbackResult{Release: o.name, Driver: p.Plan.Driver, StorageNamespace: p.StorageNamespace, From: p.From, To: p.To, Diff: p.Diff}
	table := o.format == FormatTable
	if table {
		fmt.Fprintf(r.stdout, "Rollback of %s: from revision %d (latest) to the content of revision %d, recorded as a new revision.\n\n", o.name, p.From, p.To)
		if _, err := io.WriteString(r.stdout, p.Diff.Unified()); err != nil {
			return nil, err
		}
	}
	r.warnRollback(p, o.rev == 0)
	if o.dryRun {
		if table {
			fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
			return nil, nil
		}
		return nil, printStructured(r.stdout, o.format, o.out)
	}
	return &confirmation{what: fmt.Sprintf("roll %s back to revision %d", o.name, p.To), want: "y"}, nil
}

func (o *rollbackOptions) apply(ctx context.Context, r *run, c *kube.Client) error {
	done, err := c.ApplyRollback(ctx, o.p)
	if err != nil {
		return err
	}
	o.out.Applied, o.out.NewRevision = done.Applied, done.NewRevision
	if done.Diff != nil {
		o.out.Diff = done.Diff
	}
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	fmt.Fprintf(r.stdout, "\nRolled %s back to revision %d: now at revision %d.\n", o.name, o.p.To, done.NewRevision)
	return nil
}

func (r *run) rollbackCommand() *cobra.Command {
	o := &rollbackOptions{}
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
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what the rollback would change; change nothing")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "roll back without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets in the diff as they are instead of masking them")
	cmd.Flags().IntVarP(&o.unified, "unified", "U", 3, "unchanged lines shown around each change")
	return cmd
}
