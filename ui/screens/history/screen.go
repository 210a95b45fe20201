package history

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
)

// Screen shows the revisions of one release, its size trend, and the
// operations on it.
type Screen struct {
	common.Common
	ns, name string

	loading bool
	loaded  bool
	err     error
	gone    string // set once the release was uninstalled

	rows     []kube.RevisionRow
	rowErr   map[string]error // by key@rv
	inflight map[string]bool
	// checked holds the records whose details or chunk check came back, so a
	// reload does not ask again.
	checked map[string]bool
	// list is the cursor over Rows.
	list table.Model
	// mark is the revision marked as the other side of a diff; 0 when none.
	// markAt is when that revision was deployed, as its row said when marked
	// (zero when not known then): a record written anew under the same
	// revision number (a rollback past an unreadable revision) is not the
	// revision marked, and the mark goes (keepMark).
	mark   int
	markAt time.Time
	// expanded gives the detail under the table all the lines it needs but
	// one row's (e).
	expanded bool
	// confirm, when open, asks about op, an operation on the release.
	confirm *dialog.Model
	op      *pendingOp
	// perms is what the user may do here, once the API server has said; nil
	// until then, or when it could not say (the server then decides each action).
	perms *kube.Permissions
	// verify follows the last V until every revision has answered.
	verify *rowcheck.VerifyRun
	// ext is what OLMv1 says of the ClusterExtension that owns the release,
	// once asked (extAsked names it); nil when it has no say.
	ext      *kube.ClusterExtension
	extAsked string
	// ctl is the Flux HelmRelease that manages the release, once asked
	// (ctlAsked); nil when none does.
	ctl      *kube.Controller
	ctlAsked bool
	// prefetched names the latest two records being read ahead for d (see
	// prefetch); stopPrefetch cancels that read.
	prefetched   string
	stopPrefetch context.CancelFunc
	// apis is what the cluster serves, once known, and the revisions
	// checked against it.
	apis common.APIChecks
}

// New opens the history of release name in storage namespace ns.
func New(c common.Common, ns, name string) *Screen {
	list := table.New()
	list.KeyMap = c.Keys.List
	return &Screen{Common: c, ns: ns, name: name, rowErr: map[string]error{}, inflight: map[string]bool{}, checked: map[string]bool{}, list: list}
}

// actionOp is an action key and the operation it runs.
type actionOp struct {
	key *key.Binding
	op  string
}

// denied returns why the user may not run op here, or "" when they may or it is
// not known yet.
func (s *Screen) denied(op string) string {
	if s.perms == nil {
		return ""
	}
	return s.perms.Disabled()[op]
}

// historyOps are the history's action keys and the operations they run.
func (s *Screen) historyOps() []actionOp {
	k := &s.Keys.History
	return []actionOp{{&k.Rollback, kube.OpRollback}, {&k.Delete, kube.OpDeleteRevision}, {&k.Uninstall, kube.OpUninstall}, {&k.FixStuck, kube.OpFixStuck}, {&k.Prune, kube.OpPrune}, {&k.FixAPIs, kube.OpFixAPIs}}
}

// actionKey returns binding b as the help shows it: marked when the user may not
// run op.
func (s *Screen) actionKey(b key.Binding, op string) key.Binding {
	if s.denied(op) == "" {
		return b
	}
	h := b.Help()
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, h.Desc+" (denied)"))
}

func (s *Screen) reload() tea.Cmd {
	if s.gone != "" {
		return nil
	}
	s.loading = true
	return loadHistory(s.Ctx, s.Client, s.ns, s.name)
}

// selected is the revision under the cursor, or nil.
func (s *Screen) selected() *kube.RevisionRow {
	c := s.list.Cursor()
	if c < 0 || c >= len(s.rows) {
		return nil
	}
	return &s.rows[c]
}

// latest is the newest revision listed, or nil.
func (s *Screen) latest() *kube.RevisionRow {
	if len(s.rows) == 0 {
		return nil
	}
	return &s.rows[len(s.rows)-1]
}

// previous returns the revision listed before the selected one.
func (s *Screen) previous() *kube.RevisionRow {
	c := s.list.Cursor()
	if c <= 0 {
		return nil
	}
	return &s.rows[c-1]
}

// keepMark drops the mark when the revision it marked is gone: no longer
// listed (deleted, pruned), or listed as another record written under its
// number since (deployed at another time).
func (s *Screen) keepMark() {
	if s.mark == 0 {
		return
	}
	for _, r := range s.rows {
		if r.Revision == s.mark {
			if r.Known && !s.markAt.IsZero() && !r.Updated.Equal(s.markAt) {
				break
			}
			if r.Known && s.markAt.IsZero() {
				s.markAt = r.Updated
			}
			return
		}
	}
	s.mark, s.markAt = 0, time.Time{}
}

// plan is the release as the screen shows it, for an operation's dialog to hold:
// the operation applies to exactly that, and is refused if the release moved on.
func (s *Screen) plan() (*ops.Plan, error) { return ops.NewPlan(s.ns, s.rows) }

// pendingOp is the operation a dialog asks about: what it is, and what its plan
// fills in once made (the dialog's body, its choices and what y runs).
type pendingOp struct {
	kind     common.ActionKind
	ns, name string
	planned  func(op ops.Operation)
	// after runs once the dialog of a successful operation is closed.
	after func() tea.Cmd
}
