package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
)

// UninstallResult is the output of `uninstall`.
type UninstallResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
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

// uninstallOptions are the flags and argument of `uninstall`, in kubectl's shape;
// Run is the shared mutating step.
type uninstallOptions struct {
	name        string
	format      string
	yes         bool
	keepHistory bool

	p   *kube.UninstallPlan
	out UninstallResult
}

// Complete takes the release name from args.
func (o *uninstallOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the output format.
func (o *uninstallOptions) Validate() error { return checkFormat(o.format) }

// Run shows what the uninstall removes and applies it once confirmed.
func (o *uninstallOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *uninstallOptions) intent() intent {
	return intent{release: o.name, what: "uninstall", op: kube.OpUninstall, yes: o.yes}
}

func (o *uninstallOptions) plan(ctx context.Context, r *run, c *kube.Client, ns string) (*confirmation, error) {
	p, err := c.PlanUninstall(ctx, ns, o.name, o.keepHistory)
	if err != nil {
		return nil, err
	}
	o.p = p
	rows := p.Rows
	latest := rows[len(rows)-1]
	d, err := c.Details(ctx, latest)
	if err != nil {
		return nil, err
	}
	o.out = UninstallResult{Release: o.name, Driver: p.Plan.Driver, StorageNamespace: latest.StorageNamespace, Namespace: latest.StorageNamespace, Revisions: len(rows), KeptHistory: o.keepHistory}
	if d.Release != nil && d.Release.Namespace != "" {
		o.out.Namespace = d.Release.Namespace
	}
	if o.format == FormatTable {
		fmt.Fprintf(r.stdout, "Release %s: revision %d (%s), resources in namespace %s, %s stored in namespace %s.\n",
			o.name, latest.Revision, latest.Status, o.out.Namespace, plural(len(rows), "revision", "revisions"), o.out.StorageNamespace)
		if o.keepHistory {
			fmt.Fprintln(r.stdout, "Uninstalling deletes its resources and marks it uninstalled; the revision records are kept.")
		} else {
			fmt.Fprintln(r.stdout, "Uninstalling deletes its resources and all its revision records. This cannot be undone.")
		}
	}
	return &confirmation{what: fmt.Sprintf("uninstall release %q", o.name), want: o.name}, nil
}

func (o *uninstallOptions) apply(ctx context.Context, r *run, c *kube.Client) error {
	res, err := c.ApplyUninstall(ctx, o.p)
	if err != nil {
		return err
	}
	if res != nil {
		o.out.Info = res.Info
	}
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	if o.keepHistory {
		fmt.Fprintf(r.stdout, "Uninstalled %s; its history is kept.\n", o.name)
	} else {
		fmt.Fprintf(r.stdout, "Uninstalled %s.\n", o.name)
	}
	if o.out.Info != "" {
		fmt.Fprintln(r.stdout, o.out.Info)
	}
	return nil
}

func (r *run) uninstallCommand() *cobra.Command {
	o := &uninstallOptions{}
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
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "uninstall without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.keepHistory, "keep-history", false, "keep the revision records, marked uninstalled")
	return cmd
}
