package status

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// renderStatusHead draws the two lines above the resources view's scrolled
// part: the revision and how many objects are Current, then live, how the view
// follows the cluster. It is pure.
func renderStatusHead(st *theme.Styles, s *live.ReleaseStatus, width int, live string) string {
	r := render.StatusOf(s, time.Time{})
	first := st.Title.Render(fmt.Sprintf("%s · revision %d", r.Release, r.Revision)) + " " +
		common.StateStyle(st, r.Helm.Meaning).Render(r.Helm.Text) + st.Dim.Render(" · ") + common.Paint(st, r.Objects.Text, r.Objects.Meaning)
	return ansi.Truncate(first, width, "…") + "\n" + st.Dim.Render(ansi.Truncate(live, width, "…"))
}

// The resources view's columns, by render's names: KIND and NAME as wide as
// their longest values up to these, MESSAGE takes most of the room left.
var (
	resourceLayout = map[string]table.Column{
		"KIND":      {Width: 22},
		"NAMESPACE": {Width: 12, Prio: 1},
		"NAME":      {Width: 16, Flex: 1},
		"STATUS":    {Width: len("Terminating")},
		"MESSAGE":   {Width: 16, Flex: 3},
	}
	eventLayout = map[string]table.Column{
		"LAST SEEN": {Width: 5},
		"OBJECT":    {Width: 24, Flex: 1},
		"REASON":    {Width: 14},
		"MESSAGE":   {Width: 16, Flex: 3},
	}
)

// renderStatusBody draws the objects, the hooks and the Warning events of a
// status at the given width, measured against now. It is pure.
func renderStatusBody(st *theme.Styles, s *live.ReleaseStatus, width int, now time.Time) string {
	body, _ := renderStatusRows(st, s, width, now, -1)
	return body
}

// renderStatusRows is renderStatusBody with item sel marked (an object, then
// a hook: see Screen.items), and the line it is drawn on (-1 when none is).
func renderStatusRows(st *theme.Styles, s *live.ReleaseStatus, width int, now time.Time, sel int) (string, int) {
	r := render.StatusOf(s, now)
	selLine := -1
	var lines []string
	add := func(xs ...string) {
		for _, x := range xs {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	if r.Latest != nil {
		add(common.Paint(st, human.WrapCells(r.Latest.Text+": s on it in the history shows its objects.", width), r.Latest.Meaning))
	}
	for _, n := range r.Remarks {
		add(common.Paint(st, human.WrapCells("note: "+n.Text, width), n.Meaning))
	}
	if sel >= 0 && sel < len(r.Resources.Rows) {
		selLine = len(lines) + 1 + sel
	}
	add(resourceLines(st, r.Resources, width, sel)...)
	add("", st.Title.Render("Hooks"))
	if len(r.Hooks) == 0 {
		add(st.Dim.Render("  none"))
	}
	for i, h := range r.Hooks {
		hl := hookLines(st, h, width)
		if sel == len(r.Resources.Rows)+i {
			selLine = len(lines)
			hl[0] = st.Cursor.Render("▶") + ansi.Cut(hl[0], 1, width)
		}
		add(hl...)
	}

	add("", st.Title.Render("Warning events")+st.Dim.Render(" · newest first"))
	ev := r.Events
	if len(ev.Rows) == 0 {
		add(st.Dim.Render("  none"))
	}
	ecols := table.FitColumns(common.TableColumns(ev, eventLayout), width)
	if len(ev.Rows) > 0 {
		add(table.RenderHeader(ecols, &st.TableHeader))
	}
	for i := range ev.Rows {
		add(table.RenderRow(ecols, common.TableCells(st, ev, i), "  "))
	}
	if r.EventsOmitted > 0 {
		add(st.Dim.Render(fmt.Sprintf("  … and %d older", r.EventsOmitted)))
	}
	return strings.Join(lines, "\n"), selLine
}

// resourceLines draws the objects' table: KIND and NAME as wide as their
// longest values, up to their layout's widths.
func resourceLines(st *theme.Styles, t render.Table, width, sel int) []string {
	cols := common.TableColumns(t, resourceLayout)
	for i, c := range cols {
		if c.Title == "KIND" || c.Title == "NAME" {
			w := len(c.Title)
			for _, row := range t.Rows {
				w = max(w, len(row[t.Index(c.Title)].Text))
			}
			cols[i].Width = min(w, c.Width)
		}
	}
	cols = table.FitColumns(cols, width)
	out := []string{table.RenderHeader(cols, &st.TableHeader)}
	for i := range t.Rows {
		gutter := "  "
		if i == sel {
			gutter = st.Cursor.Render("▶") + " "
		}
		out = append(out, table.RenderRow(cols, common.TableCells(st, t, i, "STATUS"), gutter))
	}
	return out
}

// hookLines draws one hook, and for a Job that failed or runs, its Pods and
// the end of the failed container's log.
func hookLines(st *theme.Styles, h render.Hook, width int) []string {
	out := []string{ansi.Truncate(fmt.Sprintf("  %s/%s ", h.Kind, h.Name)+st.Dim.Render(h.Events)+"  "+common.StateStyle(st, h.Run.Meaning).Render(h.Run.Text), width, "…")}
	if h.Job == nil {
		return out
	}
	sub := func(indent, s string, style *lipgloss.Style) {
		for _, l := range strings.Split(human.WrapCells(s, max(width-len(indent), 10)), "\n") {
			if style != nil {
				l = style.Render(l)
			}
			out = append(out, indent+l)
		}
	}
	sub("    ", "Job: "+h.Job.Text, common.StateStyle(st, h.Job.Meaning))
	for _, l := range h.Details {
		sub(strings.Repeat("  ", l.Depth+1), l.Text, common.MeaningStyle(st, l.Meaning))
	}
	for _, line := range h.Log {
		out = append(out, ansi.Truncate("      │ "+line, width, "…"))
	}
	return out
}
