package releases

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// detailLines describe the selected release below the table: what is wrong with
// it and the key that leads to the fix, or its chart and description. The last
// line is the filter.
func (s *Screen) detailLines() []string {
	var first, second string
	if s.err != nil {
		first = s.Styles.Error.Render(table.Line1(s.Width, "✗ Refresh failed, showing the last list: "+common.ShortError(s.err)))
	} else if it := s.Selected(); it != nil {
		first, second = s.releaseLines(it)
	}
	return []string{first, second, s.filterLine()}
}

// releaseLines say what is wrong with release it and the key that leads to
// the fix, worst first; else its chart, app version, revisions and
// description.
func (s *Screen) releaseLines(it *ReleaseItem) (first, second string) {
	st := s.Styles
	l := it.Row.Latest
	_, inProgress := kube.Stuck(l, s.Now(), s.Client.StuckAfter())
	line := func(style *lipgloss.Style, text string) string { return style.Render(table.Line1(s.Width, text)) }
	// hint is the key to press, or what read-only mode turns off.
	hint := func(rw, ro string) string {
		if s.ReadOnly() {
			return line(&st.Dim, ro)
		}
		return line(&st.Dim, rw)
	}
	since := human.Span(s.Now().Sub(l.Updated))
	switch {
	case it.Err != nil:
		return line(&st.Error, "✗ "+common.ShortError(it.Err)), ""
	case l.Broken:
		return line(&st.ErrorBold, fmt.Sprintf("✗ %s revision %d %s", l.Name, l.Revision, common.ProblemLine(l))),
			hint("  c: which Secret is at fault · enter: history, to roll back or delete the revision",
				"  c: which Secret is at fault · enter: history (read-only: repairs are off)")
	case s.apisLine(l) != nil:
		fix := "enter, then A: fix-apis"
		if s.ReadOnly() {
			fix = "read-only: fix-apis is off"
		}
		return common.CannotUpgradeLines(st, l.Name, *s.apisLine(l), fix, s.Width)
	case l.PendingIndex != nil:
		p := l.PendingIndex
		return line(&st.Warning, fmt.Sprintf("⚠ %s revision %d was never written: a create of it was cut off %s ago, and its pending index fails every create of revision %d until removed.",
				l.Name, p.Revision, human.Span(s.Now().Sub(p.Created)), p.Revision)),
			line(&st.Dim, fmt.Sprintf("  chunkview gc -n %s removes it (chunkview verify reports it)", l.StorageNamespace))
	case inProgress:
		// An operation that has just started: not something to fix.
		return line(&st.Warning, fmt.Sprintf("◔ %s has been %s for %s: an operation is in progress.", l.Name, l.Status, since)),
			line(&st.Dim, fmt.Sprintf("  it counts as stuck after %s (--stuck-after) · enter: history", human.Span(s.Client.StuckAfter())))
	case kube.InFlight(l.Status):
		return line(&st.Warning, fmt.Sprintf("◔ %s has been %s for %s; if no Helm operation is running, it is stuck.", l.Name, l.Status, since)),
			hint("  enter: history, then F to fix the stuck release", "  enter: history (read-only: fixing it is off)")
	case l.Status == "failed":
		return line(&st.Error, fmt.Sprintf("✗ %s failed: %s", l.Name, table.OneLine(l.Summary.Description))),
			hint("  enter: history, then R on a good revision to roll back", "  enter: history, to see what changed (read-only: rollback is off)")
	case l.Fill() >= common.FillWarn:
		mark, style := common.FillStyle(st, l.Fill())
		return line(style, fmt.Sprintf("%s %s takes %.0f%% of the %s its store allows one revision (%s).",
				mark, l.Name, l.Fill()*100, common.LimitSize(l.LimitBytes), kube.DriverLabel(common.StoreOf(l.Driver)))),
			line(&st.Dim, "  enter: history, for the revision that will not fit and what to do")
	case l.Known:
		return line(&st.Dim, fmt.Sprintf("%s · app %s · %s · %s", common.ChartText(l), human.OrUnknown(l.Summary.AppVersion), common.RevisionsText(it.Row), table.OneLine(l.Summary.Description))), ""
	}
	return "", ""
}

// filterLine is the filter being typed, the filter in force, or how many
// releases the list holds and from where.
func (s *Screen) filterLine() string {
	st := s.Styles
	switch {
	case s.filtering:
		return s.filter.View()
	case s.filter.Value() != "":
		return st.Accent.Render(fmt.Sprintf("filter: %s (%d of %d; esc clears)", s.filter.Value(), len(s.Shown), len(s.Items)))
	}
	filter := st.Dim.Render(human.Plural(len(s.Items), "release", "releases"))
	switch {
	case s.partial != nil && s.skipped != nil:
		filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %d releases, from %s only; %s",
			len(s.Items), strings.Join(s.partial.Read, ", "), common.SkipNote(s.skipped))))
	case s.partial != nil:
		filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %d releases, from %s only: other namespaces may not be read (--namespaces names more)",
			len(s.Items), strings.Join(s.partial.Read, ", "))))
	case s.skipped != nil:
		filter = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("⚠ %s; %s", human.Plural(len(s.Items), "release", "releases"), common.SkipNote(s.skipped))))
	}
	if n := len(s.Inflight); n > 0 {
		filter += st.Dim.Render(fmt.Sprintf(" · reading %d…", n))
	}
	return filter
}
