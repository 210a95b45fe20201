package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// Every call to the cluster happens in one of the commands below, never in Update
// or View. Each result carries what it answers (the list's view, the release and
// revision, the record's resourceVersion), so that a screen that has moved on can
// drop a late answer.

// permissionsMsg answers loadPermissions: what the user may do with the release
// records of namespace ns.
type permissionsMsg struct {
	ns    string
	perms *kube.Permissions
	err   error
}

// loadPermissions asks the API server what the user may do with Secrets in the
// storage namespace of ns (SelfSubjectAccessReviews), so that a screen can turn
// off the actions that would be refused, with the reason.
func loadPermissions(ctx context.Context, c *kube.Client, ns string) tea.Cmd {
	return func() tea.Msg {
		p, err := c.Can(ctx, ns)
		return permissionsMsg{ns: ns, perms: p, err: err}
	}
}

// rowDetailsMsg answers fillRow and verifyRow: the row of one revision record,
// decoded or checked. Screens match it by store, storage namespace, key and
// resourceVersion (see matches): a ConfigMap may share a Secret's name.
type rowDetailsMsg struct {
	driver      string
	ns, key, rv string
	row         kube.RevisionRow
	err         error
	// verified is set for verifyRow's answers.
	verified bool
}

// matches reports whether the message answers for the record of r as it is now.
func (m rowDetailsMsg) matches(r kube.RevisionRow) bool {
	return sameStore(m.driver, r.Driver) && r.StorageNamespace == m.ns && r.Key == m.key && r.ResourceVersion == m.rv
}

// answered is the row the message answers for, as rowID names it.
func (m rowDetailsMsg) answered() kube.RevisionRow {
	return kube.RevisionRow{Driver: m.driver, StorageNamespace: m.ns, Key: m.key, ResourceVersion: m.rv}
}

// fillRow fills in what the listing could not tell about one row: rows without a
// summary are decoded (FillDetails), or, with peek, get one from their index
// Secret (FillSummaries: chart and versions without sizes, decoding only when the
// index's slice does not hold them); rows with one are checked for missing
// chunks from metadata, which costs one small list. The release list peeks; the
// history, whose trend needs every revision's size, decodes.
func fillRow(ctx context.Context, c *kube.Client, row kube.RevisionRow, peek bool) tea.Cmd {
	return func() tea.Msg {
		msg := rowDetailsMsg{driver: row.Driver, ns: row.StorageNamespace, key: row.Key, rv: row.ResourceVersion}
		r := row
		// A row being written is checked afresh.
		r.Writing, r.Unchecked = false, ""
		fill := c.FillDetails
		if peek {
			fill = c.FillSummaries
		}
		if !r.Known {
			msg.err = fill(ctx, []*kube.RevisionRow{&r})
		}
		if msg.err == nil && r.Known && !r.Checked && !r.Broken && !r.Writing {
			// A summary peeked from the index: its chunks were not read.
			r, msg.err = c.CheckChunks(ctx, r)
		}
		msg.row = r
		return msg
	}
}

// fillRows is fillRow, with peek, for several rows of the release list at once:
// their summaries are read together (FillSummaries reads index Secrets ten to a
// list) and their chunks checked with one list, where each fillRow takes a GET
// and a list of its own. It answers with a rowDetailsMsg per row. A row the
// batch leaves without a summary (its record gone, a request refused), or whose
// chunk check failed, is filled again on its own by fillRow, so that the error it
// shows is its own.
func fillRows(ctx context.Context, c *kube.Client, rows []kube.RevisionRow) tea.Cmd {
	if len(rows) == 1 {
		return fillRow(ctx, c, rows[0], true)
	}
	return func() tea.Msg {
		rs := slices.Clone(rows)
		var unknown []*kube.RevisionRow
		for i := range rs {
			// A row being written is checked afresh.
			rs[i].Writing, rs[i].Unchecked = false, ""
			if !rs[i].Known {
				unknown = append(unknown, &rs[i])
			}
		}
		// A row that failed stays without a summary: it is filled again below.
		_ = c.FillSummaries(ctx, unknown)
		var check []int
		alone := make([]bool, len(rs))
		for i := range rs {
			r := &rs[i]
			switch {
			case !r.Known && !r.Broken:
				alone[i] = true
			case r.Known && !r.Checked && !r.Broken && !r.Writing:
				check = append(check, i)
			}
		}
		ptrs := make([]*kube.RevisionRow, len(check))
		for j, i := range check {
			ptrs[j] = &rs[i]
		}
		if err := c.CheckChunksOf(ctx, ptrs); err != nil {
			for _, i := range check {
				if r := &rs[i]; !r.Checked && !r.Broken && !r.Writing {
					alone[i] = true
				}
			}
		}
		cmds := make([]tea.Cmd, len(rs))
		for i, r := range rs {
			if alone[i] {
				cmds[i] = fillRow(ctx, c, rows[i], true)
				continue
			}
			msg := rowDetailsMsg{driver: r.Driver, ns: r.StorageNamespace, key: r.Key, rv: rows[i].ResourceVersion, row: r}
			cmds[i] = func() tea.Msg { return msg }
		}
		return tea.BatchMsg(cmds)
	}
}

// verifyRow decodes a row's revision whatever its summary says, which reads all
// its chunks: the only way to find a chunk whose bytes were damaged.
func verifyRow(ctx context.Context, c *kube.Client, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		msg := rowDetailsMsg{driver: row.Driver, ns: row.StorageNamespace, key: row.Key, rv: row.ResourceVersion, row: row, verified: true}
		msg.row, msg.err = c.VerifyRow(ctx, row)
		return msg
	}
}

// actionKind names an operation that changes the cluster.
type actionKind string

const (
	actionRollback  actionKind = "rollback"
	actionUninstall actionKind = "uninstall"
	actionDelete    actionKind = "delete-revision"
	actionFixStuck  actionKind = "fix-stuck"
	actionPrune     actionKind = "prune"
)

// actionDoneMsg reports an operation's outcome: text says what happened, err why
// it failed.
type actionDoneMsg struct {
	kind     actionKind
	ns, name string
	rev      int
	text     string
	err      error
}

// opPlannedMsg answers planOp: the operation a dialog asks about, planned from
// the rows its screen showed.
type opPlannedMsg struct {
	kind     actionKind
	ns, name string
	op       ops.Operation
	err      error
}

// planOp plans an operation for a dialog: plan decodes what it needs through the
// details cache, which the screen's own reads have mostly filled.
func planOp(kind actionKind, ns, name string, plan func() (ops.Operation, error)) tea.Cmd {
	return func() tea.Msg {
		op, err := plan()
		return opPlannedMsg{kind: kind, ns: ns, name: name, op: op, err: err}
	}
}

// runOp applies the operation the screen showed and the person confirmed, and
// nothing else; done says what happened once it succeeded.
func runOp(ctx context.Context, c *kube.Client, kind actionKind, rev int, op ops.Operation, done func() string) tea.Cmd {
	return func() tea.Msg {
		p := op.Base()
		msg := actionDoneMsg{kind: kind, ns: p.Namespace, name: p.Release, rev: rev}
		if err := ops.NewRunner(c).Apply(ctx, op); err != nil {
			msg.err = err
			return msg
		}
		msg.text = done()
		return msg
	}
}

// rollbackDone says what an applied rollback did.
func rollbackDone(rb *ops.Rollback) func() string {
	return func() string {
		return fmt.Sprintf("Rolled back %s to revision %d: revision %d created.", rb.Release, rb.To, rb.NewRevision)
	}
}

// afterAction is what a screen does once an operation answered: on success, or
// when the release turned out to have changed under the plan (kube.ErrChanged:
// nothing or part of it was applied), every screen showing the release reads it
// again. The user decides anew from what it shows; nothing is retried.
func afterAction(msg actionDoneMsg) tea.Cmd {
	if msg.err == nil {
		return tea.Batch(status(msg.text, false), releaseChanged(msg.ns, msg.name))
	}
	if errors.Is(msg.err, kube.ErrChanged) {
		return tea.Batch(status(shortError(msg.err), true), releaseChanged(msg.ns, msg.name))
	}
	return status(shortError(msg.err), true)
}

// releaseChangedMsg tells every screen that a release's records changed, so the
// screens showing it reload.
type releaseChangedMsg struct{ ns, name string }

func releaseChanged(ns, name string) tea.Cmd {
	return func() tea.Msg { return releaseChangedMsg{ns: ns, name: name} }
}

// pushMsg opens a screen on top of the current one; popMsg closes the top one.
type (
	pushMsg struct{ s screen }
	popMsg  struct{ status string }
)

func push(s screen) tea.Cmd { return func() tea.Msg { return pushMsg{s: s} } }

func pop(status string) tea.Cmd { return func() tea.Msg { return popMsg{status: status} } }

// statusMsg puts a line in the status bar.
type statusMsg struct {
	text string
	err  bool
}

func status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text, err: isErr} }
}

// toggleWatchMsg turns the live view on or off.
type toggleWatchMsg struct{}

func toggleWatch() tea.Msg { return toggleWatchMsg{} }

// liveMsg carries one event of the watch started gen-th; events of an earlier
// watch (switched off, or of another namespace view) are dropped.
type liveMsg struct {
	gen int
	ev  kube.WatchEvent
}

// openCtxPickerMsg opens the context picker over the release list (:ctx).
type openCtxPickerMsg struct{}
