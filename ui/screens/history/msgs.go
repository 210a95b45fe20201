package history

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/kube/owner"
	"github.com/chunkview/chunkview/ui/common"
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

// permissionsMsg answers loadPermissions: what the user may do with the release
// records of namespace ns.
type permissionsMsg struct {
	Ns    string
	Perms *kube.Permissions
	Err   error
}

// loadPermissions asks the API server what the user may do with Secrets in the
// storage namespace of ns (SelfSubjectAccessReviews), so that a screen can turn
// off the actions that would be refused, with the reason.
func loadPermissions(ctx context.Context, c *kube.Client, ns string) tea.Cmd {
	return func() tea.Msg {
		p, err := ops.Can(ctx, c, ns)
		return permissionsMsg{Ns: ns, Perms: p, Err: err}
	}
}

// opPlannedMsg answers planOp: the operation a dialog asks about, planned from
// the rows its screen showed.
type opPlannedMsg struct {
	Kind     common.ActionKind
	Ns, Name string
	Op       ops.Operation
	Err      error
}

// planOp plans an operation for a dialog: plan decodes what it needs through the
// details cache, which the screen's own reads have mostly filled.
func planOp(kind common.ActionKind, ns, name string, plan func() (ops.Operation, error)) tea.Cmd {
	return func() tea.Msg {
		op, err := plan()
		return opPlannedMsg{Kind: kind, Ns: ns, Name: name, Op: op, Err: err}
	}
}
