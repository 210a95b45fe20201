package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// UninstallResult is the output of `uninstall`.
type UninstallResult struct {
	Release          string `json:"release"`
	StorageNamespace string `json:"storageNamespace"`
	// Namespace is where the release's resources lived.
	Namespace string `json:"namespace"`
	// Revisions is how many revision records the release had.
	Revisions int `json:"revisions"`
	// KeptHistory is true with --keep-history: the records stay, marked uninstalled.
	KeptHistory bool `json:"keptHistory"`
	// Info is what Helm's uninstall reported (often empty).
	Info string `json:"info,omitempty"`
}

func (r *run) uninstallCommand() *cobra.Command {
	var (
		format      string
		yes         bool
		keepHistory bool
	)
	cmd := &cobra.Command{
		Use:   "uninstall NAME",
		Short: "Uninstall a release with Helm's uninstall: its resources and its records",
		Long: `Uninstall a release with Helm's own uninstall action, through the chunked driver:
its resources are deleted (hooks run), and so are all its revision records, unless
--keep-history marks it uninstalled and keeps them.

On a terminal it asks you to type the release's name; otherwise it needs --yes.
If the release changed after it was shown (a revision added, deleted or rewritten
by another writer), nothing is changed and the exit code is 7.`,
		Example: `  chunkview uninstall my-release -n team-a
  chunkview uninstall my-release --keep-history --yes`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if err := r.refuseReadOnly("uninstall"); err != nil {
				return err
			}
			ctx, name := cmd.Context(), args[0]
			c, ns, err := r.connectTo(ctx, name)
			if err != nil {
				return err
			}
			if err := c.CheckAllowed(ctx, ns, kube.OpUninstall); err != nil {
				return err
			}
			plan, err := c.PlanUninstall(ctx, ns, name, keepHistory)
			if err != nil {
				return err
			}
			rows := plan.Rows
			latest := rows[len(rows)-1]
			d, err := c.Details(ctx, latest)
			if err != nil {
				return err
			}
			out := UninstallResult{Release: name, StorageNamespace: latest.StorageNamespace, Namespace: latest.StorageNamespace, Revisions: len(rows), KeptHistory: keepHistory}
			if d.Release != nil && d.Release.Namespace != "" {
				out.Namespace = d.Release.Namespace
			}
			table := format == FormatTable
			if table {
				fmt.Fprintf(r.stdout, "Release %s: revision %d (%s), resources in namespace %s, %s stored in namespace %s.\n",
					name, latest.Revision, latest.Status, out.Namespace, plural(len(rows), "revision", "revisions"), out.StorageNamespace)
				if keepHistory {
					fmt.Fprintln(r.stdout, "Uninstalling deletes its resources and marks it uninstalled; the revision records are kept.")
				} else {
					fmt.Fprintln(r.stdout, "Uninstalling deletes its resources and all its revision records. This cannot be undone.")
				}
			}
			if err := r.confirm(yes, confirmation{what: fmt.Sprintf("uninstall release %q", name), want: name}); err != nil {
				return err
			}
			res, err := c.ApplyUninstall(ctx, plan)
			if err != nil {
				return err
			}
			if res != nil {
				out.Info = res.Info
			}
			if !table {
				return printStructured(r.stdout, format, out)
			}
			if keepHistory {
				fmt.Fprintf(r.stdout, "Uninstalled %s; its history is kept.\n", name)
			} else {
				fmt.Fprintf(r.stdout, "Uninstalled %s.\n", name)
			}
			if out.Info != "" {
				fmt.Fprintln(r.stdout, out.Info)
			}
			return nil
		},
	}
	addOutputFlag(cmd, &format)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "uninstall without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&keepHistory, "keep-history", false, "keep the revision records, marked uninstalled")
	return cmd
}
