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

// detailLines describe the selected revision: what is wrong and which key fixes
// it, or its description and the keys that go further. Keys that would change
// the cluster are left out in read-only mode, and d is offered only where there
// is something to compare with.
func (s *Screen) detailLines() []string {
	st := s.Styles
	r := s.selected()
	var first, second, third string
	if s.err != nil {
		first = st.Error.Render(table.Line1(s.Width, "✗ Refresh failed, showing the last history: "+common.ShortError(s.err)))
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
	switch {
	case first != "":
	case err != nil:
		first = st.Error.Render(table.Line1(s.Width, "✗ "+common.ShortError(err)))
	case r.Broken:
		first = st.ErrorBold.Render(table.Line1(s.Width, fmt.Sprintf("✗ Revision %d cannot be read: %s", r.Revision, table.OneLine(r.Problem))))
		hint := "  c: see which Secret is missing or damaged · X: delete this revision's record · R on a good revision: roll back to it"
		if ro {
			hint = "  c: see which Secret is missing or damaged (deleting it or rolling back is off: read-only)"
		}
		second = st.Dim.Render(table.Line1(s.Width, hint))
	case kube.InFlight(r.Status) && latest && s.Now().Sub(r.Updated) < s.Client.StuckAfter():
		first = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("◔ %s for %s: an operation is in progress.", r.Status, human.Span(s.Now().Sub(r.Updated)))))
		second = st.Dim.Render(table.Line1(s.Width, fmt.Sprintf("  it counts as stuck after %s (--stuck-after); F then offers the ways out", human.Span(s.Client.StuckAfter()))))
	case kube.InFlight(r.Status) && latest:
		// Helm refuses upgrades while a revision is pending; its rollback
		// does run, and leaves this revision pending under the new one.
		first = st.Warning.Render(table.Line1(s.Width, fmt.Sprintf("◔ %s for %s: Helm refuses upgrades until it is fixed.", r.Status, human.Span(s.Now().Sub(r.Updated)))))
		hint := fmt.Sprintf("  F: ways out · R rolls back but leaves revision %d %s", r.Revision, r.Status)
		if ro {
			hint = "  read-only: fixing it is off"
		}
		second = st.Dim.Render(table.Line1(s.Width, hint))
	case s.hasAPIsLines(*r):
		first, second, _ = s.apisLines(*r)
	case r.Status == "failed":
		first = st.Error.Render(table.Line1(s.Width, fmt.Sprintf("✗ Revision %d failed: %s", r.Revision, table.OneLine(r.Summary.Description))))
		hint := hints("select a good revision and press R to roll back to it", diff)
		if ro {
			hint = hints(diff, "enter: values, manifest, notes")
		}
		second = st.Dim.Render(table.Line1(s.Width, hint))
	default:
		first = table.Line1(s.Width, fmt.Sprintf("Revision %d, %s: %s", r.Revision, human.Minute(r.Updated), common.KnownOr(*r, table.OneLine(r.Summary.Description))))
		hint := hints(diff, "enter: values, manifest, notes", "c: "+common.LayoutNoun(r.Driver))
		if !latest && !ro {
			hint = hints("R: roll back to this revision", diff, "enter: values, manifest, notes")
		}
		second = st.Dim.Render(table.Line1(s.Width, hint))
	}
	if len(r.UnknownFields) > 0 && !ro && s.mark == 0 {
		third = st.Dim.Render(table.Line1(s.Width, "written by Helm 4: R, X, U and F run through Helm 4's actions, which keep its fields"))
	} else if s.mark != 0 {
		third = st.Marked.Render(table.Line1(s.Width, fmt.Sprintf("◆ revision %d marked: d compares it with the selected revision · space unmarks", s.mark)))
	} else if ro {
		third = st.Dim.Render(table.Line1(s.Width, "read-only: rollback, delete, uninstall and fixes are off"))
	} else if d := s.deniedLine(); d != "" {
		third = st.Warning.Render(table.Line1(s.Width, d))
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
