package status

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
)

// apisMsg answers checkRevisionAPIs: the check of revision Rev against
// Served; Rep is nil when it could not be made.
type apisMsg struct {
	Ns, Name string
	Rev      int
	Served   *apis.Served
	Rep      *apis.Report
}

// checkAPIs checks the revision shown against what the cluster serves, once
// both are known and it was not checked yet.
func (s *Screen) checkAPIs() tea.Cmd {
	if s.served == nil || s.st == nil || (s.apis != nil && s.apisRev == s.st.Revision) {
		return nil
	}
	return checkRevisionAPIs(s.Ctx, s.Client, s.ns, s.name, s.st.Revision, s.st.Store, s.served)
}

// checkRevisionAPIs finds revision rev of the release in its history (its
// records' metadata) and checks it through the details cache, which the
// status's own read filled.
func checkRevisionAPIs(ctx context.Context, c *kube.Client, ns, name string, rev int, store string, served *apis.Served) tea.Cmd {
	return func() tea.Msg {
		msg := apisMsg{Ns: ns, Name: name, Rev: rev, Served: served}
		rows, err := c.History(ctx, ns, name)
		if err != nil {
			return msg
		}
		for _, r := range rows {
			if r.Revision == rev && (store == "" || common.SameStore(r.Driver, store)) {
				if rep, err := kube.NewChecker(c).CheckAPIs(ctx, r, served, apis.Options{}); err == nil {
					msg.Rep = &rep
				}
				break
			}
		}
		return msg
	}
}

// apisLines say, above the objects, that Helm can no longer upgrade the
// release and which objects use APIs the cluster no longer serves (each with
// what serves it now), wrapped whole; "" when none does or it is not known.
func (s *Screen) apisLines() string {
	if s.apis == nil || s.st == nil || s.apisRev != s.st.Revision || !s.apis.CannotUpgrade() {
		return ""
	}
	text := fmt.Sprintf("✗ %s %s: revision %d uses APIs the cluster no longer serves: %s. A in the history writes a revision on served versions (fix-apis).",
		apis.CannotUpgrade, s.name, s.apisRev, common.UnservedRefs(s.apis.Findings))
	return s.Styles.ErrorBold.Render(human.WrapCells(text, s.Width)) + "\n"
}
