package history

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/diff"
	"github.com/chunkview/chunkview/ui/screens/revision"
	"github.com/chunkview/chunkview/ui/screens/rollback"
	"github.com/chunkview/chunkview/ui/screens/status"
)

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd {
	served := common.LoadServed(s.Ctx, s.Client, false)
	if s.ReadOnly() {
		return tea.Batch(s.reload(), served)
	}
	return tea.Batch(s.reload(), loadPermissions(s.Ctx, s.Client, s.ns), served)
}

// Title names the release, and its store when that is one of Helm's: the same
// name may be held by chunked storage too.
func (s *Screen) Title() string {
	if d := s.store(); common.IsHelmStore(d) {
		return s.name + " (" + kube.DriverLabel(d) + ")"
	}
	return s.name
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool {
	return s.loading || len(s.inflight) > 0 || (s.confirm != nil && s.confirm.Busy())
}

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return s.confirm != nil && s.confirm.Capturing() }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool { return s.confirm != nil }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	if s.confirm != nil {
		s.confirm.SetSize(w, h)
	}
	s.clamp()
}

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	if s.confirm != nil {
		b := s.confirm.Bindings()
		return common.HelpKeys{Short: b, Full: [][]key.Binding{b}}
	}
	k := s.Keys.History
	rollback, del := s.actionKey(k.Rollback, kube.OpRollback), s.actionKey(k.Delete, kube.OpDeleteRevision)
	uninstall, fix := s.actionKey(k.Uninstall, kube.OpUninstall), s.actionKey(k.FixStuck, kube.OpFixStuck)
	prune, fixAPIs := s.actionKey(k.Prune, kube.OpPrune), s.actionKey(k.FixAPIs, kube.OpFixAPIs)
	diff, chunks := k.Diff, common.LayoutKey(k.Chunks, s.store())
	if sel := s.selected(); sel != nil && s.previous() == nil && (s.mark == 0 || s.mark == sel.Revision) {
		diff.SetEnabled(false) // the first revision: nothing to compare it with yet
	}
	short := []key.Binding{k.Open, k.Status, chunks, diff, k.Live, k.Mark, rollback, del, fix}
	if _, bad := s.currentCannotUpgrade(); bad {
		// The fix the release needs first.
		short = append([]key.Binding{fixAPIs}, short...)
	}
	return common.HelpKeys{
		Short: short,
		Full: [][]key.Binding{
			s.Keys.List.Bindings(),
			{k.Open, k.Status, chunks, diff, k.Live, k.Mark, k.Refresh, k.Verify, k.Expand},
			{rollback, del, uninstall, fix, prune, fixAPIs},
		},
	}
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	// A dialog sees every message but keys only when open; the screen itself keeps
	// loading underneath it.
	if _, isKey := msg.(tea.KeyPressMsg); !isKey && s.confirm != nil {
		return tea.Batch(s.takeOpMsg(msg), s.updateDialog(msg), s.updateSelf(msg))
	}
	return s.updateSelf(msg)
}

func (s *Screen) updateSelf(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		if msg.Ns != s.ns || msg.Name != s.name {
			return nil
		}
		s.loading = false
		if msg.Err != nil {
			s.err = msg.Err
			return nil
		}
		s.err = nil
		s.loaded = true
		s.setRows(msg.Rows)
		return tea.Batch(s.fill(), s.askExtension(), s.askController(), s.prefetch(), s.checkAPIs())

	case common.ServedMsg, common.APIsMsg:
		s.apis.Take(msg)
		if _, served := msg.(common.ServedMsg); served {
			return s.checkAPIs()
		}
		return nil

	case ControllerMsg:
		if msg.Ns == s.ns && msg.Name == s.name {
			s.ctl = msg.Ctl
			s.clamp()
		}
		return nil

	case ExtensionMsg:
		if msg.Ns == s.ns && msg.Name == s.name {
			s.ext = msg.Ext
			s.clamp()
		}
		return nil

	case rowcheck.RowDetailsMsg:
		return s.takeRow(msg)

	case rowcheck.RecheckMsg:
		return s.recheck(msg)

	case common.ReleaseChangedMsg:
		if msg.Ns == s.ns && msg.Name == s.name {
			return s.reload()
		}
		return nil

	case common.LiveMsg:
		return s.applyLive(msg.Ev)

	case permissionsMsg:
		if msg.Ns == s.ns && msg.Err == nil {
			s.perms = msg.Perms
		}
		return nil

	case common.ActionDoneMsg:
		if msg.Kind == common.ActionUninstall && msg.Err == nil && msg.Ns == s.ns && msg.Name == s.name {
			s.gone = msg.Text
		}
		return nil

	case tea.KeyPressMsg:
		if s.confirm != nil {
			return s.updateDialog(msg)
		}
		return s.handleKey(msg)
	}
	return nil
}

// setRows replaces the revisions, newest selected on first load, keeping the
// selection and what was decoded of records that did not change.
func (s *Screen) setRows(rows []kube.RevisionRow) {
	var keep int
	if r := s.selected(); r != nil {
		keep = r.Revision
	}
	old := map[string]kube.RevisionRow{}
	for _, r := range s.rows {
		old[common.RowID(r)] = r
	}
	for i, r := range rows {
		if o, ok := old[common.RowID(r)]; ok && (o.Known || o.Broken) {
			rows[i] = o
		}
	}
	s.rows = rows
	s.keepMark()
	s.list.SetCursor(len(rows) - 1)
	for i, r := range rows {
		if r.Revision == keep {
			s.list.SetCursor(i)
		}
	}
	s.clamp()
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if s.list.Moves(msg) {
		s.clamp()
		s.list, _ = s.list.Update(msg)
		return nil
	}
	for _, a := range s.historyOps() {
		if key.Matches(msg, *a.key) {
			if s.denied(a.op) != "" {
				return s.deniedDialog(a.op, s.perms.Allows(a.op))
			}
		}
	}
	if cmd, ok := s.releaseKey(msg); ok {
		return cmd
	}
	sel := s.selected()
	if sel == nil {
		return nil
	}
	return s.revisionKey(msg, sel)
}

// releaseKey handles the keys that act on the whole release: refresh, verify,
// uninstall, prune, fix APIs and fix stuck. ok is false for any other key.
func (s *Screen) releaseKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := s.Keys.History
	if key.Matches(msg, k.Refresh) {
		// What OLMv1 says of the owner may have changed too: ask again.
		s.rowErr, s.checked, s.extAsked, s.ctlAsked = map[string]error{}, map[string]bool{}, "", false
		if s.ReadOnly() {
			return s.reload(), true
		}
		// Rights may have changed too (a new RoleBinding), and what the
		// cluster serves (a CRD that dropped a version): ask again.
		return tea.Batch(s.reload(), loadPermissions(s.Ctx, s.Client, s.ns), common.LoadServed(s.Ctx, s.Client, true)), true
	}
	if key.Matches(msg, k.Verify) {
		return s.verifyAll(), true
	}
	if key.Matches(msg, k.Uninstall) && len(s.rows) > 0 {
		p, err := s.plan()
		if err != nil {
			return common.Status(common.ShortError(err), true), true
		}
		return s.uninstallDialog(p), true
	}
	if key.Matches(msg, k.Prune) && len(s.rows) > 0 {
		if len(s.rows) < 2 {
			return common.Status(s.name+" has one revision: there is nothing to prune.", true), true
		}
		p, err := s.plan()
		if err != nil {
			return common.Status(common.ShortError(err), true), true
		}
		return s.pruneDialog(p), true
	}
	if key.Matches(msg, k.FixAPIs) && len(s.rows) > 0 {
		return s.openFixAPIs(), true
	}
	if key.Matches(msg, k.FixStuck) {
		l := s.latest()
		if l == nil || !ops.Stuckable(l.Status) {
			return common.Status(s.name+" is not pending or uninstalling: there is nothing stuck to fix.", true), true
		}
		p, err := s.plan()
		if err != nil {
			return common.Status(common.ShortError(err), true), true
		}
		return s.fixStuckDialog(p), true
	}
	return nil, false
}

// revisionKey handles the keys that act on the selected revision sel.
func (s *Screen) revisionKey(msg tea.KeyPressMsg, sel *kube.RevisionRow) tea.Cmd {
	k := s.Keys.History
	switch {
	case key.Matches(msg, k.Open):
		return common.Push(revision.New(s.Common, *sel))
	case key.Matches(msg, k.Chunks):
		return common.Push(chunks.New(s.Common, *sel))
	case key.Matches(msg, k.Expand):
		s.expanded = !s.expanded
		s.clamp()
		return nil
	case key.Matches(msg, k.Mark):
		if s.mark == sel.Revision {
			s.mark = 0
		} else {
			s.mark, s.markAt = sel.Revision, time.Time{}
			if sel.Known {
				s.markAt = sel.Updated
			}
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
			return common.Status(fmt.Sprintf("Revision %d is the first stored: nothing before it to compare with. Mark another with space.", sel.Revision), true)
		}
		return common.Push(diff.New(s.Common, s.ns, s.name, from, to))
	case key.Matches(msg, k.Status):
		if sel.Broken {
			return common.Status(fmt.Sprintf("Revision %d cannot be read, so its objects are not known.", sel.Revision), true)
		}
		return common.Push(status.New(s.Common, s.ns, s.name, sel.Revision))
	case key.Matches(msg, k.Live):
		if sel.Broken {
			return common.Status(fmt.Sprintf("Revision %d cannot be read, so it cannot be compared with the cluster.", sel.Revision), true)
		}
		return common.Push(diff.NewLive(s.Common, s.ns, s.name, sel.Revision))
	case key.Matches(msg, k.Rollback):
		if sel.Broken {
			return common.Status(fmt.Sprintf("Revision %d cannot be read, so it cannot be rolled back to.", sel.Revision), true)
		}
		p, err := s.plan()
		if err != nil {
			return common.Status(common.ShortError(err), true)
		}
		rs := rollback.New(s.Common, p, sel.Revision)
		rs.Served = s.apis.Served
		if l := s.latest(); l != nil && kube.Pending(l.Status) {
			rs.LeftPending = fmt.Sprintf("Revision %d stays %s under the new one: F in the history fixes it first.", l.Revision, l.Status)
		}
		return common.Push(rs)
	case key.Matches(msg, k.Delete):
		p, err := s.plan()
		if err != nil {
			return common.Status(common.ShortError(err), true)
		}
		return s.deleteDialog(p, *sel)
	}
	return nil
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	body := s.tableView()
	if s.confirm != nil {
		s.confirm.SetSize(s.Width, s.Height)
		return dialog.Overlay(body, s.confirm.View(), s.Width, s.Height)
	}
	return body
}

// HasTypedInput reports whether a dialog holds text the person typed, which ctrl+c asks before losing.
func (s *Screen) HasTypedInput() bool {
	return s.confirm != nil && s.confirm.HasTypedInput()
}
