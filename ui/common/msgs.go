package common

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

// PermissionsMsg answers LoadPermissions: what the user may do with the release
// records of namespace ns.
type PermissionsMsg struct {
	Ns    string
	Perms *kube.Permissions
	Err   error
}

// LoadPermissions asks the API server what the user may do with Secrets in the
// storage namespace of ns (SelfSubjectAccessReviews), so that a screen can turn
// off the actions that would be refused, with the reason.
func LoadPermissions(ctx context.Context, c *kube.Client, ns string) tea.Cmd {
	return func() tea.Msg {
		p, err := ops.Can(ctx, c, ns)
		return PermissionsMsg{Ns: ns, Perms: p, Err: err}
	}
}

// RowDetailsMsg answers FillRow and VerifyRow: the row of one revision record,
// decoded or checked. Screens match it by store, storage namespace, key and
// resourceVersion (see matches): a ConfigMap may share a Secret's name.
type RowDetailsMsg struct {
	Driver      string
	Ns, Key, Rv string
	Row         kube.RevisionRow
	Err         error
	// Verified is set for VerifyRow's answers.
	Verified bool
}

// Matches reports whether the message answers for the record of r as it is now.
func (m RowDetailsMsg) Matches(r kube.RevisionRow) bool {
	return SameStore(m.Driver, r.Driver) && r.StorageNamespace == m.Ns && r.Key == m.Key && r.ResourceVersion == m.Rv
}

// Answered is the row the message answers for, as RowID names it.
func (m RowDetailsMsg) Answered() kube.RevisionRow {
	return kube.RevisionRow{Driver: m.Driver, StorageNamespace: m.Ns, Key: m.Key, ResourceVersion: m.Rv}
}

// FillRow fills in what the listing could not tell about one row: rows without a
// summary are decoded (FillDetails), or, with peek, get one from their index
// Secret (FillSummaries: chart and versions without sizes, decoding only when the
// index's slice does not hold them); rows with one are checked for missing
// chunks from metadata, which costs one small list. The release list peeks; the
// history, whose trend needs every revision's size, decodes.
func FillRow(ctx context.Context, c *kube.Client, row kube.RevisionRow, peek bool) tea.Cmd {
	return func() tea.Msg {
		msg := RowDetailsMsg{Driver: row.Driver, Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion}
		r := row
		// A row being written is checked afresh.
		r.Writing, r.Unchecked = false, ""
		fill := c.FillDetails
		if peek {
			fill = c.FillSummaries
		}
		if !r.Known {
			msg.Err = fill(ctx, []*kube.RevisionRow{&r})
		}
		if msg.Err == nil && r.Known && !r.Checked && !r.Broken && !r.Writing {
			// A summary peeked from the index: its chunks were not read.
			r, msg.Err = c.CheckChunks(ctx, r)
		}
		msg.Row = r
		return msg
	}
}

// FillRows is FillRow, with peek, for several rows of the release list at once:
// their summaries are read together (FillSummaries reads index Secrets ten to a
// list) and their chunks checked with one list, where each FillRow takes a GET
// and a list of its own. It answers with a RowDetailsMsg per row. A row the
// batch leaves without a summary (its record gone, a request refused), or whose
// chunk check failed, is filled again on its own by FillRow, so that the error it
// shows is its own.
func FillRows(ctx context.Context, c *kube.Client, rows []kube.RevisionRow) tea.Cmd {
	if len(rows) == 1 {
		return FillRow(ctx, c, rows[0], true)
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
				cmds[i] = FillRow(ctx, c, rows[i], true)
				continue
			}
			msg := RowDetailsMsg{Driver: r.Driver, Ns: r.StorageNamespace, Key: r.Key, Rv: rows[i].ResourceVersion, Row: r}
			cmds[i] = func() tea.Msg { return msg }
		}
		return tea.BatchMsg(cmds)
	}
}

// VerifyRow decodes a row's revision whatever its summary says, which reads all
// its chunks: the only way to find a chunk whose bytes were damaged.
func VerifyRow(ctx context.Context, c *kube.Client, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		msg := RowDetailsMsg{Driver: row.Driver, Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion, Row: row, Verified: true}
		msg.Row, msg.Err = c.VerifyRow(ctx, row)
		return msg
	}
}

// ActionKind names an operation that changes the cluster.
type ActionKind string

const (
	ActionRollback  ActionKind = "rollback"
	ActionUninstall ActionKind = "uninstall"
	ActionDelete    ActionKind = "delete-revision"
	ActionFixStuck  ActionKind = "fix-stuck"
	ActionPrune     ActionKind = "prune"
)

// ActionDoneMsg reports an operation's outcome: text says what happened, err why
// it failed.
type ActionDoneMsg struct {
	Kind     ActionKind
	Ns, Name string
	rev      int
	Text     string
	Err      error
}

// OpPlannedMsg answers PlanOp: the operation a dialog asks about, planned from
// the rows its screen showed.
type OpPlannedMsg struct {
	Kind     ActionKind
	Ns, Name string
	Op       ops.Operation
	Err      error
}

// PlanOp plans an operation for a dialog: plan decodes what it needs through the
// details cache, which the screen's own reads have mostly filled.
func PlanOp(kind ActionKind, ns, name string, plan func() (ops.Operation, error)) tea.Cmd {
	return func() tea.Msg {
		op, err := plan()
		return OpPlannedMsg{Kind: kind, Ns: ns, Name: name, Op: op, Err: err}
	}
}

// RunOp applies the operation the screen showed and the person confirmed, and
// nothing else; done says what happened once it succeeded.
func RunOp(ctx context.Context, c *kube.Client, kind ActionKind, rev int, op ops.Operation, done func() string) tea.Cmd {
	return func() tea.Msg {
		p := op.Base()
		msg := ActionDoneMsg{Kind: kind, Ns: p.Namespace, Name: p.Release, rev: rev}
		if err := ops.NewRunner(c).Apply(ctx, op); err != nil {
			msg.Err = err
			return msg
		}
		msg.Text = done()
		return msg
	}
}

// RollbackDone says what an applied rollback did.
func RollbackDone(rb *ops.Rollback) func() string {
	return func() string {
		return fmt.Sprintf("Rolled back %s to revision %d: revision %d created.", rb.Release, rb.To, rb.NewRevision)
	}
}

// AfterAction is what a screen does once an operation answered: on success, or
// when the release turned out to have changed under the plan (kube.ErrChanged:
// nothing or part of it was applied), every screen showing the release reads it
// again. The user decides anew from what it shows; nothing is retried.
func AfterAction(msg ActionDoneMsg) tea.Cmd {
	if msg.Err == nil {
		return tea.Batch(Status(msg.Text, false), releaseChanged(msg.Ns, msg.Name))
	}
	if errors.Is(msg.Err, kube.ErrChanged) {
		return tea.Batch(Status(ShortError(msg.Err), true), releaseChanged(msg.Ns, msg.Name))
	}
	return Status(ShortError(msg.Err), true)
}

// ReleaseChangedMsg tells every screen that a release's records changed, so the
// screens showing it reload.
type ReleaseChangedMsg struct{ Ns, Name string }

func releaseChanged(ns, name string) tea.Cmd {
	return func() tea.Msg { return ReleaseChangedMsg{Ns: ns, Name: name} }
}

// PushMsg opens a screen on top of the current one; PopMsg closes the top one.
type (
	PushMsg struct{ S Screen }
	PopMsg  struct{ Status string }
)

// Push opens screen s on top of the current one.
func Push(s Screen) tea.Cmd { return func() tea.Msg { return PushMsg{S: s} } }

// Pop closes the top screen and puts status in the status line.
func Pop(status string) tea.Cmd { return func() tea.Msg { return PopMsg{Status: status} } }

// StatusMsg puts a line in the status bar.
type StatusMsg struct {
	Text string
	Err  bool
}

// Status puts text in the status line, as an error when isErr.
func Status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

// ToggleWatchMsg turns the live view on or off.
type ToggleWatchMsg struct{}

// ToggleWatch turns the live view on or off.
func ToggleWatch() tea.Msg { return ToggleWatchMsg{} }

// LiveMsg carries one event of the watch started gen-th; events of an earlier
// watch (switched off, or of another namespace view) are dropped.
type LiveMsg struct {
	Gen int
	Ev  kube.WatchEvent
}

// OpenCtxPickerMsg opens the context picker over the release list (:ctx).
type OpenCtxPickerMsg struct{}
