package releases

import (
	"errors"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/status"
)

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		return s.takeLoaded(msg)

	case rowcheck.RowDetailsMsg:
		return s.takeDetails(msg)

	case common.ServedMsg, common.APIsMsg:
		s.apis.Take(msg)
		if _, served := msg.(common.ServedMsg); served {
			return s.checkVisible()
		}
		return nil

	case rowcheck.RecheckMsg:
		for i := range s.Items {
			it := &s.Items[i]
			l := it.Row.Latest
			if msg.Matches(l) && l.Writing && !s.Inflight[it.id()] {
				s.Inflight[it.id()] = true
				return rowcheck.FillRow(s.Ctx, s.Client, l, true)
			}
		}
		return nil

	case common.ReleaseChangedMsg:
		if s.loading {
			return nil
		}
		return s.reload()

	case common.LiveMsg:
		return s.applyLive(msg.Ev)

	case releaseReadMsg:
		return s.takeRelease(msg)

	case common.NamespaceChosenMsg:
		return s.switchNamespace(msg)

	case common.OpenCtxPickerMsg:
		return s.openPicker(pickContext, s.contextPicker(), loadContexts(s.Contexts))

	case namesMsg:
		s.takeNames(msg)
		return nil

	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	if s.picker != nil {
		return s.updatePicker(msg)
	}
	if s.filtering {
		var cmd tea.Cmd
		s.filter, cmd = s.filter.Update(msg)
		return cmd
	}
	return nil
}

// takeLoaded takes a listing of the releases: its rows, or the error that left
// none; a partial listing's rows come with a note, said once in the status line.
func (s *Screen) takeLoaded(msg LoadedMsg) tea.Cmd {
	if msg.View != s.ViewName || msg.Gen != s.Gen {
		return nil
	}
	s.loading = false
	// A partial listing is one of the namespaces or of the stores (or
	// both, joined): its rows are shown with a note.
	var partial *kube.PartialError
	var skipped *kube.StoreSkipError
	errors.As(msg.Err, &partial)
	errors.As(msg.Err, &skipped)
	if msg.Err != nil && partial == nil && skipped == nil {
		s.err = msg.Err
		return nil
	}
	// The note goes to the status line when the listing turns partial, not on
	// every reload.
	announce := msg.Err != nil && errorText(msg.Err) != s.note
	s.err, s.partial, s.skipped, s.note = nil, partial, skipped, errorText(msg.Err)
	s.loaded = true
	s.setRows(msg.Rows)
	if announce {
		return tea.Batch(s.fillVisible(), common.Status(partialAnnouncement(partial, skipped), true))
	}
	return s.fillVisible()
}

// takeDetails takes a row's details read: the rows of that revision are filled,
// a verify waiting for it is answered, and one still being written is checked
// again later.
func (s *Screen) takeDetails(msg rowcheck.RowDetailsMsg) tea.Cmd {
	var cmds []tea.Cmd
	for i := range s.Items {
		it := &s.Items[i]
		l := it.Row.Latest
		if !msg.Matches(l) {
			continue
		}
		delete(s.Inflight, it.id())
		if s.verify != nil && msg.Verified && s.verify.Answer(it.id(), l.StorageNamespace+"/"+l.Name, msg.Row, msg.Err) {
			cmds = append(cmds, s.verify.Result())
			s.verify = nil
		}
		it.Filled, it.reread = true, nil
		it.Err = msg.Err
		if msg.Err == nil {
			it.Row.Latest = msg.Row
			if msg.Row.Writing {
				cmds = append(cmds, rowcheck.RecheckLater(msg.Row))
			}
		}
	}
	return tea.Batch(cmds...)
}

// switchNamespace moves the list to the namespace chosen (or all of them):
// the rows go, and the list loads there (the watch's first list, when live).
func (s *Screen) switchNamespace(msg common.NamespaceChosenMsg) tea.Cmd {
	s.picker = nil
	s.Client = s.Client.WithNamespace(msg.Ns, msg.All)
	s.ViewName = namespaceView(s.Client)
	s.Items, s.Shown, s.loaded, s.err, s.partial, s.skipped, s.note = nil, nil, false, nil, nil, nil, ""
	s.list.SetCursor(0)
	s.list.Fit(0, s.tableHeight())
	s.Inflight = map[string]bool{}
	if s.Live {
		// The watch restarts over the new view and its first list
		// loads it.
		s.Gen++
		s.loading = true
		return nil
	}
	return s.reload()
}

// handleKey takes a key: to the picker or the filter when one is open, else
// a move of the cursor or a command on the list or its selected release.
func (s *Screen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if s.picker != nil {
		return s.updatePicker(msg)
	}
	if s.filtering {
		return s.filterKey(msg)
	}
	k := s.Keys.Releases
	if key.Matches(msg, s.Keys.Global.Back) && s.filter.Value() != "" {
		s.filter.SetValue("")
		s.refilter()
		s.clamp()
		return s.fillVisible()
	}
	if s.list.Moves(msg) {
		s.clamp()
		s.list, _ = s.list.Update(msg)
		return s.fillVisible()
	}
	switch {
	case key.Matches(msg, k.Filter):
		s.filtering = true
		return s.filter.Focus()
	case key.Matches(msg, k.Namespace):
		var seen []string
		have := map[string]bool{}
		for _, it := range s.Items {
			if ns := it.Row.Latest.StorageNamespace; !have[ns] {
				have[ns] = true
				seen = append(seen, ns)
			}
		}
		sort.Strings(seen)
		return s.openPicker(pickNamespace, s.namespacePicker(seen), loadNamespaces(s.Ctx, s.Client))
	case key.Matches(msg, k.Refresh):
		s.Inflight = map[string]bool{}
		for i := range s.Items {
			s.Items[i].Filled = false
		}
		if s.apis.Served != nil {
			// A CRD may have dropped a version since: discovery afresh.
			return tea.Batch(s.reload(), common.LoadServed(s.Ctx, s.Client, true))
		}
		return s.reload()
	case key.Matches(msg, k.Watch):
		return common.ToggleWatch
	case key.Matches(msg, k.Verify):
		return s.verifyVisible()
	case key.Matches(msg, k.Open):
		if it := s.Selected(); it != nil {
			l := it.Row.Latest
			return common.Push(history.New(s.Common.ForRow(l), l.StorageNamespace, l.Name))
		}
	case key.Matches(msg, k.Status):
		if it := s.Selected(); it != nil {
			l := it.Row.Latest
			return common.Push(status.New(s.Common.ForRow(l), l.StorageNamespace, l.Name, 0))
		}
	case key.Matches(msg, k.Chunks):
		if it := s.Selected(); it != nil {
			cs := chunks.New(s.Common.ForRow(it.Row.Latest), it.Row.Latest)
			cs.Named = true
			return common.Push(cs)
		}
	}
	return nil
}

// filterKey takes a key while the filter is typed: enter keeps it, esc
// clears it, any other key edits it and the list follows.
func (s *Screen) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.Keys.Releases
	switch {
	case key.Matches(msg, k.Accept):
		s.filtering = false
		s.filter.Blur()
		return s.fillVisible()
	case key.Matches(msg, k.ClearFilter):
		s.filtering = false
		s.filter.Blur()
		s.filter.SetValue("")
		s.refilter()
		s.clamp()
		return s.fillVisible()
	}
	var cmd tea.Cmd
	s.filter, cmd = s.filter.Update(msg)
	s.list.SetCursor(0)
	s.refilter()
	s.clamp()
	return tea.Batch(cmd, s.fillVisible())
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	if s.picker != nil {
		s.picker.SetSize(s.Width, s.Height)
		return dialog.Overlay(s.tableView(), s.picker.View(), s.Width, s.Height)
	}
	return s.tableView()
}
