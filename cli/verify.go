package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// VerifyResult is the output of `verify`.
type VerifyResult struct {
	// OK is true when no problem was found anywhere.
	OK bool `json:"ok"`
	// Problems counts the problems over all namespaces.
	Problems   int              `json:"problems"`
	Namespaces []NamespaceCheck `json:"namespaces"`
	// Partial, when set, says that some namespaces could not be read (-A without
	// the right to list every namespace) and which were checked.
	Partial string `json:"partial,omitempty"`
}

// NamespaceCheck is the verification of one storage namespace.
type NamespaceCheck struct {
	Namespace string `json:"namespace"`
	// Driver is the store checked: chunked, secret or configmap.
	Driver string `json:"driver"`
	// Indexes and Chunks count the index and chunk Secrets checked.
	Indexes  int           `json:"indexes"`
	Chunks   int           `json:"chunks"`
	Problems []ProblemItem `json:"problems"`
	// Leftovers are chunk Secrets no index names, and pending indexes of creates
	// that never completed: gc removes them.
	Leftovers []LeftoverItem `json:"leftovers"`
	// Recent are unreferenced chunk Secrets young enough to belong to a write in
	// progress; they are not counted as problems.
	Recent []LeftoverItem `json:"recent"`
}

// ProblemItem is one problem verify found.
type ProblemItem struct {
	// Kind is one of missing-chunk, orphan-chunk, hash-mismatch, bad-index,
	// wrong-type, chunk-without-owner, decode-failure, label-mismatch.
	Kind string `json:"kind"`
	// Key is the revision record at fault; Release and Revision are parsed from it.
	Key      string `json:"key"`
	Release  string `json:"release"`
	Revision int    `json:"revision"`
	// Secret is the Secret at fault.
	Secret string `json:"secret"`
	Detail string `json:"detail"`
	// Explanation says in plain words what the kind of problem means and what to do.
	Explanation string `json:"explanation"`
}

// LeftoverItem is a chunk Secret that no index names, or the pending index of an
// interrupted create (kind pending-index).
type LeftoverItem struct {
	Kind     string    `json:"kind"`
	Name     string    `json:"name"`
	Key      string    `json:"key"`
	Release  string    `json:"release"`
	Revision int       `json:"revision"`
	Bytes    int       `json:"bytes"`
	Created  time.Time `json:"created,omitzero"`
}

func leftoverItems(los []storage.Leftover) []LeftoverItem {
	out := make([]LeftoverItem, 0, len(los))
	for _, lo := range los {
		name, rev, _ := storage.ParseKey(lo.Key)
		kind := lo.Kind
		if kind == "" {
			kind = storage.LeftoverChunk
		}
		out = append(out, LeftoverItem{Kind: string(kind), Name: lo.Name, Key: lo.Key, Release: name, Revision: rev, Bytes: lo.Bytes, Created: lo.Created})
	}
	return out
}

// verifyResult is what verify found in reps. A namespace where a store holds
// nothing at all (no record, no leftover) is left out: verify of every
// namespace lists only those with something checked.
func verifyResult(reps []kube.NamespaceReport) VerifyResult {
	out := VerifyResult{Namespaces: []NamespaceCheck{}}
	for _, rep := range reps {
		if rep.Indexes == 0 && rep.Chunks == 0 && len(rep.Problems) == 0 && len(rep.Leftovers) == 0 && len(rep.Recent) == 0 {
			continue
		}
		nc := NamespaceCheck{
			Namespace: rep.Namespace, Driver: rep.Driver, Indexes: rep.Indexes, Chunks: rep.Chunks, Problems: []ProblemItem{},
			Leftovers: leftoverItems(rep.Leftovers), Recent: leftoverItems(rep.Recent),
		}
		for _, p := range rep.Problems {
			name, rev, _ := storage.ParseKey(p.Key)
			nc.Problems = append(nc.Problems, ProblemItem{
				Kind: string(p.Kind), Key: p.Key, Release: name, Revision: rev, Secret: p.Secret,
				Detail: p.Detail, Explanation: p.Kind.Explain(),
			})
		}
		out.Problems += len(nc.Problems)
		out.Namespaces = append(out.Namespaces, nc)
	}
	out.OK = out.Problems == 0
	return out
}

// verifyOptions are the flags and argument of `verify`, in kubectl's shape.
type verifyOptions struct {
	name   string
	format string
	decode bool
}

// Complete takes the release name, if any, from args.
func (o *verifyOptions) Complete(args []string) error {
	if len(args) == 1 {
		o.name = args[0]
	}
	return nil
}

// Validate checks the output format.
func (o *verifyOptions) Validate() error { return checkFormat(o.format) }

// Run checks the records in view, or those of one release, and prints what it
// found; problems exit with code 4.
func (o *verifyOptions) Run(ctx context.Context, r *run) error {
	if o.name != "" && r.client == nil {
		r.demoRelease = o.name // the demo needs that release alone
	}
	c, err := r.connect(ctx)
	if err != nil {
		return err
	}
	var reps []kube.NamespaceReport
	if o.name != "" {
		ns, store, err := r.locateStore(ctx, c, o.name)
		if err != nil {
			return err
		}
		if store != "" {
			c = c.WithDrivers(store)
		} else if _, err := c.History(ctx, ns, o.name); errors.Is(err, kube.ErrAmbiguous) {
			// Two stores hold the name: which one is the user's to say.
			return err
		}
		if reps, err = kube.NewChecker(c).VerifyRelease(ctx, ns, o.name, o.decode); err != nil {
			return err
		}
		if indexes(reps) == 0 && verifyResult(reps).OK {
			return fmt.Errorf("%w: no release %q with owner %q in namespace %q; try --owner, --storage-namespace or --profile olmv1",
				kube.ErrNotFound, o.name, c.Config().Owner, ns)
		}
	} else {
		reps, err = kube.NewChecker(c).Verify(ctx, "", o.decode)
	}
	partial, err := r.warnPartial(err)
	if err != nil {
		return err
	}
	out := verifyResult(reps)
	out.Partial = partial
	if o.format != FormatTable {
		err = printStructured(r.stdout, o.format, out)
	} else {
		r.printVerify(out, o.decode)
	}
	if err != nil {
		return err
	}
	if !out.OK {
		return silent(ExitProblems)
	}
	return nil
}

// recentLine says what was left alone as a probable write in progress: chunks
// younger than minAge, and pending indexes younger than storage.PendingLease
// (or minAge, when less); "" for none.
func recentLine(recent []LeftoverItem, minAge time.Duration) string {
	var chunks, pending int
	for _, lo := range recent {
		if lo.Kind == string(storage.LeftoverPendingIndex) {
			pending++
		} else {
			chunks++
		}
	}
	var parts []string
	if chunks > 0 {
		parts = append(parts, fmt.Sprintf("%s that no index names, younger than %s", human.Plural(chunks, "chunk Secret", "chunk Secrets"), minAge))
	}
	if pending > 0 {
		parts = append(parts, fmt.Sprintf("%s younger than %s", human.Plural(pending, "pending index", "pending indexes"), min(minAge, storage.PendingLease)))
	}
	return strings.Join(parts, " and ")
}

// indexes counts the index Secrets the reports checked.
func indexes(reps []kube.NamespaceReport) int {
	n := 0
	for _, rep := range reps {
		n += rep.Indexes
	}
	return n
}

func (r *run) verifyCommand() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [NAME]",
		Short: "Check stored release records for missing, damaged or leftover Secrets",
		Long: `Check the stored release records in view (or those of one release): every index,
every chunk against the hash in its name, the ownerReferences, and leftover chunks
that no index names. --decode also decodes every revision whose chunks are sound.

-n, as in helm, names the namespace of the releases: verify -n NS checks the
records stored in NS and those of the releases deployed to NS wherever they are
stored.

Each problem comes with a plain explanation of what it means and what to do.
Exits with code 4 when a problem is found.`,
		Example: `  chunkview verify -A
  chunkview verify -n monitoring
  chunkview verify my-release --decode`,
		Args: rangeArgs(0, 1, "at most one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().BoolVar(&o.decode, "decode", false, "also decode every revision's payload (reads every chunk)")
	return cmd
}

func (r *run) printVerify(out VerifyResult, decoded bool) {
	w := r.stdout
	if len(out.Namespaces) == 0 {
		fmt.Fprintln(w, "No release records in view.")
		return
	}
	kinds := map[string]string{}
	var order []string
	for _, n := range out.Namespaces {
		switch n.Driver {
		case kube.DriverSecret:
			fmt.Fprintf(w, "Namespace %s, Helm's Secrets: %s checked: ", n.Namespace, human.Plural(n.Indexes, "record", "records"))
		case kube.DriverConfigMap:
			fmt.Fprintf(w, "Namespace %s, Helm's ConfigMaps: %s checked: ", n.Namespace, human.Plural(n.Indexes, "record", "records"))
		default:
			fmt.Fprintf(w, "Namespace %s: %s, %s checked: ", n.Namespace, human.Plural(n.Indexes, "index Secret", "index Secrets"), human.Plural(n.Chunks, "chunk Secret", "chunk Secrets"))
		}
		if len(n.Problems) == 0 {
			fmt.Fprintln(w, "no problems")
		} else {
			fmt.Fprintln(w, human.Plural(len(n.Problems), "problem", "problems"))
			tw := newTable(w)
			row(tw, "  PROBLEM", "RELEASE", "REVISION", "SECRET", "DETAIL")
			for _, p := range n.Problems {
				row(tw, "  "+p.Kind, human.OrUnknown(p.Release), p.Revision, p.Secret, p.Detail)
				if _, ok := kinds[p.Kind]; !ok {
					kinds[p.Kind] = p.Explanation
					order = append(order, p.Kind)
				}
			}
			tw.Flush()
		}
		if line := recentLine(n.Recent, storage.DefaultMinLeftoverAge); line != "" {
			fmt.Fprintf(w, "  %s: probably a write in progress, not counted; gc removes them once older.\n", line)
		}
	}
	if len(order) > 0 {
		fmt.Fprintln(w, "\nWhat these problems mean:")
		for _, k := range order {
			fmt.Fprintf(w, "  %s: %s\n", k, kinds[k])
		}
		if cmds := r.deleteAdvice(out); len(cmds) > 0 {
			fmt.Fprintln(w, "\nTo delete a revision record that cannot be trusted (after a backup, if it matters):")
			for _, c := range cmds {
				fmt.Fprintf(w, "  `%s`\n", c)
			}
		}
		fmt.Fprintf(w, "\n%s found.\n", human.Plural(out.Problems, "problem", "problems"))
		return
	}
	if decoded {
		fmt.Fprintln(w, "\nAll records are sound and every revision decodes.")
	} else {
		fmt.Fprintln(w, "\nAll records are sound (payloads not decoded; --decode checks them too).")
	}
}

// deleteKinds are the problems whose explanation advises deleting the revision
// record (storage.ProblemKind.Explain).
var deleteKinds = map[string]bool{
	string(storage.ProblemMissingChunk): true,
	string(storage.ProblemBadIndex):     true,
	string(storage.ProblemHashMismatch): true,
}

// deleteAdvice is the delete-revision --force command, ready to paste, of each
// revision whose problem advises deleting its record, once each.
func (r *run) deleteAdvice(out VerifyResult) []string {
	var cmds []string
	seen := map[string]bool{}
	for _, n := range out.Namespaces {
		for _, p := range n.Problems {
			id := n.Namespace + "/" + p.Key
			if !deleteKinds[p.Kind] || p.Release == "" || p.Revision <= 0 || seen[id] {
				continue
			}
			seen[id] = true
			row := kube.RevisionRow{Name: p.Release, Revision: p.Revision, StorageNamespace: n.Namespace, Driver: n.Driver, Key: p.Key}
			args := []string{strconv.Itoa(p.Revision), "--force"}
			if r.client != nil {
				cmds = append(cmds, r.client.Config().SuggestFor(row, "delete-revision", args...))
			} else {
				cmds = append(cmds, r.suggest("delete-revision", p.Release, args...))
			}
		}
	}
	return cmds
}
