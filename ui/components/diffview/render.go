package diffview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/components/table"
)

// maskedBanner says, beside a diff's title, whether secrets are masked.
func maskedBanner(st *Styles, revealed bool) string {
	if revealed {
		return st.Masked.Render(" secrets REVEALED ") + st.Dim.Render(" (v masks)")
	}
	return st.Dim.Render("secrets masked (v reveals)")
}

// Render draws a diff result at the given width and returns the line of each
// change's heading, for jumping. It is pure.
func Render(st *Styles, r *revdiff.Result, width int) (string, []int) {
	var lines []string
	var anchors []int
	add := func(s ...string) {
		for _, x := range s {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	add(st.Title.Render(fmt.Sprintf("%s: revision %d → %d", r.Release, r.From, r.To)) + "  " + maskedBanner(st, r.Revealed))
	a, rm, c := r.Summary()
	var sections []string
	for _, sec := range []revdiff.Section{r.Values, r.ComputedValues, r.Chart, r.Notes} {
		if sec.Diff != "" {
			sections = append(sections, sec.Name)
		}
	}
	sum := fmt.Sprintf("Resources: %s added, %s removed, %s changed", st.Add.Render(table.Itoa(a)), st.Del.Render(table.Itoa(rm)), st.Hunk.Render(table.Itoa(c)))
	ha, hr, hc := countChanges(r.Hooks)
	if ha+hr+hc > 0 {
		sum += fmt.Sprintf(" · hooks: %d added, %d removed, %d changed", ha, hr, hc)
	}
	if len(sections) > 0 {
		sum += " · also changed: " + strings.Join(sections, ", ")
	}
	add(table.Wrap(sum, width))
	if !r.Changed() {
		add("", st.OK.Render("No differences: the two revisions hold the same resources, values, chart and notes."))
		return strings.Join(lines, "\n"), nil
	}
	add("")
	marks := map[revdiff.ChangeKind]string{revdiff.Added: "+", revdiff.Removed: "-", revdiff.Changed: "~"}
	styleOf := map[revdiff.ChangeKind]func(...string) string{
		revdiff.Added: st.Add.Render, revdiff.Removed: st.Del.Render, revdiff.Changed: st.Hunk.Render,
	}
	listed := false
	for _, group := range []struct {
		what    string
		changes []revdiff.ResourceChange
	}{{"", r.Resources}, {"hook ", r.Hooks}} {
		for _, ch := range group.changes {
			if m, ok := marks[ch.Change]; ok {
				add("  " + styleOf[ch.Change](fmt.Sprintf("%s %s%s", m, group.what, ch.Key)))
				listed = true
			}
		}
	}
	if listed {
		add("")
	}
	heading := func(title string) {
		anchors = append(anchors, len(lines))
		rule := strings.Repeat("─", max(width-ansi.StringWidth(title)-4, 2))
		add(st.Section.Render("── " + title + " " + rule))
	}
	for _, group := range []struct {
		what    string
		changes []revdiff.ResourceChange
	}{{"", r.Resources}, {"hook ", r.Hooks}} {
		for _, ch := range group.changes {
			if ch.Diff == "" {
				continue
			}
			heading(fmt.Sprintf("%s %s%s (%s)", marks[ch.Change], group.what, ch.Key, ch.Change))
			add(colorDiff(st, ch.Diff), "")
		}
	}
	for _, sec := range []revdiff.Section{r.Values, r.ComputedValues, r.Chart, r.Notes} {
		if sec.Diff == "" {
			continue
		}
		heading("~ " + sec.Name)
		add(colorDiff(st, sec.Diff), "")
	}
	return strings.Join(lines, "\n"), anchors
}

func countChanges(cs []revdiff.ResourceChange) (added, removed, changed int) {
	for _, c := range cs {
		switch c.Change {
		case revdiff.Added:
			added++
		case revdiff.Removed:
			removed++
		case revdiff.Changed:
			changed++
		}
	}
	return
}

// RenderLive draws a live diff at the given width, as Render draws a diff
// between revisions, and returns the line of each object's heading. It is pure.
func RenderLive(st *Styles, d *revdiff.Drift, width int) (string, []int) {
	var lines []string
	var anchors []int
	add := func(s ...string) {
		for _, x := range s {
			lines = append(lines, strings.Split(x, "\n")...)
		}
	}
	add(st.Title.Render(fmt.Sprintf("%s: revision %d → live", d.Release, d.Revision)) + "  " + maskedBanner(st, d.Revealed))
	sum := fmt.Sprintf("Objects: %s changed, %s missing, %s extra, %d unreadable, %d in sync",
		st.Hunk.Render(table.Itoa(d.Count(revdiff.Drifted))), st.Del.Render(table.Itoa(d.Count(revdiff.Missing))),
		st.Add.Render(table.Itoa(d.Count(revdiff.Extra))), d.Count(revdiff.Unreadable), d.Count(revdiff.InSync))
	add(table.Wrap(sum, width))
	if !d.Drifted() {
		msg := "No drift: every object the revision holds is live as its manifest says."
		if !d.Complete() {
			msg = "No drift in what could be read; some objects could not be read (below)."
		}
		add("", st.OK.Render(table.Wrap(msg, width)))
	}
	add("")
	marks := map[revdiff.DriftState]string{revdiff.Drifted: "~", revdiff.Missing: "-", revdiff.Extra: "+", revdiff.Unreadable: "?"}
	styleOf := map[revdiff.DriftState]func(...string) string{
		revdiff.Drifted: st.Hunk.Render, revdiff.Missing: st.Del.Render,
		revdiff.Extra: st.Add.Render, revdiff.Unreadable: st.Warning.Render,
	}
	listed := false
	for _, o := range d.Objects {
		m, ok := marks[o.State]
		if !ok {
			continue
		}
		listed = true
		add("  " + styleOf[o.State](fmt.Sprintf("%s %s (%s)", m, o.Key, o.State)))
		if o.Reason != "" {
			add(st.Dim.Render(table.Wrap("    "+o.Reason, width)))
		}
	}
	for _, n := range d.Notes {
		listed = true
		add(st.Dim.Render(table.Wrap("  note: "+n, width)))
	}
	if listed {
		add("")
	}
	for _, o := range d.Objects {
		if o.Diff == "" {
			continue
		}
		title := fmt.Sprintf("%s %s (%s)", marks[o.State], o.Key, o.State)
		anchors = append(anchors, len(lines))
		rule := strings.Repeat("─", max(width-ansi.StringWidth(title)-4, 2))
		add(st.Section.Render("── "+title+" "+rule), colorDiff(st, o.Diff), "")
	}
	return strings.Join(lines, "\n"), anchors
}
