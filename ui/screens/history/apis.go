package history

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/screens/fixapis"
)

// checkAPIs checks the revisions not checked yet against what the cluster
// serves, once known: through the details cache, which the history's own
// reads fill (its trend decodes every revision).
func (s *Screen) checkAPIs() tea.Cmd {
	return s.apis.Check(s.Ctx, s.Client, s.rows)
}

// unserved is the report of revision r when it uses APIs the cluster no
// longer serves.
func (s *Screen) unserved(r kube.RevisionRow) (apis.Report, bool) {
	return s.apis.CannotUpgrade(r)
}

// current is the revision Helm's upgrade reads (the latest deployed, else the
// latest): the one fix-apis copies.
func (s *Screen) current() *kube.RevisionRow {
	for i := len(s.rows) - 1; i >= 0; i-- {
		if s.rows[i].Status == "deployed" {
			return &s.rows[i]
		}
	}
	return s.latest()
}

// currentCannotUpgrade is the report of the current revision when Helm can
// no longer upgrade the release.
func (s *Screen) currentCannotUpgrade() (apis.Report, bool) {
	if c := s.current(); c != nil {
		return s.unserved(*c)
	}
	return apis.Report{}, false
}

// apisLines are the detail lines of revision r when it uses APIs the cluster
// no longer serves: for the current revision, that Helm can no longer upgrade
// the release and the key that fixes it; for another, that rolling back to it
// would fail.
func (s *Screen) apisLines(r kube.RevisionRow) (string, string, bool) {
	rep, bad := s.unserved(r)
	if !bad {
		return "", "", false
	}
	st := s.Styles
	if c := s.current(); c != nil && c.Revision == r.Revision {
		fix := s.Keys.History.FixAPIs.Help().Key + ": fix-apis"
		if s.ReadOnly() {
			fix = "read-only: fix-apis is off"
		}
		first, second := common.CannotUpgradeLines(st, s.name, rep, fix, s.Width)
		return first, second, true
	}
	first := fmt.Sprintf("⚠ Revision %d uses APIs the cluster no longer serves: a rollback to it fails and breaks the release again", r.Revision)
	return st.Warning.Render(table.Line1(s.Width, first)), st.Error.Render(table.Line1(s.Width, "  "+common.UnservedRefs(rep.Findings))), true
}

// openFixAPIs opens the plan of fix-apis for the release as the screen shows
// it, against what the cluster served when the revisions were checked.
func (s *Screen) openFixAPIs() tea.Cmd {
	if s.apis.Served == nil {
		return common.Status("What the cluster serves is not known (discovery could not be read), so fix-apis cannot plan.", true)
	}
	p, err := s.plan()
	if err != nil {
		return common.Status(common.ShortError(err), true)
	}
	if _, bad := s.currentCannotUpgrade(); !bad && s.apis.Any() {
		if c := s.current(); c != nil {
			if _, checked := s.apis.Report(*c); checked {
				return common.Status(fmt.Sprintf("Revision %d of %s uses only APIs the cluster serves: nothing to fix.", c.Revision, s.name), false)
			}
		}
	}
	return common.Push(fixapis.New(s.Common, p, s.apis.Served))
}

// hasAPIsLines says whether revision r's detail lines are apisLines'.
func (s *Screen) hasAPIsLines(r kube.RevisionRow) bool {
	_, bad := s.unserved(r)
	return bad
}
