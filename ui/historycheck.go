package ui

import (
	tea "charm.land/bubbletea/v2"
)

// How the history learns the health of its revisions: details or the chunk check
// for each row (fill), a full decode on V (verifyAll), and a second look at rows
// another writer was storing (recheck).

// fill asks for the details of every revision that lacks them: the trend needs
// all their sizes. Revisions with a summary get the cheap chunk check.
func (s *historyScreen) fill() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range s.rows {
		id := rowID(r)
		if s.inflight[id] || s.checked[id] || r.Broken || (r.Known && r.Summary.Chunks <= 1) {
			continue
		}
		if _, failed := s.rowErr[id]; failed {
			continue
		}
		s.inflight[id] = true
		cmds = append(cmds, fillRow(s.ctx, s.client, r, false))
	}
	return tea.Batch(cmds...)
}

// takeRow takes the answer of fillRow or verifyRow into its row.
func (s *historyScreen) takeRow(msg rowDetailsMsg) tea.Cmd {
	var cmds []tea.Cmd
	// A V run counts every answer it asked for, even one whose row was read
	// again meanwhile, so that it always ends with its result line.
	if s.verify != nil && msg.verified {
		id := rowID(msg.answered())
		if s.verify.answer(id, itoa(msg.row.Revision), msg.row, msg.err) {
			cmds = append(cmds, s.verify.result())
			s.verify = nil
		}
	}
	for i := range s.rows {
		r := &s.rows[i]
		if !msg.matches(*r) {
			continue
		}
		id := rowID(*r)
		delete(s.inflight, id)
		if msg.err != nil {
			s.checked[id] = true
			s.rowErr[id] = msg.err
			continue
		}
		*r = msg.row
		if r.Writing {
			cmds = append(cmds, recheckLater(*r))
			continue
		}
		s.checked[id] = true
	}
	return tea.Batch(cmds...)
}

// recheck checks again a row another writer was storing.
func (s *historyScreen) recheck(msg recheckMsg) tea.Cmd {
	for _, r := range s.rows {
		if msg.matches(r) && r.Writing && !s.inflight[rowID(r)] {
			s.inflight[rowID(r)] = true
			return fillRow(s.ctx, s.client, r, false)
		}
	}
	return nil
}

// verifyAll decodes every revision, which reads all their chunks, and ends with a
// result line once all have answered.
func (s *historyScreen) verifyAll() tea.Cmd {
	s.verify = newVerifyRun("revision")
	var cmds []tea.Cmd
	for _, r := range s.rows {
		if r.Broken {
			s.verify.already(itoa(r.Revision))
			continue
		}
		s.verify.ask(rowID(r))
		s.inflight[rowID(r)] = true
		cmds = append(cmds, verifyRow(s.ctx, s.client, r))
	}
	if len(cmds) == 0 {
		cmd := s.verify.result()
		s.verify = nil
		return cmd
	}
	return tea.Batch(cmds...)
}
