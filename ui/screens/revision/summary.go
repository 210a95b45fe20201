package revision

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// renderSummary is the first tab of a revision: where its record is kept and in
// which store, what it deployed, and, for a record a newer Helm wrote, why
// chunkview will not rewrite it. A long field (the Description, a failure's
// reason) wraps at width under its value, never cut. It is pure.
func renderSummary(st *theme.Styles, d *kube.Details, now time.Time, readOnly bool, width int) string {
	r := d.Row
	var b strings.Builder
	field := func(name, value string) {
		b.WriteString(st.Dim.Render(fmt.Sprintf("%-13s", name)) + value + "\n")
	}
	// wrapped is a field whose value wraps under itself: 13 cells in.
	wrapped := func(name, value string) {
		lines := strings.Split(human.WrapCells(value, max(width-13, 20)), "\n")
		field(name, strings.Join(lines, "\n"+strings.Repeat(" ", 13)))
	}
	sc := common.StatusCell(st, r)
	statusText := sc.Text
	if sc.Style != nil {
		statusText = sc.Style.Render(sc.Text)
	}
	field("Release", fmt.Sprintf("%s (namespace %s)", r.Name, common.ReleaseNamespace(r)))
	field("Revision", fmt.Sprintf("%d  %s", r.Revision, statusText))
	field("Record", fmt.Sprintf("%s in %s", r.Key, r.StorageNamespace))
	field("Store", fmt.Sprintf("%s (%s)", kube.DriverLabel(common.StoreOf(r.Driver)), common.StoreDescription(r.Driver)))
	if r.ApplyMethod != "" {
		field("Apply method", r.ApplyMethod+" (Helm 4)")
	}
	if len(r.UnknownFields) > 0 {
		// kube refuses these operations itself; saying so here spares the
		// person a plan that ends in a refusal.
		b.WriteString("\n" + st.Warning.Render(table.Wrap(fmt.Sprintf("⚠ Written by a newer Helm: this record has fields Helm 3 does not know (%s). Rollback, uninstall and the stuck-release fixes will be refused here, since Helm 3 would drop those fields when it rewrites the record: use Helm 4 for them.",
			strings.Join(r.UnknownFields, ", ")), 78)) + "\n\n")
	}
	if r.Broken || d.Release == nil {
		b.WriteString(unreadableSummary(st, r, readOnly, width))
		return b.String()
	}
	rls := d.Release
	sum := r.Summary
	field("Chart", fmt.Sprintf("%s (app version %s)", common.ChartText(r), human.OrUnknown(sum.AppVersion)))
	if rls.Info != nil {
		field("Deployed", fmt.Sprintf("%s (%s ago)", human.Minute(rls.Info.LastDeployed.Time), human.Age(now, rls.Info.LastDeployed.Time)))
		if !rls.Info.FirstDeployed.IsZero() {
			field("First", human.Minute(rls.Info.FirstDeployed.Time))
		}
		wrapped("Description", table.OneLine(rls.Info.Description))
	}
	field("Stored", storedText(r))
	if sum.PayloadSHA256 != "" {
		field("Payload", "sha256 "+sum.PayloadSHA256)
	}
	field("Resources", resourcesText(rls.Manifest))
	field("Hooks", table.Itoa(len(rls.Hooks)))
	if len(rls.Labels) > 0 {
		var ls []string
		for k, v := range rls.Labels {
			ls = append(ls, k+"="+v)
		}
		sort.Strings(ls)
		field("Labels", strings.Join(ls, ", "))
	}
	b.WriteString("\n" + st.Dim.Render("2: values · 3: manifest · 4: notes · 5: hooks · c: "+common.LayoutNoun(r.Driver)+" · d: diff with the revision before"))
	return b.String()
}

// unreadableSummary says a revision cannot be read, why, and the ways on.
func unreadableSummary(st *theme.Styles, r kube.RevisionRow, readOnly bool, width int) string {
	var b strings.Builder
	b.WriteString("\n" + st.ErrorBold.Render("✗ This revision cannot be read.") + "\n")
	b.WriteString(st.Error.Render(table.Wrap(table.OneLine(r.Problem), max(width, 20))) + "\n\n")
	fix := "\nFrom the history, X deletes this revision's record, or R on a good revision rolls back to it."
	if readOnly {
		fix = "\nDeleting the record or rolling back is off (read-only)."
	}
	where := "c: the chunk layout shows which Secret is missing or damaged."
	if common.IsHelmStore(r.Driver) {
		where = "c: the record layout shows what the " + common.ObjectNoun(r.Driver) + " holds."
	}
	b.WriteString(st.Dim.Render(where+fix) + "\n")
	return b.String()
}

// storedText is the Stored field: the record's size as it is kept, and as JSON.
func storedText(r kube.RevisionRow) string {
	sum := r.Summary
	stored := fmt.Sprintf("%s gzip in %d Secret(s)", human.Bytes(sum.StoredBytes), sum.Chunks)
	if common.IsHelmStore(r.Driver) {
		stored = fmt.Sprintf("%s (base64 of gzip) in one %s", human.Bytes(sum.StoredBytes), common.ObjectNoun(r.Driver))
		if f := r.Fill(); f > 0 {
			stored += fmt.Sprintf(", %.0f%% of %s", f*100, common.LimitSize(r.LimitBytes))
		}
	}
	if sum.DecodedBytes > 0 {
		stored += fmt.Sprintf("; %s as JSON", human.Bytes(sum.DecodedBytes))
	}
	return stored
}

// resourcesText is the Resources field: how many objects the manifest holds,
// and of which kinds, by name.
func resourcesText(manifest string) string {
	res := revdiff.SplitManifest(manifest)
	kinds := map[string]int{}
	for _, x := range res {
		kinds[x.Kind]++
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, kinds[k]))
	}
	return fmt.Sprintf("%d: %s", len(res), strings.Join(parts, ", "))
}
