package ui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// historyScreen shows the revisions of one release, its size trend, and the
// operations on it.
type historyScreen struct {
	common
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
	cursor  int
	offset  int
	// mark is the revision marked as the other side of a diff; 0 when none.
	mark   int
	dialog *confirmDialog
	// perms is what the user may do here, once the API server has said; nil
	// until then, or when it could not say (the server then decides each action).
	perms *kube.Permissions
	// verify follows the last V until every revision has answered.
	verify *verifyRun
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
}

func newHistoryScreen(c common, ns, name string) *historyScreen {
	return &historyScreen{common: c, ns: ns, name: name, rowErr: map[string]error{}, inflight: map[string]bool{}, checked: map[string]bool{}, cursor: -1}
}

func (s *historyScreen) init() tea.Cmd {
	if s.readOnly() {
		return s.reload()
	}
	return tea.Batch(s.reload(), loadPermissions(s.ctx, s.client, s.ns))
}

// denied returns why the user may not run op here, or "" when they may or it is
// not known yet.
func (s *historyScreen) denied(op string) string {
	if s.perms == nil {
		return ""
	}
	return s.perms.Disabled()[op]
}

// actionOp is an action key and the operation it runs.
type actionOp struct {
	key *key.Binding
	op  string
}

// historyOps are the history's action keys and the operations they run.
func (s *historyScreen) historyOps() []actionOp {
	k := &s.keys.History
	return []actionOp{{&k.Rollback, kube.OpRollback}, {&k.Delete, kube.OpDeleteRevision}, {&k.Uninstall, kube.OpUninstall}, {&k.FixStuck, kube.OpFixStuck}, {&k.Prune, kube.OpPrune}}
}

// actionKey returns binding b as the help shows it: marked when the user may not
// run op.
func (s *historyScreen) actionKey(b key.Binding, op string) key.Binding {
	if s.denied(op) == "" {
		return b
	}
	h := b.Help()
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(h.Key, h.Desc+" (denied)"))
}

func (s *historyScreen) reload() tea.Cmd {
	if s.gone != "" {
		return nil
	}
	s.loading = true
	return loadHistory(s.ctx, s.client, s.ns, s.name)
}

// title names the release, and its store when that is one of Helm's: the same
// name may be held by chunked storage too.
func (s *historyScreen) title() string {
	if d := s.store(); isHelmStore(d) {
		return s.name + " (" + kube.DriverLabel(d) + ")"
	}
	return s.name
}

func (s *historyScreen) busy() bool {
	return s.loading || len(s.inflight) > 0 || (s.dialog != nil && s.dialog.busy())
}

func (s *historyScreen) capturing() bool { return s.dialog != nil && s.dialog.capturing() }

func (s *historyScreen) handlesBack() bool { return s.dialog != nil }

func (s *historyScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	if s.dialog != nil {
		s.dialog.setSize(w, h)
	}
	s.clamp()
}

func (s *historyScreen) help() helpKeys {
	if s.dialog != nil {
		return s.dialog.help()
	}
	k := s.keys.History
	rollback, del := s.actionKey(k.Rollback, kube.OpRollback), s.actionKey(k.Delete, kube.OpDeleteRevision)
	uninstall, fix := s.actionKey(k.Uninstall, kube.OpUninstall), s.actionKey(k.FixStuck, kube.OpFixStuck)
	prune := s.actionKey(k.Prune, kube.OpPrune)
	diff, chunks := k.Diff, layoutKey(k.Chunks, s.store())
	if sel := s.selected(); sel != nil && s.previous() == nil && (s.mark == 0 || s.mark == sel.Revision) {
		diff.SetEnabled(false) // the first revision: nothing to compare it with yet
	}
	return helpKeys{
		short: []key.Binding{k.Open, k.Status, chunks, diff, k.Live, k.Mark, rollback, del, fix},
		full: [][]key.Binding{
			s.keys.List.bindings(),
			{k.Open, k.Status, chunks, diff, k.Live, k.Mark, k.Refresh, k.Verify},
			{rollback, del, uninstall, fix, prune},
		},
	}
}

// Lines above and below the table: the trend (two, and the advice when the limit
// is near), the header, and the selected revision's detail (three).
func (s *historyScreen) tableHeight() int { return max(s.height-4-len(s.headLines()), 1) }

// headLines are the lines above the table: the owner, then the size trend.
func (s *historyScreen) headLines() []string { return append(s.ownerLines(), s.trendLines()...) }

func (s *historyScreen) clamp() {
	if len(s.rows) == 0 {
		s.cursor = -1
		return
	}
	s.cursor = max(0, min(s.cursor, len(s.rows)-1))
	s.offset = scrollWindow(s.cursor, s.offset, s.tableHeight(), len(s.rows))
}

func (s *historyScreen) selected() *kube.RevisionRow {
	if s.cursor < 0 || s.cursor >= len(s.rows) {
		return nil
	}
	return &s.rows[s.cursor]
}

func (s *historyScreen) update(msg tea.Msg) tea.Cmd {
	// A dialog sees every message but keys only when open; the screen itself keeps
	// loading underneath it.
	if _, isKey := msg.(tea.KeyPressMsg); !isKey && s.dialog != nil {
		cmd, closed := s.dialog.update(msg)
		if closed {
			s.dialog = nil
		}
		return tea.Batch(cmd, s.updateSelf(msg))
	}
	return s.updateSelf(msg)
}

func (s *historyScreen) updateSelf(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyLoadedMsg:
		if msg.ns != s.ns || msg.name != s.name {
			return nil
		}
		s.loading = false
		if msg.err != nil {
			s.err = msg.err
			return nil
		}
		s.err = nil
		s.loaded = true
		s.setRows(msg.rows)
		return tea.Batch(s.fill(), s.askExtension(), s.askController(), s.prefetch())

	case controllerMsg:
		if msg.ns == s.ns && msg.name == s.name {
			s.ctl = msg.ctl
			s.clamp()
		}
		return nil

	case extensionMsg:
		if msg.ns == s.ns && msg.name == s.name {
			s.ext = msg.ext
			s.clamp()
		}
		return nil

	case rowDetailsMsg:
		return s.takeRow(msg)

	case recheckMsg:
		return s.recheck(msg)

	case releaseChangedMsg:
		if msg.ns == s.ns && msg.name == s.name {
			return s.reload()
		}
		return nil

	case liveMsg:
		return s.applyLive(msg.ev)

	case permissionsMsg:
		if msg.ns == s.ns && msg.err == nil {
			s.perms = msg.perms
		}
		return nil

	case actionDoneMsg:
		if msg.kind == actionUninstall && msg.err == nil && msg.ns == s.ns && msg.name == s.name {
			s.gone = msg.text
		}
		return nil

	case tea.KeyPressMsg:
		if s.dialog != nil {
			cmd, closed := s.dialog.update(msg)
			if closed {
				s.dialog = nil
			}
			return cmd
		}
		return s.handleKey(msg)
	}
	return nil
}

// setRows replaces the revisions, newest selected on first load, keeping the
// selection and what was decoded of records that did not change.
func (s *historyScreen) setRows(rows []kube.RevisionRow) {
	var keep int
	if r := s.selected(); r != nil {
		keep = r.Revision
	}
	old := map[string]kube.RevisionRow{}
	for _, r := range s.rows {
		old[rowID(r)] = r
	}
	for i, r := range rows {
		if o, ok := old[rowID(r)]; ok && (o.Known || o.Broken) {
			rows[i] = o
		}
	}
	s.rows = rows
	s.cursor = len(rows) - 1
	for i, r := range rows {
		if r.Revision == keep {
			s.cursor = i
		}
	}
	s.clamp()
}

func (s *historyScreen) latest() *kube.RevisionRow {
	if len(s.rows) == 0 {
		return nil
	}
	return &s.rows[len(s.rows)-1]
}

// previous returns the revision listed before the selected one.
func (s *historyScreen) previous() *kube.RevisionRow {
	if s.cursor <= 0 {
		return nil
	}
	return &s.rows[s.cursor-1]
}

func (s *historyScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if moveCursor(msg, s.keys.List, &s.cursor, len(s.rows), s.tableHeight()) {
		s.clamp()
		return nil
	}
	k := s.keys.History
	for _, a := range s.historyOps() {
		if key.Matches(msg, *a.key) {
			if s.denied(a.op) != "" {
				return s.openDialog(deniedDialog(s.common, s.ns, s.name, a.op, s.perms.Allows(a.op)), nil)
			}
		}
	}
	if key.Matches(msg, k.Refresh) {
		// What OLMv1 says of the owner may have changed too: ask again.
		s.rowErr, s.checked, s.extAsked, s.ctlAsked = map[string]error{}, map[string]bool{}, "", false
		if s.readOnly() {
			return s.reload()
		}
		// Rights may have changed too (a new RoleBinding): ask again.
		return tea.Batch(s.reload(), loadPermissions(s.ctx, s.client, s.ns))
	}
	if key.Matches(msg, k.Verify) {
		return s.verifyAll()
	}
	if key.Matches(msg, k.Uninstall) && len(s.rows) > 0 {
		p, err := s.plan()
		if err != nil {
			return status(shortError(err), true)
		}
		return s.openDialog(uninstallDialog(s.common, p), func() tea.Cmd {
			return pop("Uninstalled " + s.name + ".")
		})
	}
	if key.Matches(msg, k.Prune) && len(s.rows) > 0 {
		if len(s.rows) < 2 {
			return status(s.name+" has one revision: there is nothing to prune.", true)
		}
		p, err := s.plan()
		if err != nil {
			return status(shortError(err), true)
		}
		return s.openDialog(pruneDialog(s.common, p), nil)
	}
	if key.Matches(msg, k.FixStuck) {
		l := s.latest()
		if l == nil || !ops.Stuckable(l.Status) {
			return status(s.name+" is not pending or uninstalling: there is nothing stuck to fix.", true)
		}
		p, err := s.plan()
		if err != nil {
			return status(shortError(err), true)
		}
		return s.openDialog(fixStuckDialog(s.common, p), nil)
	}
	sel := s.selected()
	if sel == nil {
		return nil
	}
	switch {
	case key.Matches(msg, k.Open):
		return push(newRevisionScreen(s.common, *sel))
	case key.Matches(msg, k.Chunks):
		return push(newChunksScreen(s.common, *sel))
	case key.Matches(msg, k.Mark):
		if s.mark == sel.Revision {
			s.mark = 0
		} else {
			s.mark = sel.Revision
		}
		return nil
	case key.Matches(msg, k.Diff):
		from, to := 0, sel.Revision
		switch {
		case s.mark != 0 && s.mark != sel.Revision:
			from = min(s.mark, sel.Revision)
			to = max(s.mark, sel.Revision)
		case s.previous() != nil:
			from = s.previous().Revision
		default:
			return status(fmt.Sprintf("Revision %d is the first stored: nothing before it to compare with. Mark another with space.", sel.Revision), true)
		}
		return push(newDiffScreen(s.common, s.ns, s.name, from, to))
	case key.Matches(msg, k.Status):
		if sel.Broken {
			return status(fmt.Sprintf("Revision %d cannot be read, so its objects are not known.", sel.Revision), true)
		}
		return push(newStatusScreen(s.common, s.ns, s.name, sel.Revision))
	case key.Matches(msg, k.Live):
		if sel.Broken {
			return status(fmt.Sprintf("Revision %d cannot be read, so it cannot be compared with the cluster.", sel.Revision), true)
		}
		return push(newLiveDiffScreen(s.common, s.ns, s.name, sel.Revision))
	case key.Matches(msg, k.Rollback):
		if sel.Broken {
			return status(fmt.Sprintf("Revision %d cannot be read, so it cannot be rolled back to.", sel.Revision), true)
		}
		p, err := s.plan()
		if err != nil {
			return status(shortError(err), true)
		}
		rs := newRollbackScreen(s.common, p, sel.Revision)
		if l := s.latest(); l != nil && kube.Pending(l.Status) {
			rs.leftPending = fmt.Sprintf("Revision %d stays %s under the new one: F in the history fixes it first.", l.Revision, l.Status)
		}
		return push(rs)
	case key.Matches(msg, k.Delete):
		p, err := s.plan()
		if err != nil {
			return status(shortError(err), true)
		}
		return s.openDialog(deleteRevisionDialog(s.common, p, *sel), nil)
	}
	return nil
}

// plan is the release as the screen shows it, for an operation's dialog to hold:
// the operation applies to exactly that, and is refused if the release moved on.
func (s *historyScreen) plan() (*ops.Plan, error) { return ops.NewPlan(s.ns, s.rows) }

func (s *historyScreen) openDialog(d *confirmDialog, after func() tea.Cmd) tea.Cmd {
	d.after = after
	d.setSize(s.width, s.height)
	s.dialog = d
	return d.init()
}

func (s *historyScreen) view() string {
	body := s.tableView()
	if s.dialog != nil {
		s.dialog.setSize(s.width, s.height)
		return overlay(body, s.dialog.view(), s.width, s.height)
	}
	return body
}

func (s *historyScreen) hasTypedInput() bool {
	return s.dialog != nil && s.dialog.capturing() && s.dialog.input.Value() != ""
}
