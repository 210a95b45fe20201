package history

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
)

// LoadedMsg answers loadHistory.
type LoadedMsg struct {
	Ns, Name string
	Rows     []kube.RevisionRow
	Err      error
}

func loadHistory(ctx context.Context, c client, ns, name string) tea.Cmd {
	return func() tea.Msg {
		rows, err := c.History(ctx, ns, name)
		return LoadedMsg{Ns: ns, Name: name, Rows: rows, Err: err}
	}
}

// ExtensionMsg answers loadExtension: what OLMv1 says of the ClusterExtension that
// owns release ns/name (nil when its API is not served).
type ExtensionMsg struct {
	Ns, Name string
	Ext      *kube.ClusterExtension
}

// loadExtension reads ClusterExtension ext, which owns release ns/name.
func loadExtension(ctx context.Context, c client, ns, name, ext string) tea.Cmd {
	return func() tea.Msg {
		return ExtensionMsg{Ns: ns, Name: name, Ext: owner.Extension(ctx, c, ext)}
	}
}

// ControllerMsg answers loadController: the Flux HelmRelease that manages
// release ns/name, nil when none does (or none could be read).
type ControllerMsg struct {
	Ns, Name string
	Ctl      *kube.Controller
}

// loadController reads the controller of the release whose latest revision is
// row.
func loadController(ctx context.Context, c client, ns, name string, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		ctl, _ := owner.Of(ctx, c, row)
		return ControllerMsg{Ns: ns, Name: name, Ctl: ctl}
	}
}
