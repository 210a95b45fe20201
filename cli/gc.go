package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// GCResult is the output of `gc`.
type GCResult struct {
	// DryRun is true when nothing was to be removed (--dry-run).
	DryRun bool `json:"dryRun"`
	// Found counts the leftovers listed; Removed those deleted.
	Found      int           `json:"found"`
	Removed    int           `json:"removed"`
	Namespaces []GCNamespace `json:"namespaces"`
	// Partial, when set, says that some namespaces could not be read (-A without
	// the right to list every namespace) and which were looked in.
	Partial string `json:"partial,omitempty"`
}

// GCNamespace is what gc found in one storage namespace.
type GCNamespace struct {
	Namespace string `json:"namespace"`
	// Leftovers are chunk Secrets no index names, old enough to remove.
	Leftovers []LeftoverItem `json:"leftovers"`
	// Recent are unreferenced chunk Secrets younger than --min-age, left alone.
	Recent []LeftoverItem `json:"recent"`
}

// gcOptions are the flags of `gc`, in kubectl's shape.
type gcOptions struct {
	format string
	dryRun bool
	yes    bool
	minAge time.Duration
}

// gcHint is what a refused gc can run instead.
func (r *run) gcHint() string {
	return "`" + r.suggest("gc", "", "--dry-run") + "` lists leftovers without removing them"
}

// Complete has nothing to fill in: gc takes no arguments.
func (o *gcOptions) Complete([]string) error { return nil }

// Validate checks the output format and --min-age.
func (o *gcOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.minAge < 0 {
		return usageErrorf("--min-age %s must not be negative", o.minAge)
	}
	return nil
}

// Run lists the leftovers in view and, unless --dry-run, removes them once
// confirmed: only those listed, each only while still unreferenced.
func (o *gcOptions) Run(ctx context.Context, r *run) error {
	if !o.dryRun {
		if err := r.refuseReadOnly("gc"); err != nil {
			return fmt.Errorf("%w; %s", err, r.gcHint())
		}
	}
	c, err := r.connect(ctx)
	if err != nil {
		return err
	}
	cfg := c.Config()
	checked := map[string]bool{}
	mayRemove := func(ns string) error {
		if o.dryRun || checked[ns] {
			return nil
		}
		checked[ns] = true
		if err := ops.CheckAllowed(ctx, c, ns, kube.OpGC); err != nil {
			return fmt.Errorf("%w; %s", err, r.gcHint())
		}
		return nil
	}
	narrowed := cfg.StorageNamespace != "" || !cfg.AllNamespaces
	if narrowed {
		if err := mayRemove(cfg.Namespace); err != nil {
			return err
		}
	}
	age := o.minAge
	if age == 0 {
		age = time.Nanosecond // zero would mean the default to kube
	}
	reps, err := kube.NewChecker(c).FindLeftovers(ctx, age)
	partial, err := r.warnPartial(err)
	if err != nil {
		return err
	}
	out := GCResult{DryRun: o.dryRun, Namespaces: []GCNamespace{}, Partial: partial}
	for _, rep := range reps {
		out.Found += len(rep.Leftovers)
		out.Namespaces = append(out.Namespaces, GCNamespace{Namespace: rep.Namespace, Leftovers: leftoverItems(rep.Leftovers), Recent: leftoverItems(rep.Recent)})
		// -n names the releases' namespace: their records, and so their
		// leftovers, may be stored in another, checked before asking.
		if narrowed && len(rep.Leftovers) > 0 && cfg.StorageNamespace == "" {
			if err := mayRemove(rep.Namespace); err != nil {
				return err
			}
		}
	}
	table := o.format == FormatTable
	if table {
		r.printLeftovers(out, o.minAge)
	}
	if out.Found > 0 && !o.dryRun {
		if err := r.confirm(o.yes, confirmation{what: fmt.Sprintf("delete %s", human.Plural(out.Found, "leftover Secret", "leftover Secrets")), want: "y"}); err != nil {
			return err
		}
		out.Removed, err = kube.NewChecker(c).RemoveLeftovers(ctx, reps)
		if table {
			fmt.Fprintf(r.stdout, "Removed %d of %s.\n", out.Removed, human.Plural(out.Found, "leftover Secret", "leftover Secrets"))
		}
		if err != nil {
			return fmt.Errorf("gc removed %d of %d leftovers: %w", out.Removed, out.Found, err)
		}
	}
	if !table {
		return printStructured(r.stdout, o.format, out)
	}
	return nil
}

func (r *run) gcCommand() *cobra.Command {
	o := &gcOptions{}
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove leftover chunk Secrets that no index names",
		Long: `Find chunk Secrets that no index names (left by an interrupted write or delete),
list them, ask, and remove them. Each is removed only if it is still the object that
was listed and still unreferenced. Chunks younger than --min-age are left alone: they
probably belong to a write in progress. A pending index (the first Secret of a create
of several chunks) is removed once 15 seconds old, or --min-age if less: chunkview's
creates take well under a second, and until it is gone it fails every writer's create
of that revision.

-n, as in helm, names the namespace of the releases: gc -n NS looks in NS and
wherever else the records of the releases deployed to NS are stored.`,
		Example: `  chunkview gc --dry-run -A
  chunkview gc -n team-a --yes`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "list leftovers only; remove nothing")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "remove without asking (needed when stdin is not a terminal)")
	cmd.Flags().DurationVar(&o.minAge, "min-age", storage.DefaultMinLeftoverAge, "leave unreferenced chunks younger than this alone")
	return cmd
}

func (r *run) printLeftovers(out GCResult, minAge time.Duration) {
	w, now := r.stdout, r.now()
	var recent []LeftoverItem
	for _, n := range out.Namespaces {
		recent = append(recent, n.Recent...)
	}
	if line := recentLine(recent, minAge); line != "" {
		fmt.Fprintf(w, "Left alone: %s: probably a write in progress; gc removes them once older.\n", line)
	}
	if out.Found == 0 {
		fmt.Fprintln(w, "No leftover chunk Secrets or pending indexes found.")
		return
	}
	tw := newTable(w)
	row(tw, "NAMESPACE", "SECRET", "KIND", "RELEASE", "REVISION", "SIZE", "AGE")
	var total int64
	for _, n := range out.Namespaces {
		for _, lo := range n.Leftovers {
			total += int64(lo.Bytes)
			row(tw, n.Namespace, lo.Name, lo.Kind, human.OrUnknown(lo.Release), lo.Revision, human.Bytes(int64(lo.Bytes)), human.Age(now, lo.Created))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "%s (%s): chunks that no index names, and pending indexes of creates that never completed.\n", human.Plural(out.Found, "leftover Secret", "leftover Secrets"), human.Bytes(total))
	if out.DryRun {
		fmt.Fprintln(w, "Dry run: nothing removed. Run without --dry-run to remove them.")
	}
}
