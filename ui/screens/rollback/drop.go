package rollback

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/theme"
)

// dropView draws, w cells wide, a plan that deletes the unreadable records of
// release name before it rolls back, and returns the diff's anchors: what the
// person chooses between, the unreadable revisions that go and the revision
// that comes back, then the diff from the latest readable revision to it. When that is the revision rolled back to itself, the diff would compare
// it with itself ("revision 2 → 2 … No differences"), so none is shown: what
// the unreadable revision held cannot be read, hence cannot be compared.
func dropView(st *theme.Styles, vs *diffview.Styles, name string, p *ops.Rollback, r *revdiff.Result, w int) (string, []int) {
	wrap := func(style func(...string) string, text string) []string {
		var out []string
		for _, l := range strings.Split(human.WrapCells(text, w), "\n") {
			out = append(out, style(l))
		}
		return out
	}
	lines := []string{vs.Title.Render(fmt.Sprintf("%s: the unreadable revision %s goes, revision %d comes back", name, dropList(p.Drop), p.To)), ""}
	for _, d := range p.Drop {
		status := ""
		if row, err := p.Row(d.Revision); err == nil && row.Status != "" {
			status = " (" + row.Status + ")"
		}
		lines = append(lines, wrap(st.Error.Render, fmt.Sprintf("✗ Goes: revision %d%s, which cannot be read: %s. Its record %s is deleted; what it held cannot be shown.", d.Revision, status, d.Problem, d.Key))...)
	}
	lines = append(lines, wrap(st.OK.Render, "✓ Comes back: "+cameBack(p))...)
	if p.From == p.To {
		lines = append(lines, "", st.Dim.Render(human.WrapCells(fmt.Sprintf("Revision %d is the latest revision that can be read: the rollback applies what it holds again, so there is no other readable revision to compare it with.", p.To), w)))
		return strings.Join(lines, "\n"), nil
	}
	lines = append(lines, "", st.Dim.Render(human.WrapCells(fmt.Sprintf("Then, from revision %d (the latest that can be read) to revision %d:", p.From, p.To), w)), "")
	text, anchors := diffview.Render(vs, r, w)
	for i := range anchors {
		anchors[i] += len(lines)
	}
	return strings.Join(lines, "\n") + "\n" + text, anchors
}

// cameBack describes the revision rolled back to as the history lists it, and
// what the rollback writes.
func cameBack(p *ops.Rollback) string {
	what := fmt.Sprintf("revision %d", p.To)
	if row, err := p.Row(p.To); err == nil && row.Known {
		what += fmt.Sprintf(", %s (app %s) of %s, %q", common.ChartText(row), human.OrUnknown(row.Summary.AppVersion), human.Minute(row.Updated), row.Summary.Description)
	}
	return fmt.Sprintf("%s. Helm %d applies its objects as recorded and writes it as revision %d.", what, p.Major, p.From+1)
}

// dropDone is what a rollback that deleted unreadable records says it did.
func dropDone(rb *ops.Rollback) string {
	return fmt.Sprintf("Replaced the unreadable revision %s of %s: its record was deleted, and revision %d now holds revision %d's content, deployed.", dropList(rb.Drop), rb.Release, rb.NewRevision, rb.To)
}

// dropList names the revisions a rollback deletes first: "3" or "3, 4".
func dropList(drop []ops.Dropped) string {
	out := make([]string, len(drop))
	for i, d := range drop {
		out[i] = fmt.Sprint(d.Revision)
	}
	return strings.Join(out, ", ")
}
