package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/kube/ops"
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
	// Reapply is true when To is the latest revision: its objects are applied
	// again as recorded, undoing drift.
	Reapply bool `json:"reapply,omitempty"`
	// Drop are the unreadable revisions above To whose records go first.
	Drop []ops.Dropped `json:"drop,omitempty"`
	// Helm is the Helm major that runs the rollback (3 or 4), HelmReason why.
	Helm       int    `json:"helm"`
	HelmReason string `json:"helmReason"`
	// ServerSide is set when Helm 4 applies the objects server-side: the field
	// manager it applies them under and the conflicts the plan found.
	ServerSide *ops.ServerSide `json:"serverSide,omitempty"`
	// Wait is what --wait found: whether the objects became Current.
	Wait *RollbackWait `json:"wait,omitempty"`
	// RemovedAPIs are the objects of the revision rolled back to (target)
	// and of the latest (current) whose API the cluster no longer serves:
	// Helm's rollback fails on them.
	RemovedAPIs *ops.RollbackAPIs `json:"removedAPIs,omitempty"`
}

// rollbackOptions are the flags and arguments of `rollback`, in kubectl's shape;
// Run is the shared mutating step.
type rollbackOptions struct {
	ignoreController bool
	name, revArg     string
	rev              int
	format           string
	dryRun           bool
	yes              bool
	reveal           bool
	unified          int
	// wait waits up to timeout for the objects to be Current (--wait);
	// timeoutSet is set when --timeout was given, which also bounds Helm's
	// hooks, as helm's --timeout does.
	wait       bool
	timeout    time.Duration
	timeoutSet bool
	// fieldManager (--field-manager) and forceConflicts (--force-conflicts)
	// are for a Helm 4 server-side rollback, as helm rollback's flags.
	fieldManager   string
	forceConflicts bool

	diff kube.DiffOptions
	out  RollbackResult
	// client and rows are the connection and the history the rollback was
	// planned on, for the wait.
	client live.Source
	rows   []kube.RevisionRow
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
	if o.wait && o.dryRun {
		return usageErrorf("--wait waits for what a rollback applied; --dry-run applies nothing")
	}
	if o.timeout <= 0 {
		return usageErrorf("--timeout %s: want a duration above 0, such as 5m", o.timeout)
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
	in := intent{release: o.name, op: kube.OpRollback, hint: "--dry-run shows what it would change", yes: o.yes, ignoreController: o.ignoreController}
	if !o.dryRun {
		in.what = "rollback"
	}
	return in
}

func (o *rollbackOptions) plan(ctx context.Context, r *run, rn *ops.Runner, c operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	if o.rev == 0 && len(p.Rows) > 1 && !o.dryRun {
		// Helm rolls back to the revision before the latest, whatever it is;
		// landing on a failed one by default is a surprise, so it must be named
		// (a dry run shows the plan, with a warning).
		if prev := p.Rows[len(p.Rows)-2]; prev.Status == "failed" {
			return nil, nil, usageErrorf("the default target, revision %d (the one before the latest), is failed: name the revision to roll back to (`%s` lists them)", prev.Revision, c.Config().SuggestFor(prev, "history"))
		}
	}
	p.FieldManager = o.fieldManager
	rb, err := rn.PlanRollback(ctx, p, o.rev, o.diff)
	if err != nil {
		return nil, nil, err
	}
	rb.ForceConflicts = o.forceConflicts
	if o.timeoutSet {
		// helm rollback's --timeout: how long each hook may take.
		rb.Timeout = o.timeout
	}
	// Helm's own wait (rb.Wait) is left off: --wait waits below with kstatus,
	// as status judges, with progress; see waitCurrent.
	o.client, o.rows = rn.Client(), p.Rows
	o.out = RollbackResult{Release: o.name, Driver: p.Driver, StorageNamespace: p.StorageNamespace, From: rb.From, To: rb.To, Diff: rb.Diff,
		Reapply: rb.Reapply, Drop: rb.Drop, Helm: rb.Major, HelmReason: rb.Reason, ServerSide: rb.ServerSide}
	table := o.format == FormatTable
	if table {
		fmt.Fprintf(r.stdout, "Rollback of %s: %s\n\n", o.name, rb.Describe())
		text := rb.Diff.Unified()
		if len(rb.Drop) > 0 && rb.From == rb.To {
			// The diff would compare revision To with itself; what the
			// unreadable revision held cannot be read, so cannot be compared.
			text = fmt.Sprintf("Goes: revision %s, unreadable: what it held cannot be shown.\nComes back: revision %d, applied again as recorded, written as revision %d.\n", droppedRevisions(rb.Drop), rb.To, rb.From+1)
		}
		if _, err := io.WriteString(r.stdout, text); err != nil {
			return nil, nil, err
		}
	}
	r.warnRollback(c, rb, o.rev == 0)
	o.out.RemovedAPIs = r.warnRollbackAPIs(ctx, rn, c, rb)
	if o.dryRun {
		if table {
			fmt.Fprintln(r.stdout, "\nDry run: nothing changed.")
			return nil, nil, nil
		}
		return nil, nil, printStructured(r.stdout, o.format, o.out)
	}
	if ss := rb.ServerSide; ss != nil && len(ss.Conflicts) > 0 && !o.forceConflicts {
		// Refused before the question: Helm would fail after recording the
		// new revision. Apply refuses it too.
		return nil, nil, fmt.Errorf("%w: rollback of %s refused: %s owned by another field manager (the plan lists them); nothing was changed: pass --force-conflicts to take them over, or --field-manager to apply as their manager",
			ops.ErrFieldConflicts, o.name, human.Plural(len(ss.Conflicts), "field is", "fields are"))
	}
	what := fmt.Sprintf("roll %s back to revision %d", o.name, rb.To)
	if rb.Reapply {
		what = fmt.Sprintf("apply revision %d of %s again", rb.To, o.name)
	}
	if len(rb.Drop) > 0 {
		what = fmt.Sprintf("delete the unreadable record of revision %s and roll %s back to revision %d", droppedRevisions(rb.Drop), o.name, rb.To)
	}
	return rb, &confirmation{what: what, want: "y"}, nil
}

// droppedRevisions lists the revisions of drop: "3" or "3, 4".
func droppedRevisions(drop []ops.Dropped) string {
	out := make([]string, len(drop))
	for i, d := range drop {
		out[i] = fmt.Sprint(d.Revision)
	}
	return strings.Join(out, ", ")
}

func (o *rollbackOptions) applied(r *run, op ops.Operation) error {
	done := op.(*ops.Rollback)
	o.out.Applied, o.out.NewRevision = done.Applied, done.NewRevision
	table := o.format == FormatTable
	if table {
		if len(done.Drop) > 0 {
			fmt.Fprintf(r.stdout, "\nReplaced the unreadable revision %s of %s: its record was deleted, and revision %d now holds revision %d's content.\n", droppedRevisions(done.Drop), o.name, done.NewRevision, done.To)
		} else {
			fmt.Fprintf(r.stdout, "\nRolled %s back to revision %d: now at revision %d.\n", o.name, done.To, done.NewRevision)
		}
	}
	var waitErr error
	if o.wait {
		waitErr = o.waitFor(r, done)
	}
	if !table {
		if err := printStructured(r.stdout, o.format, o.out); err != nil {
			return err
		}
	}
	return waitErr
}

// waitFor waits for the objects the rollback applied to be Current, and says
// how that ended.
func (o *rollbackOptions) waitFor(r *run, done *ops.Rollback) error {
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := r.waitCurrent(ctx, o.client, o.rows, done.To, fmt.Sprintf("revision %d", done.NewRevision), o.timeout)
	if st != nil {
		o.out.Wait = &RollbackWait{Ready: err == nil, Timeout: o.timeout.String(), Resources: st.Resources}
	}
	switch {
	case err == nil:
		if o.format == FormatTable {
			fmt.Fprintf(r.stdout, "Every object of revision %d is Current (%d).\n", done.NewRevision, len(st.Resources))
		}
		return nil
	case errors.Is(err, errWaitTimeout):
		nr := st.NotReady()
		return &codedError{code: ExitFailure, err: fmt.Errorf("rolled %s back to revision %d as revision %d, but after %s %s not Current: %s; `%s` follows them",
			o.name, done.To, done.NewRevision, o.timeout, human.Plural(len(nr), "object is", "objects are"), notCurrent(st), o.client.Config().Suggest("status", o.name))}
	}
	return fmt.Errorf("rolled %s back to revision %d as revision %d, but could not wait for its objects: %w", o.name, done.To, done.NewRevision, err)
}

func (r *run) rollbackCommand() *cobra.Command {
	o := &rollbackOptions{}
	cmd := &cobra.Command{
		Use:   "rollback NAME [REVISION]",
		Short: "Roll a release back to a revision with Helm's rollback",
		Long: `Roll a release back to REVISION (default: the one before the latest) with Helm's own
rollback action, through the store that holds the release: the resources of
REVISION are applied again and recorded as a new revision. REVISION may be the
latest: its resources are then applied again as recorded, which undoes drift.
A release Helm 4 wrote is rolled back by Helm 4's action, one Helm 3 wrote by Helm
3's (the plan says which). Revisions above REVISION that cannot be read are
deleted first, which the plan shows. The default target must not be a failed
revision: name one.

A release Helm 4 applied server-side is applied under the field manager whose
applies own most of its objects' fields (a Helm 4 program's own, Flux's
helm-controller), or the one --field-manager names. The plan lists the fields
another manager owns (drift made with kubectl, say), found by a server-side dry
run; such a rollback is refused unless --force-conflicts takes them over.

It first shows what would change (the latest revision compared with REVISION,
secrets masked unless --reveal) and asks for confirmation. --dry-run shows the plan
only. What was shown is what runs: if the release changed after it was shown (a
revision added, deleted or rewritten by another writer), nothing is changed and
the exit code is 7.

--wait then waits, up to --timeout (5m), until every object of the revision rolled
back to is Current, judged by kstatus as 'chunkview status' judges it, and followed
with one watch per kind of object. Progress goes to stderr: a line updated in
place on a terminal, a line per change elsewhere. When time runs out it exits 1,
naming the objects not Current; the rollback stays applied and recorded, its
revision deployed (Helm's own --wait would mark it failed).`,
		Example: `  chunkview rollback my-release --dry-run
  chunkview rollback my-release 3 --yes`,
		Args: rangeArgs(1, 2, "a release NAME and optionally a REVISION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.timeoutSet = cmd.Flags().Changed("timeout")
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	addControllerFlag(cmd, &o.ignoreController)
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what the rollback would change; change nothing")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "after the rollback, wait until every object it applied is Current (kstatus, as status shows), with progress on stderr")
	cmd.Flags().DurationVar(&o.timeout, "timeout", defaultWaitTimeout, "how long --wait waits; given, it also bounds each hook, as helm's --timeout")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "roll back without asking (needed when stdin is not a terminal)")
	cmd.Flags().StringVar(&o.fieldManager, "field-manager", "", "for a release Helm 4 applied server-side: the field manager to apply as (default: the one whose applies own most of the release's fields)")
	cmd.Flags().BoolVar(&o.forceConflicts, "force-conflicts", false, "for a release Helm 4 applied server-side: take over the fields another field manager owns, as helm rollback's --force-conflicts")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets in the diff as they are instead of masking them")
	cmd.Flags().IntVarP(&o.unified, "unified", "U", 3, "unchanged lines shown around each change")
	return cmd
}
