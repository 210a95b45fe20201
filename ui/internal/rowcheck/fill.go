package rowcheck

import (
	"context"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// Every call to the cluster happens in one of the commands below, never in Update
// or View. Each result carries the record it answers (its store, storage
// namespace, key and resourceVersion), so that a screen that has moved on can
// drop a late answer.

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
	return common.SameStore(m.Driver, r.Driver) && r.StorageNamespace == m.Ns && r.Key == m.Key && r.ResourceVersion == m.Rv
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
			r, msg.Err = kube.NewChecker(c).CheckChunks(ctx, r)
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
		if err := kube.NewChecker(c).CheckChunksOf(ctx, ptrs); err != nil {
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
		msg.Row, msg.Err = kube.NewChecker(c).VerifyRow(ctx, row)
		return msg
	}
}
