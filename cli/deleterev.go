package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// DeleteRevisionResult is the output of `delete-revision`.
type DeleteRevisionResult struct {
	Release          string `json:"release"`
	StorageNamespace string `json:"storageNamespace"`
	Revision         int    `json:"revision"`
	// Key is the deleted index Secret's name.
	Key string `json:"key"`
	// Forced is true with --force: the record was deleted without being decoded.
	Forced bool `json:"forced"`
	// WasLatest is true when the deleted revision was the release's latest.
	WasLatest bool `json:"wasLatest"`
	// Remaining is how many revisions the release still has.
	Remaining int `json:"remaining"`
}

func (r *run) deleteRevisionCommand() *cobra.Command {
	var (
		format string
		yes    bool
		force  bool
	)
	cmd := &cobra.Command{
		Use:   "delete-revision NAME REVISION",
		Short: "Delete one revision record (its index and chunk Secrets)",
		Long: `Delete the record of one revision: its index Secret and its chunk Secrets. The
release's resources are left as they are. Deleting the latest revision makes the
one before it the latest; deleting the only one makes Helm forget the release.

The revision is decoded first, so that only a readable release record is deleted;
--force deletes a record that cannot be read (see verify). On a terminal it asks
you to type the release's name; otherwise it needs --yes. If the release changed
after it was shown, nothing is changed and the exit code is 7.`,
		Example: `  chunkview delete-revision my-release 4
  chunkview delete-revision my-release 4 --force --yes`,
		Args: exactArgs(2, "a release NAME and a REVISION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			rev, err := revisionArg(args[1], "REVISION")
			if err != nil {
				return err
			}
			if err := r.refuseReadOnly("delete-revision"); err != nil {
				return err
			}
			ctx, name := cmd.Context(), args[0]
			c, ns, err := r.connectTo(ctx, name)
			if err != nil {
				return err
			}
			if err := c.CheckAllowed(ctx, ns, kube.OpDeleteRevision); err != nil {
				return err
			}
			plan, err := c.PlanDeleteRevision(ctx, ns, name, rev, force)
			if err != nil {
				return err
			}
			rows := plan.Rows
			row, err := plan.Row(rev)
			if err != nil {
				return err
			}
			out := DeleteRevisionResult{
				Release: name, StorageNamespace: row.StorageNamespace, Revision: rev, Key: row.Key, Forced: force,
				WasLatest: rows[len(rows)-1].Revision == rev, Remaining: len(rows) - 1,
			}
			table := format == FormatTable
			if table {
				fmt.Fprintf(r.stdout, "Revision %d of %s (%s) is stored in namespace %s under key %s.\n", rev, name, row.Status, row.StorageNamespace, row.Key)
				switch {
				case len(rows) == 1:
					fmt.Fprintln(r.stdout, "It is the only revision: deleting it makes Helm forget the release, whose resources stay in the cluster unmanaged.")
				case out.WasLatest:
					fmt.Fprintf(r.stdout, "It is the latest revision: revision %d becomes the latest record, while the resources stay as revision %d left them.\n", rows[len(rows)-2].Revision, rev)
				}
			}
			if err := r.confirm(yes, confirmation{what: fmt.Sprintf("delete revision %d of release %q", rev, name), want: name}); err != nil {
				return err
			}
			if err := c.ApplyDeleteRevision(ctx, plan); err != nil {
				return err
			}
			if !table {
				return printStructured(r.stdout, format, out)
			}
			fmt.Fprintf(r.stdout, "Deleted revision %d of %s; %s left.\n", rev, name, plural(out.Remaining, "revision", "revisions"))
			return nil
		},
	}
	addOutputFlag(cmd, &format)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&force, "force", false, "delete the record even if it cannot be decoded")
	return cmd
}
