package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// StuckResult is the output of `fix-stuck`.
type StuckResult struct {
	Release          string `json:"release"`
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

func (r *run) fixStuckCommand() *cobra.Command {
	var (
		format        string
		yes           bool
		markFailed    bool
		deletePending bool
	)
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
			if err := checkFormat(format); err != nil {
				return err
			}
			if markFailed && deletePending {
				return usageErrorf("choose one of --mark-failed and --delete-pending")
			}
			var fix kube.StuckFix
			switch {
			case markFailed:
				fix = kube.FixMarkFailed
			case deletePending:
				fix = kube.FixDeletePending
			}
			if fix != "" {
				if err := r.refuseReadOnly("fix-stuck --" + string(fix)); err != nil {
					return err
				}
			}
			ctx, name := cmd.Context(), args[0]
			c, ns, err := r.connectTo(ctx, name)
			if err != nil {
				return err
			}
			if fix != "" {
				if err := c.CheckAllowed(ctx, ns, kube.OpFixStuck); err != nil {
					return err
				}
			}
			plan, err := c.PlanFixStuck(ctx, ns, name)
			if err != nil {
				return err
			}
			latest, st := plan.Rows[len(plan.Rows)-1], plan.Stuck
			out := StuckResult{Release: name, StorageNamespace: latest.StorageNamespace, Revision: latest.Revision, Status: latest.Status, Fixes: fixes}
			if st != nil {
				out.Stuck = true
				out.Revision, out.Status = st.Row.Revision, st.Row.Status
				out.PendingSeconds = int64(st.For / time.Second)
				out.Since = r.now().Add(-st.For).Truncate(time.Second)
			}
			table := format == FormatTable
			if !out.Stuck {
				if fix != "" {
					return fmt.Errorf("release %q is not stuck: its latest revision %d is %s, not pending; nothing to fix", name, out.Revision, out.Status)
				}
				out.Fixes = []FixItem{}
				if !table {
					return printStructured(r.stdout, format, out)
				}
				fmt.Fprintf(r.stdout, "Release %s is not stuck: its latest revision %d is %s. Nothing to fix.\n", name, out.Revision, out.Status)
				return nil
			}
			if table {
				fmt.Fprintf(r.stdout, "Release %s is stuck: revision %d has been %s for %s (since %s).\n",
					name, out.Revision, out.Status, st.For, timestamp(out.Since))
				fmt.Fprintln(r.stdout, "Helm refuses to upgrade or roll it back until the pending revision is dealt with.")
				for _, f := range fixes {
					if fix != "" && f.Name != string(fix) {
						continue
					}
					fmt.Fprintf(r.stdout, "\n%s\n  %s\n  Warning: %s\n", f.Flag, f.Does, f.Warning)
				}
			}
			if fix == "" {
				if !table {
					return printStructured(r.stdout, format, out)
				}
				fmt.Fprintf(r.stdout, "\nRun `chunkview fix-stuck %s --mark-failed` or `--delete-pending` to apply one.\n", name)
				return nil
			}
			if table {
				fmt.Fprintln(r.stdout)
			}
			what := fmt.Sprintf("mark revision %d of %s failed", out.Revision, name)
			if fix == kube.FixDeletePending {
				what = fmt.Sprintf("delete pending revision %d of %s", out.Revision, name)
			}
			if err := r.confirm(yes, confirmation{what: what, want: "y"}); err != nil {
				return err
			}
			if err := c.ApplyFixStuck(ctx, plan, fix); err != nil {
				return err
			}
			out.Applied = string(fix)
			if !table {
				return printStructured(r.stdout, format, out)
			}
			if fix == kube.FixMarkFailed {
				fmt.Fprintf(r.stdout, "Marked revision %d of %s failed. The next upgrade or rollback can proceed.\n", out.Revision, name)
			} else {
				fmt.Fprintf(r.stdout, "Deleted pending revision %d of %s.\n", out.Revision, name)
			}
			return nil
		},
	}
	addOutputFlag(cmd, &format)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply the fix without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&markFailed, "mark-failed", false, "mark the pending revision failed")
	cmd.Flags().BoolVar(&deletePending, "delete-pending", false, "delete the pending revision's record")
	return cmd
}
