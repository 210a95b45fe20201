package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
	"github.com/chunkview/chunkview/render"
)

// History is the output of `history`.
type History struct {
	Release string `json:"release"`
	// Driver is the store that holds the release's records.
	Driver string `json:"driver"`
	// LimitBytes is the most the store holds for one revision (see ReleaseItem).
	LimitBytes int64 `json:"limitBytes"`
	// Forecast is where the stored size is heading: at which revision, at the
	// recent growth, the release will not fit its store.
	Forecast fit.Growth `json:"forecast"`
	// StorageNamespace holds the release's index and chunk Secrets.
	StorageNamespace string `json:"storageNamespace"`
	// Controller is what reconciles the release, when something does: a Flux
	// HelmRelease (with its Ready condition, whether it is suspended, the chart
	// version it last attempted) or an OLMv1 ClusterExtension.
	Controller *kube.Controller `json:"controller,omitempty"`
	// ControlledBy is "Kind/Name" of the latest record's controller
	// ownerReference: "ClusterExtension/NAME" for an OLMv1 release.
	ControlledBy string `json:"controlledBy,omitempty"`
	// Labels are the custom labels on the latest record's metadata.
	Labels map[string]string `json:"labels,omitempty"`
	// ClusterExtension is what OLMv1 says of the extension that owns the
	// release, when its API is served (absent otherwise).
	ClusterExtension *kube.ClusterExtension `json:"clusterExtension,omitempty"`
	// Revisions are oldest first.
	Revisions []RevisionItem `json:"revisions"`
}

// RevisionItem is one revision in `history`.
type RevisionItem struct {
	Revision     int    `json:"revision"`
	Status       string `json:"status"`
	Chart        string `json:"chart"`
	ChartVersion string `json:"chartVersion"`
	AppVersion   string `json:"appVersion"`
	Description  string `json:"description"`
	// Updated is when the revision was last deployed (info.last_deployed, as
	// helm history shows it), or, where only its record's metadata was read,
	// when the record was last written; UpdatedFrom says which
	// ("last_deployed" or "written").
	Updated     time.Time `json:"updated,omitzero"`
	UpdatedFrom string    `json:"updatedFrom,omitempty"`
	// Chunks is the number of Secrets of the revision (index included).
	Chunks int `json:"chunks"`
	// StoredBytes is what the revision takes in its store (see ReleaseItem).
	StoredBytes int64 `json:"storedBytes"`
	// ApplyMethod is Helm 4's apply_method of the revision, if any.
	ApplyMethod string `json:"applyMethod,omitempty"`
	// Key is the record's name: the index Secret, or Helm's Secret or ConfigMap.
	Key string `json:"key"`
	// Broken is set when the revision could not be decoded or misses chunk
	// Secrets; Problem says why.
	Broken  bool   `json:"broken"`
	Problem string `json:"problem,omitempty"`
	// Checked, Unchecked and Writing are as in ReleaseItem.
	Checked   bool   `json:"checked"`
	Unchecked string `json:"unchecked,omitempty"`
	Writing   bool   `json:"writing,omitempty"`
}

func revisionItem(r kube.RevisionRow) RevisionItem {
	it := RevisionItem{Revision: r.Revision, Status: r.Status, Updated: r.Updated, UpdatedFrom: r.UpdatedFrom, Key: r.Key, Broken: r.Broken, Problem: r.Problem, ApplyMethod: r.ApplyMethod,
		Checked: r.Checked, Unchecked: r.Unchecked, Writing: r.Writing}
	if r.Known {
		s := r.Summary
		it.Chart, it.ChartVersion, it.AppVersion, it.Description = s.Chart, s.ChartVersion, s.AppVersion, s.Description
		it.Chunks, it.StoredBytes = s.Chunks, s.StoredBytes
	}
	return it
}

// historyOptions are the flags and argument of `history`, in kubectl's shape.
type historyOptions struct {
	name      string
	format    string
	max       int
	noHeaders bool
	// watch keeps printing rows as revisions are added or change (-w).
	watch bool
}

// Complete takes the release name from args.
func (o *historyOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the output format and --max.
func (o *historyOptions) Validate() error {
	if err := checkListFormat(o.format); err != nil {
		return err
	}
	if o.max < 0 {
		return usageErrorf("--max %d: want 0 (all) or more", o.max)
	}
	if o.watch && !isTable(o.format) && o.format != FormatJSON {
		return usageErrorf("--watch prints a table, or JSON objects one after another (-o json); -o %s is not printed as it changes", o.format)
	}
	return nil
}

// Run lists the release's revisions, checks them and prints them.
func (o *historyOptions) Run(ctx context.Context, r *run) error {
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	health := kube.NewChecker(c)
	var live *historyWatch
	if o.watch {
		// Watching starts before the listing, so that nothing written in
		// between is missed.
		if live, err = startHistoryWatch(ctx, c, health, ns, o.name); err != nil {
			return err
		}
		defer live.stop()
	}
	return o.list(ctx, r, c, health, ns, live)
}

// list lists the release's revisions in namespace ns through c, checks them
// with health and prints them, then follows live (--watch) when set.
func (o *historyOptions) list(ctx context.Context, r *run, c readClient, health healthChecker, ns string, live *historyWatch) error {
	rows, err := c.History(ctx, ns, o.name)
	if err != nil {
		return err
	}
	rows = lastRevisions(rows, o.max)
	ptrs := make([]*kube.RevisionRow, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i]
	}
	if err := c.FillDetails(ctx, ptrs); err != nil {
		fmt.Fprintf(r.stderr, "Warning: some revisions could not be decoded: %s\n", message(err))
	}
	if o.format == FormatWide {
		// APPLY METHOD: chunked records keep it at their end, out of their
		// index's summary, so each is decoded. -o json keeps to the
		// listing's two requests and has it where the listing read it.
		if err := c.FillApplyMethods(ctx, ptrs); err != nil {
			fmt.Fprintf(r.stderr, "Warning: the apply method of some revisions could not be read: %s\n", message(err))
		}
	}
	if err := health.CheckHealth(ctx, ptrs); err != nil {
		fmt.Fprintf(r.stderr, "Warning: the chunk Secrets of some revisions could not be checked (marked unchecked): %s\n", message(err))
	}
	latest := rows[len(rows)-1]
	out := History{Release: o.name, Driver: rows[0].Driver, StorageNamespace: rows[0].StorageNamespace, LimitBytes: rows[0].LimitBytes,
		Forecast: fit.ForecastRows(rows), Revisions: make([]RevisionItem, 0, len(rows)),
		ControlledBy: latest.ControlledBy, Labels: latest.Labels}
	if o.format != FormatName {
		out.ClusterExtension = owner.Extension(ctx, c, kube.ExtensionName(latest))
		if ctls, err := owner.Read(ctx, c, latest.StorageNamespace); err == nil {
			ctls.Attach([]*kube.RevisionRow{&latest})
			out.Controller, out.ControlledBy = latest.Controller, latest.ControlledBy
			if ctl, why := ctls.Of(latest); ctl == nil && why != "" {
				out.Controller = &kube.Controller{Kind: kube.KindHelmRelease, Unreadable: why}
			}
		}
	}
	for _, row := range rows {
		out.Revisions = append(out.Revisions, revisionItem(row))
	}
	var widths []int
	switch {
	case o.format == FormatName:
		for _, it := range out.Revisions {
			fmt.Fprintln(r.stdout, objectName(out.Driver, it.Key))
		}
		return nil
	case live != nil && o.format == FormatJSON:
		// One event a line, the revisions there already as ADDED, as
		// kubectl get -w -o json --output-watch-events prints them.
		for _, it := range out.Revisions {
			printWatchEvent(r.stdout, watchAdded, o.name, it)
		}
	case isTemplate(o.format):
		err = printTemplate(r.stdout, o.format, out, "revisions", o.noHeaders)
	case !isTable(o.format):
		err = printStructured(r.stdout, o.format, out)
	default:
		widths, err = r.printHistory(out, rows, o.format == FormatWide, o.noHeaders, live != nil)
	}
	if err != nil || live == nil {
		return err
	}
	return live.follow(ctx, r, o, rows, widths)
}

func (r *run) historyCommand() *cobra.Command {
	o := &historyOptions{}
	cmd := &cobra.Command{
		Use:     "history NAME",
		Aliases: []string{"hist"},
		Short:   "List the stored revisions of a release",
		Long: `List the stored revisions of a release, oldest first, from Secret metadata;
revisions written by another tool are decoded. One more metadata list checks that
every revision's chunk Secrets are there: HEALTH is ok, broken (with the reason),
writing (another writer is storing it right now) or unchecked (with the reason).

With --watch (-w), as kubectl get -w, it then prints a row each time a revision
is added, changes (pending-upgrade → deployed) or is deleted, from a metadata-only
watch, until Ctrl-C, which ends it with exit status 0. The rows line up under the
table. With -o json it prints one JSON object a line, each an event as kubectl's
--output-watch-events prints them: {"type": "ADDED"|"MODIFIED"|"DELETED",
"release": NAME, "revision": {...}}, the revisions already there first, as ADDED.`,
		Example: `  chunkview history my-release -n team-a
  chunkview history my-extension --profile olmv1 -o json
  chunkview history my-release -w`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addListOutputFlag(cmd, &o.format)
	cmd.Flags().IntVar(&o.max, "max", 256, "show at most this many revisions, the newest (0: all), as helm's history")
	cmd.Flags().BoolVar(&o.noHeaders, "no-headers", false, "leave the table's header line out")
	cmd.Flags().BoolVarP(&o.watch, "watch", "w", false, "after the table, print each revision as it is added or changes, until Ctrl-C")
	return cmd
}

// printHistory prints the revisions revs of out as a table; wide adds where
// each is stored.
// It returns the table's column widths, which the rows of --watch keep; for a
// watch, the columns whose values change as a revision moves on (status, size,
// health) are as wide as their longest value from the start.
func (r *run) printHistory(out History, revs []kube.RevisionRow, wide, noHeaders, watch bool) ([]int, error) {
	t := historyTable(revs, wide)
	var rows [][]string
	if !noHeaders {
		rows = append(rows, t.Head())
	}
	rows = append(rows, t.Texts()...)
	var widths []int
	if watch {
		// REVISION UPDATED STATUS CHART APP CHUNKS SIZE HEALTH
		widths = []int{0, 0, len("pending-rollback"), 0, 0, 0, len("1023.9 KiB"), len("unchecked")}
	}
	widths = columnWidths(widths, rows)
	if err := printAligned(r.stdout, rows, widths); err != nil {
		return nil, err
	}
	r.printExtension(out.ClusterExtension)
	r.printController(out.Controller)
	// Only a limit in reach is worth a line, and that line is a warning, on
	// stderr as kubectl's are: the table stays a table for scripts.
	if line := forecastLine(out); line != "" {
		fmt.Fprintf(r.stderr, "Warning: %s\n", line)
	}
	return widths, nil
}

// historyColumns are the columns of the history table; wide adds where each
// revision is stored. DESCRIPTION, the longest and most varied cell, is last,
// so that it is never padded: -o wide's columns come before it.
func historyColumns(wide bool) []string {
	cols := []string{"REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "CHUNKS", "SIZE", "HEALTH"}
	if wide {
		cols = append(cols, "STORAGE NS", "INDEX SECRET", "APPLY METHOD")
	}
	return append(cols, "DESCRIPTION")
}

// historyTable is the revisions rows as the history table prints them.
func historyTable(rows []kube.RevisionRow, wide bool) render.Table {
	return render.HistoryTable(rows, render.Options{}).Select(historyColumns(wide)...)
}

// forecastLine says, when the release will not fit its store within a few
// revisions at the recent growth, which revision and what to do; "" otherwise.
func forecastLine(h History) string {
	g := h.Forecast
	switch {
	case g.Limit <= 0:
		return ""
	case g.RevisionsLeft == 0:
		return fmt.Sprintf("Over the limit: revision %d takes %s of %s (%s). %s", g.FailsAt, human.Bytes(g.Last), human.Bytes(g.Limit), kube.DriverLabel(h.Driver), g.Advice(h.Driver))
	case g.Warn():
		return fmt.Sprintf("At %s%s per revision, revision %d will not fit: %s of %s (%.0f%%) now. %s",
			signed(g.PerRevision), human.Bytes(int64(max(g.PerRevision, -g.PerRevision))), g.FailsAt, human.Bytes(g.Last), human.Bytes(g.Limit), float64(g.Last)*100/float64(g.Limit), g.Advice(h.Driver))
	}
	return ""
}

// signed is the sign of a growth as sizes print it: what rounds to 0 B is +0 B,
// never -0 B.
func signed(f float64) string {
	if f <= -0.5 {
		return "-"
	}
	return "+"
}

// printExtension prints, after the history, what OLMv1 says of the extension that
// owns the release: its installed bundle and conditions, and whether its revisions
// have moved to ClusterObjectSets.
// printController says which Flux HelmRelease manages the release, and what
// that means for the operations.
func (r *run) printController(c *kube.Controller) {
	if c == nil || c.Kind != kube.KindHelmRelease {
		return
	}
	w := r.stdout
	if c.Unreadable != "" {
		fmt.Fprintf(w, "\nFlux HelmReleases are %s: whether one manages this release is not known.\n", c.Unreadable)
		return
	}
	state := "not suspended"
	if c.Suspended {
		state = "suspended"
	}
	fmt.Fprintf(w, "\nManaged by %s (%s): Ready %s", c.ID(), state, human.OrUnknown(c.Ready))
	if c.LastAttempted != "" {
		fmt.Fprintf(w, ", last attempted chart version %s", c.LastAttempted)
	}
	fmt.Fprintln(w)
	if !c.Suspended {
		fmt.Fprintf(w, "Rollback, uninstall, delete-revision and fix-stuck are refused while it reconciles the release: %s.\n", c.Pause())
	}
}

func (r *run) printExtension(e *kube.ClusterExtension) {
	if e == nil {
		return
	}
	w := r.stdout
	fmt.Fprintf(w, "\nClusterExtension %s", e.Name)
	if e.Unreadable != "" {
		fmt.Fprintf(w, ": not readable: %s\n", e.Unreadable)
		return
	}
	if b := e.Bundle; b.Name != "" {
		fmt.Fprintf(w, ": installed bundle %s (%s)", b.Name, human.OrUnknown(b.Version))
	}
	fmt.Fprintln(w)
	if len(e.Conditions) > 0 {
		tw := newTable(w)
		row(tw, "  TYPE", "STATUS", "REASON", "MESSAGE")
		for _, c := range e.Conditions {
			row(tw, "  "+c.Type, c.Status, human.OrUnknown(c.Reason), human.OrUnknown(c.Message))
		}
		tw.Flush()
	}
	switch {
	case e.Historical():
		fmt.Fprintf(w, "These Helm records are historical: OLMv1 keeps this extension's revisions as ClusterObjectSets now (%d); the newest is %s.\n", e.ObjectSets, e.ObjectSet)
	case e.ObjectSetsUnreadable != "":
		fmt.Fprintf(w, "ClusterObjectSets not readable: %s\n", e.ObjectSetsUnreadable)
	}
}
