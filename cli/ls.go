package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/owner"
	"github.com/chunkview/chunkview/storage"
)

// Releases is the output of `ls`.
type Releases struct {
	Releases []ReleaseItem `json:"releases"`
}

// ReleaseItem is one release in `ls`, as of its latest revision.
type ReleaseItem struct {
	Name string `json:"name"`
	// Driver is the store that holds the release: chunked, secret (Helm's
	// Secrets driver) or configmap (Helm's ConfigMaps driver).
	Driver string `json:"driver"`
	// Namespace is where the release's resources live when known, else
	// StorageNamespace; empty when the records are kept in a storage namespace
	// and the row was read from its index's own slice, which does not hold it
	// (the table shows "?"; `inspect` or the TUI decode it).
	Namespace string `json:"namespace"`
	// StorageNamespace holds the release's index and chunk Secrets.
	StorageNamespace string `json:"storageNamespace"`
	Revision         int    `json:"revision"`
	Status           string `json:"status"`
	Chart            string `json:"chart"`
	ChartVersion     string `json:"chartVersion"`
	AppVersion       string `json:"appVersion"`
	// Updated is when the latest revision was last deployed (info.last_deployed,
	// as helm ls shows it), or, where only its record's metadata was read, when
	// the record was last written; UpdatedFrom says which ("last_deployed" or
	// "written").
	Updated     time.Time `json:"updated,omitzero"`
	UpdatedFrom string    `json:"updatedFrom,omitempty"`
	// Stuck is set when the latest revision has been pending (or uninstalling)
	// for longer than --stuck-after (5 minutes by default): no operation is
	// likely to finish it, and fix-stuck gets it out. InProgress while it has
	// been so for less: an operation is probably running.
	Stuck      bool `json:"stuck"`
	InProgress bool `json:"inProgress,omitempty"`
	// Chunks is the number of Secrets of the latest revision (index included).
	Chunks int `json:"chunks"`
	// StoredBytes is what the latest revision takes in its store: the gzip
	// stream of all slices (chunked), or data.release (Helm's drivers).
	StoredBytes int64 `json:"storedBytes"`
	// LimitBytes is the most the store holds for one revision with the settings
	// in use: 1 MiB for Helm's drivers, max write chunks × chunk size for
	// chunked (0: no limit set). Fill is StoredBytes / LimitBytes.
	LimitBytes int64   `json:"limitBytes"`
	Fill       float64 `json:"fill"`
	// StoredBytesAtMost bounds StoredBytes when that is not known (0): the
	// latest revision, written by another tool, was read from its index Secret
	// alone, whose slice is L bytes of its n chunks' n×L at most; it takes
	// more than (n-1)×L. Fill stays 0 then: it is not known either.
	StoredBytesAtMost int64 `json:"storedBytesAtMost,omitempty"`
	// ApplyMethod is Helm 4's apply_method of the latest revision, if any.
	ApplyMethod string `json:"applyMethod,omitempty"`
	// UnknownFields are fields of the latest revision Helm 3 does not know.
	UnknownFields []string `json:"unknownFields,omitempty"`
	// Revisions is the number of revisions stored.
	Revisions int `json:"revisions"`
	// HistoryBytes is what the stored revisions take in their store (as
	// StoredBytes counts), summed over the HistorySized revisions whose size
	// the listing knows: when that is fewer than Revisions, the sum is a lower
	// bound. Sizes come at no extra request: from the summary annotations of
	// the index Secrets chunkview wrote, and from the records of Helm's stores
	// that are not superseded, which the listing reads whole.
	HistoryBytes int64 `json:"historyBytes"`
	HistorySized int   `json:"historySizedRevisions"`
	// ControlledBy names what reconciles the release: "HelmRelease/NS/NAME"
	// for one Flux manages, "ClusterExtension/NAME" (the latest record's
	// controller ownerReference) for an OLMv1 release; Controller says more.
	ControlledBy string           `json:"controlledBy,omitempty"`
	Controller   *kube.Controller `json:"controller,omitempty"`
	// Labels are the custom labels on the latest record's metadata (OLMv1's
	// package-name, bundle-name, ...).
	Labels map[string]string `json:"labels,omitempty"`
	// Broken is set when the latest revision could not be decoded or misses chunk
	// Secrets; Problem says why.
	Broken  bool   `json:"broken"`
	Problem string `json:"problem,omitempty"`
	// Checked is set when the latest revision's chunk Secrets were all found (or it
	// was decoded whole). A revision neither checked nor broken was not checked:
	// Unchecked says why, and Writing is set when another writer seems to be
	// storing it right now.
	Checked   bool   `json:"checked"`
	Unchecked string `json:"unchecked,omitempty"`
	Writing   bool   `json:"writing,omitempty"`
	// PendingIndex is the pending index of a later revision whose create was
	// interrupted: until gc removes it, every create of that revision fails
	// (HEALTH blocked). A release with nothing but one has the status
	// "pending-index".
	PendingIndex *kube.PendingIndex `json:"pendingIndex,omitempty"`
	// RemovedAPIs (--removed-apis) are the objects of the latest revision
	// whose API the cluster no longer serves (problem "unserved": Helm can no
	// longer upgrade the release), will not serve at --kube-version
	// ("removed"), is deprecated ("deprecated") or may not serve ("unknown"),
	// each with its served successor.
	RemovedAPIs []apis.Finding `json:"removedAPIs,omitempty"`

	// verify is the command that says what is wrong with a broken row.
	verify string
	// latest is the row of the latest revision, for --removed-apis.
	latest *kube.RevisionRow
	// release is the row the item was made from, which the table renders.
	release *kube.ReleaseRow
}

func releaseItem(rr kube.ReleaseRow) ReleaseItem {
	r := rr.Latest
	it := ReleaseItem{
		Name: r.Name, Driver: r.Driver, Namespace: r.StorageNamespace, StorageNamespace: r.StorageNamespace,
		LimitBytes: r.LimitBytes, Fill: r.Fill(), ApplyMethod: r.ApplyMethod, UnknownFields: r.UnknownFields,
		Revision: r.Revision, Status: r.Status, Updated: r.Updated, UpdatedFrom: r.UpdatedFrom, Revisions: rr.Revisions,
		Broken: r.Broken, Problem: r.Problem, Checked: r.Checked, Unchecked: r.Unchecked, Writing: r.Writing,
		ControlledBy: r.ControlledBy, Controller: r.Controller, Labels: r.Labels, PendingIndex: r.PendingIndex,
	}
	it.HistoryBytes, it.HistorySized = rr.HistoryBytes()
	if r.NamespaceUnknown {
		it.Namespace = "" // not read: not the storage namespace either
	}
	if r.Known {
		s := r.Summary
		if s.Namespace != "" {
			it.Namespace = s.Namespace
		}
		it.Chart, it.ChartVersion, it.AppVersion = s.Chart, s.ChartVersion, s.AppVersion
		it.Chunks, it.StoredBytes = s.Chunks, s.StoredBytes
		if s.StoredBytes <= 0 {
			it.StoredBytesAtMost = r.StoredAtMost
		}
	}
	return it
}

// lsOptions are the flags of `ls`, in kubectl's shape.
type lsOptions struct {
	format string
	filter lsFilter
	// nearLimit keeps the releases whose latest revision fills at least this
	// percentage of its store's limit (0: all).
	nearLimit float64
	// apis keeps the releases that use removed APIs (--removed-apis).
	apis lsAPIs
}

// Complete has nothing to fill in: ls takes no arguments.
func (o *lsOptions) Complete([]string) error { return nil }

// Validate checks the output format and the filter flags.
func (o *lsOptions) Validate() error {
	if err := checkListFormat(o.format); err != nil {
		return err
	}
	if o.nearLimit < 0 || o.nearLimit > 100 {
		return usageErrorf("--near-limit %g: want a percentage of the store's limit, 1 to 100", o.nearLimit)
	}
	if err := o.apis.validate(); err != nil {
		return err
	}
	return o.filter.validate()
}

// Run lists the releases in view and prints those the filter keeps.
func (o *lsOptions) Run(ctx context.Context, r *run) error {
	c, err := r.connect(ctx)
	if err != nil {
		return err
	}
	return o.list(ctx, r, c, kube.NewChecker(c))
}

// list lists the releases in view through c, checks them with chk and prints
// those the filter keeps.
func (o *lsOptions) list(ctx context.Context, r *run, c listClient, chk releaseChecker) error {
	rows, err := c.Releases(ctx)
	if errors.Is(err, kube.ErrPartial) {
		// Forbidden to list every namespace, or a store: the rows of those it
		// may read, and a note of what is missing.
		if rest := r.noteStoreSkips(err); rest != nil {
			fmt.Fprintf(r.stderr, "Warning: %s\n", message(rest))
		}
	} else if err != nil {
		return err
	}
	if err := o.annotate(ctx, r, c, chk, rows); err != nil {
		return err
	}
	out := o.items(c, rows)
	listed := len(out.Releases)
	if o.apis.on {
		if out.Releases, err = o.apis.keep(ctx, r, chk, &o.filter, out.Releases); err != nil {
			return err
		}
		listed = len(out.Releases)
	}
	out.Releases = o.filter.apply(out.Releases)
	if note := o.filter.hiddenNote(); note != "" && isTable(o.format) && !o.filter.short {
		fmt.Fprintf(r.stderr, "Note: %s\n", note)
	}
	if note := headOnlyNote(out.Releases); note != "" {
		fmt.Fprintf(r.stderr, "Note: %s\n", note)
	}
	if listed == 0 && !o.apis.on {
		// An empty list is an answer, as in helm; where ls looked and
		// what to try goes to stderr.
		fmt.Fprintf(r.stderr, "Note: %s\n", r.nothingFound(c.Config()))
	}
	return o.print(r, c, out)
}

// annotate tells the latest revision of each release what ls shows beside its
// record's metadata: the APIs served (with --removed-apis), its controller, its
// chart and size, and the health of its chunk Secrets. What could not be learnt
// is said on stderr; the release is listed all the same.
func (o *lsOptions) annotate(ctx context.Context, r *run, c listClient, chk releaseChecker, rows []kube.ReleaseRow) error {
	var todo []*kube.RevisionRow
	for i := range rows {
		todo = append(todo, &rows[i].Latest)
	}
	cfg := c.Config()
	if o.apis.on {
		// Discovery first: the controllers' discovery below then reads the
		// same pass (kube.Client.Discovery), one pass in all.
		var err error
		if o.apis.served, err = chk.ServedAPIs(ctx); err != nil {
			return err
		}
	}
	// What reconciles each release; an OLMv1 extension's also tells its release's
	// namespace, package and bundle, so that its rows need no read of their
	// records' data (one cluster-scoped list of ClusterExtensions).
	if ctls, err := owner.Read(ctx, c, cfg.Namespace); err != nil {
		fmt.Fprintf(r.stderr, "Warning: the controllers of the releases (Flux HelmReleases, OLMv1 ClusterExtensions) could not be read: %s\n", message(err))
	} else {
		ctls.Attach(todo)
		for _, kind := range []string{kube.KindHelmRelease, kube.KindClusterExtension} {
			if why := ctls.Unreadable()[kind]; why != "" {
				fmt.Fprintf(r.stderr, "Note: %ss are %s: the releases they manage are not marked\n", kind, why)
			}
		}
	}
	// The rows of other tools' records get their chart and versions from their
	// index Secrets alone. -n across a storage namespace picks releases by their
	// own namespace, which only a decode reveals: those rows are decoded.
	fill := c.FillSummaries
	if !cfg.AllNamespaces && cfg.Namespace != "" && cfg.StorageNamespace != "" {
		fill = c.FillDetails
	}
	if err := fill(ctx, todo); err != nil {
		fmt.Fprintf(r.stderr, "Warning: some releases could not be decoded, their chart and size are not shown: %s\n", message(err))
	}
	if err := o.sizeNearLimit(ctx, c, todo); err != nil {
		fmt.Fprintf(r.stderr, "Warning: some releases could not be decoded to tell their size; they are listed: %s\n", message(err))
	}
	if err := chk.CheckHealth(ctx, todo); err != nil {
		fmt.Fprintf(r.stderr, "Warning: the chunk Secrets of some releases could not be checked (marked unchecked): %s\n", message(err))
	}
	if strings.HasPrefix(cfg.DriversFrom, "HELM_DRIVER") {
		// HELM_DRIVER is set for helm; its narrowing here is easy to miss.
		fmt.Fprintf(r.stderr, "Note: %s\n", c.Config().NarrowedNote())
	}
	return nil
}

// items are the releases ls lists, in the order it shows them: -n keeps those
// whose own namespace it is, --near-limit those that fill their store's limit
// that far.
func (o *lsOptions) items(c listClient, rows []kube.ReleaseRow) Releases {
	cfg := c.Config()
	out := Releases{Releases: []ReleaseItem{}}
	for i, rr := range rows {
		it := releaseItem(rr)
		it.latest, it.release = &rows[i].Latest, &rows[i]
		it.Stuck, it.InProgress = kube.Stuck(rr.Latest, c.Now(), c.StuckAfter())
		it.verify = cfg.SuggestFor(rr.Latest, "verify")
		// -n narrows by the release's own namespace, which records of
		// other tools reveal only once decoded (not when peeked).
		if !cfg.AllNamespaces && cfg.Namespace != "" && rr.Latest.Known && !rr.Latest.Peeked && it.Namespace != cfg.Namespace {
			continue
		}
		if o.nearLimit > 0 && rr.Latest.FillAtMost()*100 < o.nearLimit {
			continue
		}
		out.Releases = append(out.Releases, it)
	}
	// Sorted as shown: by the release's namespace, which with a storage
	// namespace is not where the records are.
	sort.SliceStable(out.Releases, func(i, j int) bool {
		a, b := out.Releases[i], out.Releases[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// print prints the releases in the format asked for.
func (o *lsOptions) print(r *run, c listClient, out Releases) error {
	switch {
	case o.filter.short:
		for _, it := range out.Releases {
			fmt.Fprintln(r.stdout, it.Name)
		}
	case o.format == FormatName:
		for _, it := range out.Releases {
			fmt.Fprintln(r.stdout, objectName(it.Driver, storage.RecordKey(it.Name, it.Revision)))
		}
	case isTemplate(o.format):
		return printTemplate(r.stdout, o.format, out, "releases", o.filter.noHeaders)
	case isTable(o.format):
		r.printReleases(out, o.format == FormatWide, o.filter.noHeaders, o.apis.health)
		o.apis.warn(r, c, out.Releases)
	default:
		return printStructured(r.stdout, o.format, out)
	}
	return nil
}

// sizeNearLimit decodes, for --near-limit, the rows whose size is not known but
// whose bound (RevisionRow.StoredAtMost) reaches the threshold: so that the
// filter decides on their real size. A row whose bound stays under it is
// certainly under it; a row that cannot be decoded is kept, by its bound.
func (o *lsOptions) sizeNearLimit(ctx context.Context, c listClient, rows []*kube.RevisionRow) error {
	if o.nearLimit <= 0 {
		return nil
	}
	var near []*kube.RevisionRow
	for _, r := range rows {
		if r.Peeked && r.Fill() == 0 && r.FillAtMost()*100 >= o.nearLimit {
			near = append(near, r)
		}
	}
	return c.FillDetails(ctx, near)
}

func (r *run) lsCommand() *cobra.Command {
	o := &lsOptions{}
	cmd := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List releases: one row per release with its latest revision",
		Long: `List releases, one row per release with its latest revision: NAME, NAMESPACE,
REVISION, STATUS, CHART, APP VERSION, UPDATED, HEALTH and FILL, fitted to the
terminal; -o wide adds STORE, CHUNKS, SIZE, REVISIONS, HISTORY and LAST DEPLOYED.

The listing reads Secret metadata only; for revisions stored without chunkview's
summary annotations (written by another tool) it reads the index Secret, whose first
slice holds the chart and versions: their SIZE and FILL show '-' (not known without
reading every chunk; -o json gives storedBytesAtMost), unless they fit in one Secret.
-o wide's HISTORY is what all the stored revisions take (historyBytes in -o json),
from what the listing read: every revision chunkview wrote, and the records of
Helm's stores that are not superseded; "≥" marks a sum that leaves some out.
--near-limit decodes those that may be near the limit. One more metadata list checks that the chunk Secrets of every latest
revision are there. HEALTH says what was found: ok, broken (cannot be decoded, or
chunk Secrets missing; listed anyway), writing (another writer is storing it right
now), unchecked (with the reason in -o json), or blocked: a create of the next
revision was interrupted and left its pending index, which fails every create of
that revision until gc removes it (pendingIndex in -o json). verify decodes every
chunk.

--removed-apis lists only the releases Helm can no longer upgrade: their latest
revision's manifest or hooks use an API version the cluster does not serve (one
discovery pass, then each latest revision decoded; superseded ones are not read).
HEALTH says removed-apis, -o json lists each object in removedAPIs with its served
successor, and stderr names them with the fix-apis command. --kube-version 1.38
adds the releases whose APIs that release no longer serves, by k8s.io/api's
lifecycle data (HEALTH removed-in-1.38).

As helm ls, it hides releases whose latest revision is superseded or uninstalled
(-a, --superseded or --uninstalled show them); unlike helm ls, it shows pending
and uninstalling ones by default, since a release stuck there blocks the next
upgrade. --superseded lists releases, not helm's superseded revisions: history
lists those. --max defaults to all releases, where helm's 256 cuts a long list
without saying so.`,
		Example: `  chunkview ls -A
  chunkview ls -a -r -m 20
  chunkview ls -n monitoring --failed --pending
  chunkview ls -A -f '^pay' -q
  chunkview ls --profile olmv1 -o json
  chunkview ls -A --removed-apis --kube-version 1.38`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && cmd.Flags().Changed("near-limit") {
				if _, err := strconv.ParseFloat(args[0], 64); err == nil {
					// --near-limit's percentage is optional, so it must be joined.
					return usageErrorf("--near-limit takes its percentage after '=': --near-limit=%s", args[0])
				}
			}
			return exactArgs(0, "no arguments")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addListOutputFlag(cmd, &o.format)
	o.filter.addFlags(cmd)
	cmd.Flags().Float64Var(&o.nearLimit, "near-limit", 0, "show only releases whose latest revision fills at least this percentage of its store's limit (--near-limit alone: 80)")
	cmd.Flags().Lookup("near-limit").NoOptDefVal = "80"
	cmd.Flags().BoolVar(&o.apis.on, "removed-apis", false, "show only releases Helm can no longer upgrade: their latest revision uses an API the cluster does not serve (one discovery pass; each latest revision decoded)")
	cmd.Flags().StringVar(&o.apis.kubeVersion, "kube-version", "", "with --removed-apis, also the releases whose APIs this Kubernetes release (1.38) no longer serves, from k8s.io/api's lifecycle data")
	return cmd
}

// nothingFound says where ls looked and what to try instead.
func (r *run) nothingFound(cfg kube.Config) string {
	where := fmt.Sprintf("namespace %q", cfg.Namespace)
	switch {
	case cfg.StorageNamespace != "" && cfg.Namespace != "" && !cfg.AllNamespaces:
		where = fmt.Sprintf("storage namespace %q for namespace %q", cfg.StorageNamespace, cfg.Namespace)
	case cfg.StorageNamespace != "":
		where = fmt.Sprintf("storage namespace %q", cfg.StorageNamespace)
	case cfg.AllNamespaces:
		where = "any namespace"
	}
	hint := "try -A for every namespace, --owner for the owner label your operator uses, or --profile olmv1 for OLMv1"
	if cfg.AllNamespaces {
		hint = "try --owner for the owner label your operator uses, --storage-namespace, or --profile olmv1 for OLMv1"
	}
	return fmt.Sprintf("no releases with owner %q in %s; %s", cfg.Owner, where, hint)
}

// headOnlyNote says what a listing could not learn of the releases it read from
// the head of their latest revision alone (records kept in a storage namespace,
// without the ClusterExtension that would tell the rest: the user may not list
// them, or the extension is gone): their own namespace, at the end of the
// payload, and their size; "" when there are none.
func headOnlyNote(items []ReleaseItem) string {
	var names []string
	for _, it := range items {
		if it.latest != nil && it.latest.NamespaceUnknown {
			names = append(names, it.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	n := len(names)
	if n > 3 {
		names = append(names[:3], "...")
	}
	return fmt.Sprintf("only the head of each latest revision was read for %s (%s), without a ClusterExtension to say more: "+
		"their own namespace (shown ?) and their size are not known; history NAME or inspect NAME reads one whole",
		human.Plural(n, "release", "releases"), strings.Join(names, ", "))
}
