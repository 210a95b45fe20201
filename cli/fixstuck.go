package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// StuckResult is the output of `fix-stuck`.
type StuckResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
	StorageNamespace string `json:"storageNamespace"`
	// Revision and Status are those of the latest revision.
	Revision int    `json:"revision"`
	Status   string `json:"status"`
	// Stuck is true when the latest revision is pending-install, -upgrade or
	// -rollback.
	Stuck bool `json:"stuck"`
	// PendingSeconds is how long it has been pending, Since when it started.
	PendingSeconds int64     `json:"pendingSeconds,omitempty"`
	Since          time.Time `json:"since,omitzero"`
	// Fixes are the ways out, each with its warning.
	Fixes []FixItem `json:"fixes"`
	// Applied names the fix applied ("" when none).
	Applied string `json:"applied,omitempty"`
}

// FixItem is one way out of a stuck release.
type FixItem struct {
	// Name is mark-failed or delete-pending; Flag the option that applies it.
	Name    string `json:"name"`
	Flag    string `json:"flag"`
	Does    string `json:"does"`
	Warning string `json:"warning"`
}

var fixes = []FixItem{
	{Name: string(kube.FixMarkFailed), Flag: "--mark-failed", Does: "Sets the pending revision's status to failed, so Helm lets the next upgrade or rollback proceed.", Warning: kube.FixMarkFailed.Warning()},
	{Name: string(kube.FixDeletePending), Flag: "--delete-pending", Does: "Deletes the pending revision's record, so the revision before it is the latest again.", Warning: kube.FixDeletePending.Warning()},
}

// fixStuckOptions are the flags and argument of `fix-stuck`, in kubectl's shape;
// Run is the shared mutating step, which without a fix only shows.
type fixStuckOptions struct {
	name          string
	format        string
	yes           bool
	markFailed    bool
	deletePending bool

	fix kube.StuckFix
	p   *kube.StuckPlan
	out StuckResult
}

// Complete takes the release name from args.
func (o *fixStuckOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the output format and that at most one fix is asked for.
func (o *fixStuckOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.markFailed && o.deletePending {
		return usageErrorf("choose one of --mark-failed and --delete-pending")
	}
	switch {
	case o.markFailed:
		o.fix = kube.FixMarkFailed
	case o.deletePending:
		o.fix = kube.FixDeletePending
	}
	return nil
}

// Run shows how long the release has been stuck and the ways out, and applies the
// fix asked for once confirmed.
func (o *fixStuckOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *fixStuckOptions) intent() intent {
	in := intent{release: o.name, op: kube.OpFixStuck, yes: o.yes}
	if o.fix != "" {
		in.what = "fix-stuck --" + string(o.fix)
	}
	return in
}

func (o *fixStuckOptions) plan(ctx context.Context, r *run, c *kube.Client, ns string) (*confirmation, error) {
	p, err := c.PlanFixStuck(ctx, ns, o.name)
	if err != nil {
		return nil, err
	}
	o.p = p
	latest, st := p.Rows[len(p.Rows)-1], p.Stuck
	out := StuckResult{Release: o.name, Driver: p.Plan.Driver, StorageNamespace: latest.StorageNamespace, Revision: latest.Revision, Status: latest.Status, Fixes: fixes}
	if st != nil {
		out.Stuck = true
		out.Revision, out.Status = st.Row.Revision, st.Row.Status
		out.PendingSeconds = int64(st.For / time.Second)
		out.Since = r.now().Add(-st.For).Truncate(time.Second)
	}
	o.out = out
	table := o.format == FormatTable
	if !out.Stuck {
		if o.fix != "" {
			return nil, fmt.Errorf("release %q is not stuck: its latest revision %d is %s, not pending; nothing to fix", o.name, out.Revision, out.Status)
		}
		out.Fixes = []FixItem{}
		if !table {
			return nil, printStructured(r.stdout, o.format, out)
		}
		fmt.Fprintf(r.stdout, "Release %s is not stuck: its latest revision %d is %s. Nothing to fix.\n", o.name, out.Revision, out.Status)
		return nil, nil
	}
	if table {
		fmt.Fprintf(r.stdout, "Release %s is stuck: revision %d has been %s for %s (since %s).\n",
			o.name, out.Revision, out.Status, st.For, timestamp(out.Since))
		fmt.Fprintln(r.stdout, "Helm refuses to upgrade or roll it back until the pending revision is dealt with.")
		for _, f := range fixes {
			if o.fix != "" && f.Name != string(o.fix) {
				continue
			}
			fmt.Fprintf(r.stdout, "\n%s\n  %s\n  Warning: %s\n", f.Flag, f.Does, f.Warning)
		}
	}
	if o.fix == "" {
		if !table {
			return nil, printStructured(r.stdout, o.format, out)
		}
		fmt.Fprintf(r.stdout, "\nRun `chunkview fix-stuck %s --mark-failed` or `--delete-pending` to apply one.\n", o.name)
		return nil, nil
	}
	if table {
		fmt.Fprintln(r.stdout)
	}
	what := fmt.Sprintf("mark revision %d of %s failed", out.Revision, o.name)
	if o.fix == kube.FixDeletePending {
		what = fmt.Sprintf("delete pending revision %d of %s", out.Revision, o.name)
	}
	return &confirmation{what: what, want: "y"}, nil
}

func (o *fixStuckOptions) apply(ctx context.Context, r *run, c *kube.Client) error {
	if err := c.ApplyFixStuck(ctx, o.p, o.fix); err != nil {
		return err
	}
	o.out.Applied = string(o.fix)
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	if o.fix == kube.FixMarkFailed {
		fmt.Fprintf(r.stdout, "Marked revision %d of %s failed. The next upgrade or rollback can proceed.\n", o.out.Revision, o.name)
	} else {
		fmt.Fprintf(r.stdout, "Deleted pending revision %d of %s.\n", o.out.Revision, o.name)
	}
	return nil
}

func (r *run) fixStuckCommand() *cobra.Command {
	o := &fixStuckOptions{}
	cmd := &cobra.Command{
		Use:   "fix-stuck NAME [--mark-failed | --delete-pending]",
		Short: "Unblock a release stuck in pending-install, pending-upgrade or pending-rollback",
		Long: `A release whose latest revision stays pending-install, pending-upgrade or
pending-rollback (an operation that was interrupted) blocks every further Helm
operation with "another operation is in progress".

Without a flag, fix-stuck shows how long the release has been pending and the two
ways out, each with its warning. --mark-failed marks the pending revision failed;
--delete-pending deletes its record. Either asks for confirmation first, and is
refused (exit code 7, nothing changed) if the release changed after it was shown:
the pending operation may have finished meanwhile.`,
		Example: `  chunkview fix-stuck my-release
  chunkview fix-stuck my-release --mark-failed`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "apply the fix without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.markFailed, "mark-failed", false, "mark the pending revision failed")
	cmd.Flags().BoolVar(&o.deletePending, "delete-pending", false, "delete the pending revision's record")
	return cmd
}
