package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// DeleteRevisionResult is the output of `delete-revision`.
type DeleteRevisionResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
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
	// LeavesNoneDeployed is true when no deployed revision remains: `helm ls`
	// then no longer lists the release.
	LeavesNoneDeployed bool `json:"leavesNoneDeployed,omitempty"`
	// Helm is the Helm major whose driver deletes the record, HelmReason why.
	Helm       int    `json:"helm"`
	HelmReason string `json:"helmReason"`
}

// deleteRevisionOptions are the flags and arguments of `delete-revision`, in
// kubectl's shape; Run is the shared mutating step.
type deleteRevisionOptions struct {
	ignoreController bool
	name, revArg     string
	rev              int
	format           string
	yes              bool
	force            bool

	out DeleteRevisionResult
}

// Complete takes the release name and the revision from args.
func (o *deleteRevisionOptions) Complete(args []string) error {
	o.name, o.revArg = args[0], args[1]
	return nil
}

// Validate checks the output format and the revision.
func (o *deleteRevisionOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	rev, err := revisionArg(o.revArg, "REVISION")
	if err != nil {
		return err
	}
	o.rev = rev
	return nil
}

// Run shows the revision to delete and deletes it once confirmed.
func (o *deleteRevisionOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *deleteRevisionOptions) intent() intent {
	return intent{release: o.name, what: "delete-revision", op: kube.OpDeleteRevision, yes: o.yes, ignoreController: o.ignoreController}
}

func (o *deleteRevisionOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	d, err := rn.PlanDeleteRevision(ctx, p, o.rev, o.force)
	if err != nil {
		return nil, nil, err
	}
	rows := p.Rows
	row, err := p.Row(o.rev)
	if err != nil {
		return nil, nil, err
	}
	o.out = DeleteRevisionResult{
		Release: o.name, Driver: p.Driver, StorageNamespace: row.StorageNamespace, Revision: o.rev, Key: row.Key, Forced: o.force,
		WasLatest: rows[len(rows)-1].Revision == o.rev, Remaining: len(rows) - 1, LeavesNoneDeployed: d.LeavesNoneDeployed,
		Helm: d.Major, HelmReason: d.Reason,
	}
	if o.format == FormatTable {
		fmt.Fprintf(r.stdout, "Revision %d of %s (%s) is stored in namespace %s under key %s.\n", o.rev, o.name, row.Status, row.StorageNamespace, row.Key)
		switch {
		case len(rows) == 1:
			fmt.Fprintln(r.stdout, "It is the only revision: deleting it makes Helm forget the release, whose resources stay in the cluster unmanaged.")
		case o.out.WasLatest:
			fmt.Fprintf(r.stdout, "It is the latest revision: revision %d becomes the latest record, while the resources stay as revision %d left them.\n", rows[len(rows)-2].Revision, o.rev)
		}
		if d.LeavesNoneDeployed && len(rows) > 1 {
			fmt.Fprintln(r.stdout, "It is the only deployed revision: afterwards no revision is deployed, so `helm ls` no longer lists the release (`helm ls -a` does) until a rollback deploys one again.")
		}
	}
	return d, &confirmation{what: fmt.Sprintf("delete revision %d of release %q", o.rev, o.name), want: o.name}, nil
}

func (o *deleteRevisionOptions) applied(r *run, _ ops.Operation) error {
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	fmt.Fprintf(r.stdout, "Deleted revision %d of %s; %s left.\n", o.rev, o.name, human.Plural(o.out.Remaining, "revision", "revisions"))
	return nil
}

func (r *run) deleteRevisionCommand() *cobra.Command {
	o := &deleteRevisionOptions{}
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
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "delete without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.force, "force", false, "delete the record even if it cannot be decoded")
	return cmd
}
