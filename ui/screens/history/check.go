package history

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
)

// How the history learns the health of its revisions: details or the chunk check
// for each row (fill), a full decode on V (VerifyAll), and a second look at rows
// another writer was storing (recheck).

// fill asks for the details of every revision that lacks them: the trend needs
// all their sizes. Revisions with a summary get the cheap chunk check.
func (s *Screen) fill() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range s.rows {
		id := common.RowID(r)
		if s.inflight[id] || s.checked[id] || r.Broken || (r.Known && r.Summary.Chunks <= 1) {
			continue
		}
		if _, failed := s.rowErr[id]; failed {
			continue
		}
		s.inflight[id] = true
		cmds = append(cmds, rowcheck.FillRow(s.Ctx, s.Client, r, false))
	}
	return tea.Batch(cmds...)
}

// takeRow takes the answer of FillRow or VerifyRow into its row.
func (s *Screen) takeRow(msg rowcheck.RowDetailsMsg) tea.Cmd {
	var cmds []tea.Cmd
	// A V run counts every answer it asked for, even one whose row was read
	// again meanwhile, so that it always ends with its result line.
	if s.verify != nil && msg.Verified {
		id := common.RowID(msg.Answered())
		if s.verify.Answer(id, table.Itoa(msg.Row.Revision), msg.Row, msg.Err) {
			cmds = append(cmds, s.verify.Result())
			s.verify = nil
		}
	}
	for i := range s.rows {
		r := &s.rows[i]
		if !msg.Matches(*r) {
			continue
		}
		id := common.RowID(*r)
		delete(s.inflight, id)
		if msg.Err != nil {
			s.checked[id] = true
			s.rowErr[id] = msg.Err
			continue
		}
		*r = msg.Row
		if r.Writing {
			cmds = append(cmds, rowcheck.RecheckLater(*r))
			continue
		}
		s.checked[id] = true
	}
	return tea.Batch(cmds...)
}

// recheck checks again a row another writer was storing.
func (s *Screen) recheck(msg rowcheck.RecheckMsg) tea.Cmd {
	for _, r := range s.rows {
		if msg.Matches(r) && r.Writing && !s.inflight[common.RowID(r)] {
			s.inflight[common.RowID(r)] = true
			return rowcheck.FillRow(s.Ctx, s.Client, r, false)
		}
	}
	return nil
}

// verifyAll decodes every revision, which reads all their chunks, and ends with a
// result line once all have answered.
func (s *Screen) verifyAll() tea.Cmd {
	s.verify = rowcheck.NewVerifyRun("revision")
	var cmds []tea.Cmd
	for _, r := range s.rows {
		if r.Broken {
			s.verify.Already(table.Itoa(r.Revision))
			continue
		}
		s.verify.Ask(common.RowID(r))
		s.inflight[common.RowID(r)] = true
		cmds = append(cmds, rowcheck.VerifyRow(s.Ctx, s.Client, r))
	}
	if len(cmds) == 0 {
		cmd := s.verify.Result()
		s.verify = nil
		return cmd
	}
	return tea.Batch(cmds...)
}
