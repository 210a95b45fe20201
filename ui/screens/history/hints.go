package history

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// detailParagraphs describe the selected revision, in three paragraphs, each
// on one line however long: what is wrong and which key fixes it, or its
// description and the keys that go further. Keys that would change the cluster
// are left out in read-only mode, and d is offered only where there is
// something to compare with. detailLines wraps them.
func (s *Screen) detailParagraphs() []string {
	st := s.Styles
	r := s.selected()
	var first, second, third string
	if s.err != nil {
		first = st.Error.Render(whole("✗ Refresh failed, showing the last history: " + common.ShortError(s.err)))
	}
	if r == nil {
		return []string{first, second, third}
	}
	ro := s.ReadOnly()
	latest := s.latest() != nil && s.latest().Revision == r.Revision
	diff := "d: diff with the one before"
	switch {
	case s.mark != 0 && s.mark != r.Revision:
		diff = "d: diff with the marked one"
	case s.previous() == nil:
		diff = "" // the first revision: nothing before it
	}
	err := s.rowErr[common.RowID(*r)]
	_, inProgress := kube.Stuck(*r, s.Now(), s.Client.StuckAfter())
	switch {
	case first != "":
	case err != nil:
		first = st.Error.Render(whole("✗ " + common.ShortError(err)))
	case r.Broken:
		first = st.ErrorBold.Render(whole(fmt.Sprintf("✗ Revision %d cannot be read: %s", r.Revision, table.OneLine(r.Problem))))
		hint := "  c: see which Secret is missing or damaged · X: delete this revision's record · R on a good revision: roll back to it"
		if ro {
			hint = "  c: see which Secret is missing or damaged (deleting it or rolling back is off: read-only)"
		}
		second = st.Dim.Render(whole(hint))
	case inProgress && latest:
		first = st.Warning.Render(whole(fmt.Sprintf("◔ %s for %s: an operation is in progress.", r.Status, human.Span(s.Now().Sub(r.Updated)))))
		second = st.Dim.Render(whole(fmt.Sprintf("  it counts as stuck after %s (--stuck-after); F then offers the ways out", human.Span(s.Client.StuckAfter()))))
	case kube.InFlight(r.Status) && latest:
		// Helm refuses upgrades while a revision is pending; its rollback
		// does run, and leaves this revision pending under the new one.
		first = st.Warning.Render(whole(fmt.Sprintf("◔ %s for %s: Helm refuses upgrades until it is fixed.", r.Status, human.Span(s.Now().Sub(r.Updated)))))
		hint := fmt.Sprintf("  F: ways out · R rolls back but leaves revision %d %s", r.Revision, r.Status)
		if ro {
			hint = "  read-only: fixing it is off"
		}
		second = st.Dim.Render(whole(hint))
	case s.hasAPIsLines(*r):
		first, second, _ = s.apisLines(*r)
	case r.Status == "failed":
		first = st.Error.Render(whole(fmt.Sprintf("✗ Revision %d failed: %s", r.Revision, table.OneLine(r.Summary.Description))))
		hint := hints("select a good revision and press R to roll back to it", diff)
		if ro {
			hint = hints(diff, "enter: values, manifest, notes")
		}
		second = st.Dim.Render(whole(hint))
	default:
		first = whole(fmt.Sprintf("Revision %d, %s: %s", r.Revision, human.Minute(r.Updated), common.KnownOr(*r, table.OneLine(r.Summary.Description))))
		hint := hints(diff, "enter: values, manifest, notes", "c: "+common.LayoutNoun(r.Driver))
		if !latest && !ro {
			hint = hints("R: roll back to this revision", diff, "enter: values, manifest, notes")
		}
		second = st.Dim.Render(whole(hint))
	}
	if len(r.UnknownFields) > 0 && !ro && s.mark == 0 {
		third = st.Dim.Render(whole("written by Helm 4: R, X, U and F run through Helm 4's actions, which keep its fields"))
	} else if s.mark != 0 {
		third = st.Marked.Render(whole(fmt.Sprintf("◆ revision %d marked: d compares it with the selected revision · space unmarks", s.mark)))
	} else if ro {
		third = st.Dim.Render(whole("read-only: rollback, delete, uninstall and fixes are off"))
	} else if d := s.deniedLine(); d != "" {
		third = st.Warning.Render(whole(d))
	}
	return []string{first, second, third}
}

// hints joins the hints given, indented, leaving out empty ones.
func hints(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return "  " + strings.Join(out, " · ")
}

// deniedLine names the actions the user may not run here and the permissions they
// lack; "" when every action may run or it is not known yet.
func (s *Screen) deniedLine() string {
	if s.perms == nil {
		return ""
	}
	var keys []string
	seen := map[string]bool{}
	var verbs []string
	for _, a := range s.historyOps() {
		missing := s.perms.Missing(a.op)
		if len(missing) == 0 {
			continue
		}
		keys = append(keys, a.key.Help().Key)
		for _, v := range missing {
			if !seen[v] {
				seen[v] = true
				verbs = append(verbs, v)
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	long := fmt.Sprintf("⊘ %s off: you may not %s secrets in %s (press one for why)",
		strings.Join(keys, " "), strings.Join(verbs, ", "), s.perms.Namespace)
	if ansi.StringWidth(long) <= s.Width {
		return long
	}
	return fmt.Sprintf("⊘ %s off: too few rights on secrets in %s; press one for why", strings.Join(keys, " "), s.perms.Namespace)
}

// whole is a paragraph of the detail on one line, its indent kept, never cut:
// detailLines wraps it.
func whole(s string) string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	return indent + table.OneLine(s)
}

// minTableRows is how many revisions the table keeps in view however long the
// detail under it: the detail's wrapped lines take the free lines first, then
// the rows past these.
const minTableRows = 3

// detailLines are the detail's paragraphs wrapped at the screen's width, a
// wrapped line indented as its paragraph, at least one line each (the layout
// of three lines holds when nothing wraps). The reason of a failure and the
// next step are never cut while the table has room to give (detailRoom); what
// still does not fit ends in "…" and e shows it whole.
func (s *Screen) detailLines() []string {
	var lines []string
	for _, p := range s.detailParagraphs() {
		indent := len(ansi.Strip(p)) - len(strings.TrimLeft(ansi.Strip(p), " "))
		wrapped := strings.Split(human.WrapCells(p, s.Width), "\n")
		for i := 1; i < len(wrapped); i++ {
			wrapped[i] = strings.Repeat(" ", indent) + strings.TrimLeft(wrapped[i], " ")
			if ansi.StringWidth(wrapped[i]) > s.Width {
				wrapped[i] = ansi.Truncate(wrapped[i], s.Width, "…")
			}
		}
		lines = append(lines, wrapped...)
	}
	room := 3 + s.detailRoom()
	for len(lines) > room && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // an empty paragraph is no loss
	}
	if len(lines) > room {
		lines = lines[:room]
		last := ansi.Truncate(lines[room-1], max(s.Width-ansi.StringWidth(" … e: whole"), 1), "")
		more := " … e: whole"
		if s.expanded {
			more = " …"
		}
		lines[room-1] = last + s.Styles.Dim.Render(more)
	}
	return lines
}

// detailRoom is how many lines past its three the detail may take: the
// table's free lines, then those of its rows past minTableRows; all but one
// row's while e expands it.
func (s *Screen) detailRoom() int {
	table := max(s.Height-4-len(s.headLines()), 1)
	keep := min(len(s.rows), minTableRows)
	if s.expanded {
		keep = min(len(s.rows), 1)
	}
	return max(table-keep, 0)
}

// detailExtra is how many lines past three the detail takes now.
func (s *Screen) detailExtra() int {
	return len(s.detailLines()) - 3
}

// headLines are the lines above the table: the owner, then the size trend.
func (s *Screen) headLines() []string { return append(s.ownerLines(), s.trendLines()...) }

// Lines above and below the table: the trend (two, and the advice when the limit
// is near), the header, and the selected revision's detail (three).
func (s *Screen) tableHeight() int {
	return max(s.Height-4-len(s.headLines())-max(s.detailExtra(), 0), 1)
}

func (s *Screen) clamp() { s.list.Fit(len(s.rows), s.tableHeight()) }
