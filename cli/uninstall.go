package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
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
	// Deletes are the objects Helm deletes ("Kind/namespace/name"), Keeps those it
	// leaves (helm.sh/resource-policy: keep).
	Deletes []string `json:"deletes"`
	Keeps   []string `json:"keeps,omitempty"`
	// Applied is false for --dry-run.
	Applied bool `json:"applied"`
	// Helm is the Helm major that runs the uninstall (3 or 4), HelmReason why.
	Helm       int    `json:"helm"`
	HelmReason string `json:"helmReason"`
}

// uninstallOptions are the flags and argument of `uninstall`, in kubectl's shape;
// Run is the shared mutating step.
type uninstallOptions struct {
	ignoreController bool
	name             string
	format           string
	yes              bool
	keepHistory      bool
	dryRun           bool

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
	in := intent{release: o.name, op: kube.OpUninstall, yes: o.yes, ignoreController: o.ignoreController, hint: "--dry-run shows what it would delete"}
	if !o.dryRun {
		in.what = "uninstall"
	}
	return in
}

func (o *uninstallOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	u, err := rn.PlanUninstall(ctx, p, o.keepHistory)
	if err != nil {
		return nil, nil, err
	}
	latest, _ := p.Row(0)
	o.out = UninstallResult{Release: o.name, Driver: p.Driver, StorageNamespace: p.StorageNamespace, Namespace: p.StorageNamespace,
		Revisions: len(p.Rows), KeptHistory: o.keepHistory, Deletes: u.Deletes, Keeps: u.Keeps, Helm: u.Major, HelmReason: u.Reason}
	if o.out.Deletes == nil {
		o.out.Deletes = []string{}
	}
	if d, err := c.Details(ctx, latest); err == nil && d.Release != nil && d.Release.Namespace != "" {
		o.out.Namespace = d.Release.Namespace
	}
	table := o.format == FormatTable
	if table {
		fmt.Fprintf(r.stdout, "Release %s: revision %d (%s), resources in namespace %s, %s stored in namespace %s.\n",
			o.name, latest.Revision, latest.Status, o.out.Namespace, human.Plural(len(p.Rows), "revision", "revisions"), o.out.StorageNamespace)
		fmt.Fprintln(r.stdout, u.Describe())
		if len(u.Deletes) > 0 {
			fmt.Fprintln(r.stdout, "\nDeletes:")
			for _, d := range u.Deletes {
				fmt.Fprintf(r.stdout, "  %s\n", d)
			}
		}
		if len(u.Keeps) > 0 {
			fmt.Fprintln(r.stdout, "Keeps (helm.sh/resource-policy: keep):")
			for _, k := range u.Keeps {
				fmt.Fprintf(r.stdout, "  %s\n", k)
			}
		}
	}
	if o.dryRun {
		if table {
			fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
			return nil, nil, nil
		}
		return nil, nil, printStructured(r.stdout, o.format, o.out)
	}
	return u, &confirmation{what: fmt.Sprintf("uninstall release %q", o.name), want: o.name}, nil
}

func (o *uninstallOptions) applied(r *run, _ ops.Operation) error {
	o.out.Applied = true
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	if o.keepHistory {
		fmt.Fprintf(r.stdout, "Uninstalled %s; its history is kept.\n", o.name)
	} else {
		fmt.Fprintf(r.stdout, "Uninstalled %s.\n", o.name)
	}
	return nil
}

func (r *run) uninstallCommand() *cobra.Command {
	o := &uninstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall NAME",
		Short: "Uninstall a release with Helm's uninstall: its resources and its records",
		Long: `Uninstall a release with Helm's own uninstall action, through the store that holds
it: its resources are deleted (hooks run), and so are all its revision records,
unless --keep-history marks it uninstalled and keeps them. It first lists the
objects it deletes; --dry-run lists them only.

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
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "uninstall without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.keepHistory, "keep-history", false, "keep the revision records, marked uninstalled")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what the uninstall would delete; change nothing")
	return cmd
}
