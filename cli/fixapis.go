package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
)

// FixAPIsResult is the output of `fix-apis`.
type FixAPIsResult struct {
	Release string `json:"release"`
	// Driver is the store that holds the release: chunked, secret or configmap.
	Driver           string `json:"driver"`
	StorageNamespace string `json:"storageNamespace"`
	// From is the revision copied; Revision the one the fix writes.
	From     int `json:"from"`
	Revision int `json:"revision"`
	// Supersede is set when From is deployed and is marked superseded.
	Supersede bool `json:"supersede"`
	// Changes are the objects moved onto a served version, Dropped those
	// removed (--drop-unserved), Unknown those left as they are because
	// discovery could not read their group.
	Changes []apis.Change `json:"changes"`
	Dropped []apis.Object `json:"dropped,omitempty"`
	Unknown []apis.Object `json:"unknown,omitempty"`
	// Description is the new revision's, as helm history shows it.
	Description string `json:"description,omitempty"`
	// Diff is the new revision against From, secrets masked unless --reveal.
	Diff *revdiff.Result `json:"diff,omitempty"`
	// Helm is the Helm major that writes the records, HelmReason why.
	Helm       int    `json:"helm,omitempty"`
	HelmReason string `json:"helmReason,omitempty"`
	// Applied is false for --dry-run and when there is nothing to fix.
	Applied bool `json:"applied"`
}

// fixAPIsOptions are the flags and argument of `fix-apis`, in kubectl's shape;
// Run is the shared mutating step.
type fixAPIsOptions struct {
	ignoreController bool
	name             string
	format           string
	dryRun, yes      bool
	dropUnserved     bool
	reveal           bool
	unified          int

	diff kube.DiffOptions
	out  FixAPIsResult
}

// Complete takes the release name from args.
func (o *fixAPIsOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the output format and --unified.
func (o *fixAPIsOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
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

// Run plans the fix, shows it and, unless --dry-run, writes it once confirmed.
func (o *fixAPIsOptions) Run(ctx context.Context, r *run) error { return r.mutate(ctx, o) }

func (o *fixAPIsOptions) intent() intent {
	in := intent{release: o.name, op: kube.OpFixAPIs, hint: "--dry-run shows what it would write", yes: o.yes, ignoreController: o.ignoreController}
	if !o.dryRun {
		in.what = "fix-apis"
	}
	return in
}

func (o *fixAPIsOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	served, err := kube.NewChecker(rn.Client()).ServedAPIs(ctx)
	if err != nil {
		return nil, nil, err
	}
	fix, err := rn.PlanFixAPIs(ctx, p, served, o.dropUnserved, o.diff)
	if errors.Is(err, apis.ErrNoSuccessor) {
		return nil, nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err != nil {
		return nil, nil, err
	}
	o.out = FixAPIsResult{Release: o.name, Driver: p.Driver, StorageNamespace: p.StorageNamespace, From: fix.From, Revision: fix.Revision,
		Supersede: fix.Supersede, Changes: fix.Changes, Dropped: fix.Dropped, Unknown: fix.Fix.Unknown, Helm: fix.Major, HelmReason: fix.Reason}
	if o.out.Changes == nil {
		o.out.Changes = []apis.Change{}
	}
	table := o.format == FormatTable
	if !fix.Fix.Changed() {
		o.out.Revision, o.out.Helm, o.out.HelmReason = 0, 0, ""
		if !table {
			return nil, nil, printStructured(r.stdout, o.format, o.out)
		}
		fmt.Fprintln(r.stdout, fix.Describe())
		printUnknownAPIs(r.stdout, fix.Fix.Unknown)
		return nil, nil, nil
	}
	o.out.Description, o.out.Diff = fix.Description, fix.Diff
	if table {
		if err := printFixPlan(r.stdout, fix); err != nil {
			return nil, nil, err
		}
	}
	if o.dryRun {
		if table {
			fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
			return nil, nil, nil
		}
		return nil, nil, printStructured(r.stdout, o.format, o.out)
	}
	what := fmt.Sprintf("write revision %d of %s on served API versions", fix.Revision, o.name)
	return fix, &confirmation{what: what, want: "y"}, nil
}

// printFixPlan prints what the fix writes: a sentence, the objects it moves
// and drops, and the diff of the new revision against the one it copies.
func printFixPlan(w io.Writer, fix *ops.FixAPIs) error {
	fmt.Fprintf(w, "fix-apis of %s: %s\n\n", fix.Name, fix.Describe())
	tw := newTable(w)
	row(tw, "OBJECT", "FROM", "TO", "SUCCESSOR FROM")
	for _, ch := range fix.Changes {
		obj := ch.Ref()
		if ch.Hook != "" {
			obj += " (hook " + ch.Hook + ")"
		}
		row(tw, obj, ch.APIVersion, ch.To.APIVersion, ch.To.From)
	}
	for _, d := range fix.Dropped {
		row(tw, d.Ref(), d.APIVersion, "(dropped)", "no served version replaces it")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printUnknownAPIs(w, fix.Fix.Unknown)
	fmt.Fprintf(w, "\nRevision %d's description: %s\n\n", fix.Revision, fix.Description)
	_, err := io.WriteString(w, fix.Diff.Unified())
	return err
}

// printUnknownAPIs says which objects are left as they are because discovery
// could not read their group.
func printUnknownAPIs(w io.Writer, objs []apis.Object) {
	if len(objs) == 0 {
		return
	}
	refs := make([]string, len(objs))
	for i, o := range objs {
		refs[i] = o.Ref() + " (" + o.APIVersion + ")"
	}
	fmt.Fprintf(w, "Left as they are: %s: discovery could not read their API group, so whether it is served is not known.\n", strings.Join(refs, ", "))
}

func (o *fixAPIsOptions) applied(r *run, op ops.Operation) error {
	fix := op.(*ops.FixAPIs)
	o.out.Applied = fix.Applied
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, o.out)
	}
	fmt.Fprintf(r.stdout, "\nWrote revision %d of %s on served API versions", fix.Revision, o.name)
	if fix.Supersede {
		fmt.Fprintf(r.stdout, "; revision %d is superseded", fix.From)
	}
	fmt.Fprintln(r.stdout, ". Helm can upgrade it again.")
	return nil
}

func (r *run) fixAPIsCommand() *cobra.Command {
	o := &fixAPIsOptions{}
	cmd := &cobra.Command{
		Use:   "fix-apis NAME [--dry-run] [--drop-unserved]",
		Short: "Move a release's stored manifest off Kubernetes APIs the cluster no longer serves",
		Long: `When Kubernetes stops serving an API version, Helm can no longer upgrade, roll back
or uninstall a release whose stored manifest uses it: it fails with "unable to build
kubernetes objects from current release manifest ... no matches for kind". fix-apis
writes a new revision, a copy of the current one (the latest deployed, else the
latest) whose manifest and hooks use, for each object the cluster does not serve,
the version that replaces it: k8s.io/api's lifecycle data, else the table of
removals since Kubernetes 1.16, else a version of the same group the cluster serves
(for a custom resource, a version its CRD still serves). Every other byte of the
manifest and every other field of the record is kept, Helm 4's included; the
revision copied is marked superseded. No object in the cluster is changed.

A kind with no successor (PodSecurityPolicy) is refused, named; --drop-unserved
removes its document from the manifest instead. What the cluster serves comes from
one discovery pass.

It shows the plan (the objects moved, the new revision's diff, secrets masked
unless --reveal) and asks first; --dry-run shows it only. As every operation, it
runs through Helm's own driver of the store that holds the release, is refused
under --read-only, without the permissions, while an active controller reconciles
the release (--ignore-controller), and when the release changed after the plan
was shown (exit code 7).`,
		Example: `  chunkview ls -A --removed-apis
  chunkview fix-apis my-release --dry-run
  chunkview fix-apis my-release --drop-unserved --yes`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what the fix would write; change nothing")
	cmd.Flags().BoolVar(&o.dropUnserved, "drop-unserved", false, "drop from the manifest the objects no served version replaces (PodSecurityPolicy)")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "write the fix without asking (needed when stdin is not a terminal)")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets in the diff as they are instead of masking them")
	cmd.Flags().IntVarP(&o.unified, "unified", "U", 3, "unchanged lines shown around each change")
	return cmd
}
