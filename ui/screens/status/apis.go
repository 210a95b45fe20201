package status

import (
	"context"

	tea "charm.land/bubbletea/v2"

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
