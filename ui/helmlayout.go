package ui

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// helmExplainer is the paragraph that makes sense of a record of Helm's own
// drivers: one object, and the limit that comes with it.
func helmExplainer(d string) string {
	obj := objectNoun(d)
	what := "one Secret of type helm.sh/release.v1"
	if storeOf(d) == kube.DriverConfigMap {
		what = "one ConfigMap"
	}
	return fmt.Sprintf("How Helm's %ss driver stores a release: the release is gzipped, base64-encoded and kept whole in %s per revision. The API server refuses a %s holding over 1 MiB, so a revision that grows past it cannot be written.", obj, what, obj)
}

// helmLayoutColumns are the columns of a record of Helm's own drivers: no hash or
// owner, which only chunks carry; the object's type instead.
var helmLayoutColumns = []column{
	{title: "NAME", width: 14, flex: 2},
	{title: "ROLE", width: 6, prio: 2},
	{title: "TYPE", width: 18, prio: 1},
	{title: "BYTES", width: 8, right: true},
	{title: "OF 1 MiB", width: 12, flex: 1, prio: 3},
	{title: "STATE", width: 12},
}

// renderHelmLayout draws how a revision of Helm's Secrets or ConfigMaps store
// (d) is kept: its one object against the 1 MiB limit, the totals, and what takes
// the space. It is pure.
func renderHelmLayout(st *Styles, l *storage.Layout, d string, width int) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }
	obj := objectNoun(d)
	head := fmt.Sprintf("Record %s · revision %d", l.Key, l.Revision)
	if l.Status != "" {
		head += " · " + l.Status
	}
	add(st.Title.Render(line1(width, head)))
	add(st.Explainer.Render(wrap(helmExplainer(d), width)))
	add("")

	cols := fitColumns(helmLayoutColumns, width)
	cols[0].title = strings.ToUpper(obj)
	add(renderHeader(cols, &st.TableHeader))
	info := l.Index
	state, stStyle := st.stateCell(info.State)
	pct := fmt.Sprintf(" %3.0f%%", info.Share*100)
	mark, fillSt := st.fillStyle(info.Share)
	barWidth := max(colWidth(cols, "OF 1 MiB")-len(pct)-1, 1)
	cells := map[string]cell{
		cols[0].title: plain(fitLeft(info.Name, cols[0].width)),
		"ROLE":        plain(human.OrUnknown(info.Role)),
		"TYPE":        plain(human.OrUnknown(info.Type)),
		"BYTES":       plain(human.Bytes(int64(info.Bytes))),
		"OF 1 MiB":    {text: bar(info.Share, barWidth, fillSt, &st.GaugeEmpty) + fillSt.Render(pct+mark)},
		"STATE":       state,
	}
	add(renderRow(cols, cells, "  "))
	if info.State != storage.StateOK && info.Detail != "" {
		add("    " + stStyle.Render(line1(width-6, "↳ "+info.Detail)))
	}
	add("")

	if l.Broken() {
		add(st.ErrorBold.Render(wrap("✗ This revision cannot be read: "+oneLine(l.DecodeError), width)), "")
	}

	add(st.Bold.Render("Totals"))
	limit := int64(storage.HelmRecordLimit)
	verdict := st.OK.Render(fmt.Sprintf("%s to spare", human.Bytes(max(limit-int64(l.StoredBytes), 0))))
	if !l.HelmSecretFits {
		verdict = st.ErrorBold.Render("over the limit: the API server refuses it")
	}
	add(fmt.Sprintf("  Stored (base64 of gzip)  %s in one %s: %.0f%% of %s, ", human.Bytes(int64(l.StoredBytes)), obj, info.Share*100, limitSize(limit)) + verdict)
	if l.DecodedBytes > 0 {
		ratio := float64(l.DecodedBytes) / float64(max(l.StoredBytes, 1))
		add(fmt.Sprintf("  Decompressed (JSON)      %s (%.1f× the stored size)", human.Bytes(int64(l.DecodedBytes)), ratio))
	}
	if info.Share >= fillWarn {
		add("", fillSt.Render(wrap(fmt.Sprintf("%s This record takes %.0f%% of what one %s may hold. %s", mark, info.Share*100, obj, kube.Growth{}.Advice(storeOf(d))), width)))
	}
	if len(l.Parts) > 0 {
		add("", st.Bold.Render("What takes the space"))
		add(st.Dim.Render(wrap("Each part compressed on its own, so they add up to more than the whole.", width)))
		add(renderParts(st, l.Parts, width)...)
	}
	return strings.Join(lines, "\n")
}
