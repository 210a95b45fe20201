package chunks

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// helmExplainer is the paragraph that makes sense of a record of Helm's own
// drivers: one object, and the limit that comes with it.
func helmExplainer(d string) string {
	obj := common.ObjectNoun(d)
	what := "one Secret of type helm.sh/release.v1"
	if common.StoreOf(d) == kube.DriverConfigMap {
		what = "one ConfigMap"
	}
	return fmt.Sprintf("How Helm's %ss driver stores a release: the release is gzipped, base64-encoded and kept whole in %s per revision. The API server refuses a %s holding over 1 MiB, so a revision that grows past it cannot be written.", obj, what, obj)
}

// helmLayoutColumns are the columns of a record of Helm's own drivers: no hash or
// owner, which only chunks carry; the object's type instead.
var helmLayoutColumns = []table.Column{
	{Title: "NAME", Width: 14, Flex: 2},
	{Title: "ROLE", Width: 6, Prio: 2},
	{Title: "TYPE", Width: 18, Prio: 1},
	{Title: "BYTES", Width: 8, Right: true},
	{Title: "OF 1 MiB", Width: 12, Flex: 1, Prio: 3},
	{Title: "STATE", Width: 12},
}

// renderHelmLayout draws how a revision of Helm's Secrets or ConfigMaps store
// (d) is kept: its one object against the 1 MiB limit, the totals, and what takes
// the space. It is pure.
func renderHelmLayout(st *theme.Styles, l *storage.Layout, d string, width int) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }
	obj := common.ObjectNoun(d)
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	add(st.Title.Render(table.Line1(width, head)))
	add(st.Explainer.Render(human.WrapCells(helmExplainer(d), width)))
	add("")

	cols := table.FitColumns(helmLayoutColumns, width)
	cols[0].Title = strings.ToUpper(obj)
	add(table.RenderHeader(cols, &st.TableHeader))
	info := l.Index
	state, stStyle := stateCell(st, info.State)
	pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
	mark, fillSt := common.FillStyle(st, info.Share)
	barWidth := max(table.ColWidth(cols, "OF 1 MiB")-len(pct)-1, 1)
	cells := map[string]table.Cell{
		cols[0].Title: table.Plain(table.FitLeft(info.Name, cols[0].Width)),
		"ROLE":        table.Plain(human.OrUnknown(info.Role)),
		"TYPE":        table.Plain(human.OrUnknown(info.Type)),
		"BYTES":       table.Plain(human.Bytes(int64(info.Bytes))),
		"OF 1 MiB":    {Text: table.Bar(info.Share, barWidth, fillSt, &st.GaugeEmpty) + fillSt.Render(pct+mark)},
		"STATE":       state,
	}
	add(table.RenderRow(cols, cells, "  "))
	if info.State != storage.StateOK && info.Detail != "" {
		add("    " + stStyle.Render(table.Line1(width-6, "↳ "+info.Detail)))
	}
	add("")

	if l.Broken() {
		add(st.ErrorBold.Render(human.WrapCells("✗ This revision cannot be read: "+table.OneLine(l.DecodeError), width)), "")
	}

	add(st.Bold.Render("Totals"))
	limit := int64(storage.HelmRecordLimit)
	verdict := st.OK.Render(fmt.Sprintf("%s to spare", human.Bytes(max(limit-int64(l.StoredBytes), 0))))
	if !l.HelmSecretFits {
		verdict = st.ErrorBold.Render("over the limit: the API server refuses it")
	}
	add(fmt.Sprintf("  Stored (base64 of gzip)  %s in one %s: %.0f%% of %s, ", human.Bytes(int64(l.StoredBytes)), obj, info.Share*100, common.LimitSize(limit)) + verdict)
	if l.DecodedBytes > 0 {
		ratio := float64(l.DecodedBytes) / float64(max(l.StoredBytes, 1))
		add(fmt.Sprintf("  Decompressed (JSON)      %s (%.1f× the stored size)", human.Bytes(int64(l.DecodedBytes)), ratio))
	}
	if info.Share >= common.FillWarn {
		add("", fillSt.Render(human.WrapCells(fmt.Sprintf("%s This record takes %.0f%% of what one %s may hold. %s", mark, info.Share*100, obj, fit.Growth{}.Advice(common.StoreOf(d))), width)))
	}
	if len(l.Parts) > 0 {
		add("", st.Bold.Render("What takes the space"))
		add(st.Dim.Render(human.WrapCells("Each part compressed on its own, so they add up to more than the whole.", width)))
		add(renderParts(st, l.Parts, width)...)
	}
	return strings.Join(lines, "\n")
}
