package status

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
)

// LoadedMsg answers loadStatus; gen tells a reload's answer from an
// earlier one.
type LoadedMsg struct {
	Ns, Name string
	Gen      int
	St       *live.ReleaseStatus
	err      error
}

// LiveMsg carries one update of the watch started for the gen-th load.
type LiveMsg struct {
	Ns, Name string
	Gen      int
	Upd      live.StatusUpdate
	// ended is set, without an update, when the watch stopped by itself.
	ended bool
}

// loadStatus reads the status of revision rev (0: the latest deployed) of a
// release whose records are looked up in ns.
func loadStatus(ctx context.Context, c client, ns, name string, rev, gen int) tea.Cmd {
	return func() tea.Msg {
		st, err := live.Status(ctx, c, ns, name, rev, live.StatusOptions{})
		return LoadedMsg{Ns: ns, Name: name, Gen: gen, St: st, err: err}
	}
}
