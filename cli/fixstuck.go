package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/render"
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
	// Stuck is true when the latest revision is pending-install, -upgrade,
	// -rollback or uninstalling, for longer than the threshold (--stuck-after,
	// 5 minutes by default); InProgress while it is for less: the operation is
	// probably still running.
	Stuck      bool `json:"stuck"`
	InProgress bool `json:"inProgress,omitempty"`
	// PendingSeconds is how long it has been pending, Since when it started.
	PendingSeconds int64     `json:"pendingSeconds,omitempty"`
	Since          time.Time `json:"since,omitzero"`
	// Fixes are the ways out, each with its warning.
	Fixes []FixItem `json:"fixes"`
	// Applied names the fix applied ("" when none).
	Applied string `json:"applied,omitempty"`
	// Helm is the Helm major that applies the fix, HelmReason why.
	Helm       int    `json:"helm,omitempty"`
	HelmReason string `json:"helmReason,omitempty"`
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
	{Name: string(ops.FixMarkFailed), Flag: "--mark-failed", Does: "Sets the pending revision's status to failed, so Helm lets the next upgrade proceed.", Warning: ops.FixMarkFailed.Warning()},
	{Name: string(ops.FixDeletePending), Flag: "--delete-pending", Does: "Deletes the pending revision's record, so the revision before it is the latest again.", Warning: ops.FixDeletePending.Warning()},
}

// fixStuckOptions are the flags and argument of `fix-stuck`, in kubectl's shape;
// Run is the shared mutating step, which without a fix only shows.
type fixStuckOptions struct {
	ignoreController bool
	name             string
	format           string
	yes              bool
	markFailed       bool
	deletePending    bool

	fix ops.StuckFix
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
		o.fix = ops.FixMarkFailed
	case o.deletePending:
		o.fix = ops.FixDeletePending
	}
	return nil
}

// Run shows how long the release has been stuck and the ways out, and applies the
// fix asked for once confirmed.
func (o *fixStuckOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *fixStuckOptions) intent() intent {
	in := intent{release: o.name, op: kube.OpFixStuck, yes: o.yes, ignoreController: o.ignoreController}
	if o.fix != "" {
		in.what = "fix-stuck --" + string(o.fix)
	}
	return in
}

func (o *fixStuckOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	fs, err := rn.PlanFixStuck(ctx, p, o.fix)
	if err != nil {
		return nil, nil, err
	}
	latest, st := p.Rows[len(p.Rows)-1], fs.Stuck
	out := StuckResult{Release: o.name, Driver: p.Driver, StorageNamespace: latest.StorageNamespace, Revision: latest.Revision, Status: latest.Status, Fixes: fixes}
	if st != nil {
		out.Stuck, out.InProgress = !st.InProgress, st.InProgress
		out.Helm, out.HelmReason = fs.Major, fs.Reason
		out.Revision, out.Status = st.Row.Revision, st.Row.Status
		out.PendingSeconds = int64(st.For / time.Second)
		out.Since = r.now().Add(-st.For).Truncate(time.Second)
	}
	o.out = out
	table := o.format == FormatTable
	if st == nil {
		if o.fix != "" {
			return nil, nil, fmt.Errorf("release %q is not stuck: its latest revision %d is %s, not pending or uninstalling; nothing to fix", o.name, out.Revision, out.Status)
		}
		out.Fixes = []FixItem{}
		if !table {
			return nil, nil, printStructured(r.stdout, o.format, out)
		}
		fmt.Fprintf(r.stdout, "Release %s is not stuck: its latest revision %d is %s. Nothing to fix.\n", o.name, out.Revision, out.Status)
		return nil, nil, nil
	}
	if table {
		if st.InProgress {
			fmt.Fprintf(r.stdout, "Release %s is in progress: revision %d has been %s for %s (since %s), less than %s: the operation that wrote it is probably still running. Fix it only if you know it was interrupted.\n",
				o.name, out.Revision, out.Status, st.For, human.Timestamp(out.Since), c.StuckAfter())
		} else {
			fmt.Fprintf(r.stdout, "Release %s is stuck: revision %d has been %s for %s (since %s).\n",
				o.name, out.Revision, out.Status, st.For, human.Timestamp(out.Since))
		}
		fmt.Fprintln(r.stdout, render.PendingMeans(out.Revision, out.Status))
		for _, f := range fixes {
			if o.fix != "" && f.Name != string(o.fix) {
				continue
			}
			fmt.Fprintf(r.stdout, "\n%s\n  %s\n  Warning: %s\n", f.Flag, f.Does, f.Warning)
		}
	}
	if o.fix == "" {
		if !table {
			return nil, nil, printStructured(r.stdout, o.format, out)
		}
		fmt.Fprintf(r.stdout, "\nRun `%s` or `%s` to apply one.\n", c.Config().SuggestFor(latest, "fix-stuck", "--mark-failed"), c.Config().SuggestFor(latest, "fix-stuck", "--delete-pending"))
		return nil, nil, nil
	}
	if table {
		fmt.Fprintln(r.stdout)
	}
	what := fmt.Sprintf("mark revision %d of %s failed", out.Revision, o.name)
	if o.fix == ops.FixDeletePending {
		what = fmt.Sprintf("delete %s revision %d of %s", out.Status, out.Revision, o.name)
	}
	return fs, &confirmation{what: what, want: "y"}, nil
}

func (o *fixStuckOptions) applied(r *run, _ ops.Operation) error {
	o.out.Applied = string(o.fix)
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	if o.fix == ops.FixMarkFailed {
		fmt.Fprintf(r.stdout, "Marked revision %d of %s failed. Helm can upgrade it again.\n", o.out.Revision, o.name)
	} else {
		fmt.Fprintf(r.stdout, "Deleted %s revision %d of %s.\n", o.out.Status, o.out.Revision, o.name)
	}
	return nil
}

func (r *run) fixStuckCommand() *cobra.Command {
	o := &fixStuckOptions{}
	cmd := &cobra.Command{
		Use:   "fix-stuck NAME [--mark-failed | --delete-pending]",
		Short: "Unblock a release stuck pending (install, upgrade, rollback) or uninstalling",
		Long: `A release whose latest revision stays pending-install, pending-upgrade,
pending-rollback (an operation that was interrupted) blocks every Helm 3 and 4
upgrade with "another operation (install/upgrade/rollback) is in progress";
their rollback runs, but leaves that revision pending under the new one. One
left uninstalling by a failed uninstall is neither installed nor gone. A revision in that state for less
than 5 minutes (--stuck-after) is an operation in progress, and is shown so.

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
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "apply the fix without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.markFailed, "mark-failed", false, "mark the pending revision failed")
	cmd.Flags().BoolVar(&o.deletePending, "delete-pending", false, "delete the pending revision's record")
	return cmd
}
