package ui

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// releaseItem is one row of the release list and what is known about it beyond
// the listing.
type releaseItem struct {
	row kube.ReleaseRow
	// filled is set once the row's details (or chunk check) came back.
	filled bool
	err    error
}

func (it *releaseItem) id() string { return rowID(it.row.Latest) }

// releasesScreen lists the releases in view, one row each, and fills in the rows
// on screen that the listing could not describe.
type releasesScreen struct {
	common
	viewName string
	gen      int
	loading  bool
	loaded   bool
	err      error
	// partial is set when the list across all namespaces was refused and only
	// the namespaces the user may read are shown (kube.ErrPartial).
	partial *kube.PartialError
	// skipped is set when a store could not be read at all (say ConfigMaps
	// were forbidden) and the rows are those of the other stores.
	skipped *kube.StoreSkipError
	// note is the text of the partial listing's error, to announce it once.
	note string

	items    []releaseItem
	shown    []int // indexes into items, after the filter
	cursor   int
	offset   int
	inflight map[string]bool

	filter    textinput.Model
	filtering bool
	picker    *listPicker
	// verify follows the last V until every row has answered.
	verify *verifyRun
	// live is set while the live view feeds the rows: the first list waits
	// for the watch's (see model.Init).
	live bool
}

func newReleasesScreen(c common) *releasesScreen {
	f := newTextInput()
	f.Prompt = "/"
	f.Placeholder = "part of a name; ~ first for fuzzy on name, namespace, chart, status"
	s := &releasesScreen{common: c, filter: f, inflight: map[string]bool{}}
	s.viewName = namespaceView(c.client)
	return s
}

// namespaceView names what a client looks at, for titles and to tell answers
// for another view apart.
func namespaceView(c *kube.Client) string {
	cfg := c.Config()
	switch {
	case cfg.AllNamespaces:
		return allNamespaces
	case cfg.Namespace == "":
		return "default"
	}
	return cfg.Namespace
}

func (s *releasesScreen) init() tea.Cmd {
	if s.live {
		s.loading = true
		return nil
	}
	return s.reload()
}

func (s *releasesScreen) reload() tea.Cmd {
	s.gen++
	s.loading = true
	return loadReleases(s.ctx, s.client, s.viewName, s.gen)
}

func (s *releasesScreen) title() string {
	if s.viewName == allNamespaces {
		return "Releases (all namespaces)"
	}
	return "Releases in " + s.viewName
}

func (s *releasesScreen) setSize(w, h int) {
	s.common.setSize(w, h)
	s.filter.SetWidth(max(w-4, 10))
	if s.picker != nil {
		s.picker.setSize(w, h)
	}
}

func (s *releasesScreen) busy() bool { return s.loading || len(s.inflight) > 0 }

func (s *releasesScreen) capturing() bool { return s.filtering || s.picker != nil }

func (s *releasesScreen) handlesBack() bool {
	return s.filtering || s.picker != nil || s.filter.Value() != ""
}

func (s *releasesScreen) help() helpKeys {
	k, l := s.keys.Releases, s.keys.List
	switch {
	case s.picker != nil:
		d := s.keys.Dialog
		return helpKeys{short: []key.Binding{d.Submit, s.keys.Global.Back}, full: [][]key.Binding{{d.Submit, s.keys.Global.Back}}}
	case s.filtering:
		return helpKeys{short: []key.Binding{k.Accept, k.ClearFilter}, full: [][]key.Binding{{k.Accept, k.ClearFilter}}}
	}
	// c opens what the selected row's store has: chunks, or Helm's one record.
	chunks := k.Chunks
	if it := s.selected(); it != nil {
		chunks = layoutKey(k.Chunks, it.row.Latest.Driver)
	}
	return helpKeys{
		short: []key.Binding{k.Open, k.Status, chunks, k.Filter, k.Namespace, k.Refresh, k.Verify},
		full:  [][]key.Binding{l.bindings(), {k.Open, k.Status, chunks, fuzzyHelp(k.Filter), k.Namespace}, {k.Refresh, k.Verify, k.Watch}},
	}
}

// fuzzyHelp is the filter key as the help overlay shows it: with the fuzzy
// match that a leading "~" asks for, which the short help has no room to say.
func fuzzyHelp(filter key.Binding) key.Binding {
	filter.SetHelp("/", "filter (/~ fuzzy)")
	return filter
}

// tableHeight is the number of rows the table shows.
func (s *releasesScreen) tableHeight() int {
	// Header line above, the selected row's detail (two lines) and the filter
	// line below.
	return max(s.height-4, 1)
}

func (s *releasesScreen) selected() *releaseItem {
	if s.cursor < 0 || s.cursor >= len(s.shown) {
		return nil
	}
	return &s.items[s.shown[s.cursor]]
}

func (s *releasesScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case releasesLoadedMsg:
		if msg.view != s.viewName || msg.gen != s.gen {
			return nil
		}
		s.loading = false
		// A partial listing is one of the namespaces or of the stores (or
		// both, joined): its rows are shown with a note.
		var partial *kube.PartialError
		var skipped *kube.StoreSkipError
		errors.As(msg.err, &partial)
		errors.As(msg.err, &skipped)
		if msg.err != nil && partial == nil && skipped == nil {
			s.err = msg.err
			return nil
		}
		// The note goes to the status line when the listing turns partial, not on
		// every reload.
		announce := msg.err != nil && errorText(msg.err) != s.note
		s.err, s.partial, s.skipped, s.note = nil, partial, skipped, errorText(msg.err)
		s.loaded = true
		s.setRows(msg.rows)
		if announce {
			return tea.Batch(s.fillVisible(), status(partialAnnouncement(partial, skipped), true))
		}
		return s.fillVisible()

	case rowDetailsMsg:
		var cmds []tea.Cmd
		for i := range s.items {
			it := &s.items[i]
			l := it.row.Latest
			if !msg.matches(l) {
				continue
			}
			delete(s.inflight, it.id())
			if s.verify != nil && msg.verified && s.verify.answer(it.id(), l.StorageNamespace+"/"+l.Name, msg.row, msg.err) {
				cmds = append(cmds, s.verify.result())
				s.verify = nil
			}
			it.filled = true
			it.err = msg.err
			if msg.err == nil {
				it.row.Latest = msg.row
				if msg.row.Writing {
					cmds = append(cmds, recheckLater(msg.row))
				}
			}
		}
		return tea.Batch(cmds...)

	case recheckMsg:
		for i := range s.items {
			it := &s.items[i]
			l := it.row.Latest
			if msg.matches(l) && l.Writing && !s.inflight[it.id()] {
				s.inflight[it.id()] = true
				return fillRow(s.ctx, s.client, l, true)
			}
		}
		return nil

	case releaseChangedMsg:
		if s.loading {
			return nil
		}
		return s.reload()

	case liveMsg:
		return s.applyLive(msg.ev)

	case releaseReadMsg:
		return s.takeRelease(msg)

	case nsChosenMsg:
		s.picker = nil
		s.client = s.client.WithNamespace(msg.ns, msg.all)
		s.viewName = namespaceView(s.client)
		s.items, s.shown, s.cursor, s.offset, s.loaded, s.err, s.partial, s.skipped, s.note = nil, nil, 0, 0, false, nil, nil, nil, ""
		s.inflight = map[string]bool{}
		if s.live {
			// The watch restarts over the new view and its first list
			// loads it.
			s.gen++
			s.loading = true
			return nil
		}
		return s.reload()

	case openCtxPickerMsg:
		s.picker = newCtxPicker(s.common)
		s.picker.setSize(s.width, s.height)
		return s.picker.init()

	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	if s.picker != nil {
		cmd, _ := s.picker.update(msg)
		return cmd
	}
	if s.filtering {
		var cmd tea.Cmd
		s.filter, cmd = s.filter.Update(msg)
		return cmd
	}
	return nil
}

// partialAnnouncement says in full what a partial listing left out, for the
// status line: the namespaces, then each store skipped with why.
func partialAnnouncement(partial *kube.PartialError, skipped *kube.StoreSkipError) string {
	var parts []string
	if partial != nil {
		parts = append(parts, partial.Error())
	}
	if skipped != nil {
		for _, d := range kube.AllDrivers {
			if err, ok := skipped.Skipped[d]; ok {
				parts = append(parts, fmt.Sprintf("The %s store was skipped: %s", kube.DriverLabel(d), shortError(err)))
			}
		}
	}
	return strings.Join(parts, " · ")
}

// releaseID names a release across reloads: by store, storage namespace and name.
func releaseID(l kube.RevisionRow) string {
	return storeOf(l.Driver) + ":" + l.StorageNamespace + "/" + l.Name
}

// errorText is err's message, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return oneLine(err.Error())
}

// setRows replaces the rows, keeping what was learnt about records that did not
// change and the selection.
func (s *releasesScreen) setRows(rows []kube.ReleaseRow) {
	var keep string
	if it := s.selected(); it != nil {
		keep = releaseID(it.row.Latest)
	}
	old := map[string]releaseItem{}
	for _, it := range s.items {
		old[it.id()] = it
	}
	// Sorted by the namespace shown, which is the release's own: with one storage
	// namespace for all (OLMv1) the listing's order says nothing.
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Latest, rows[j].Latest
		if na, nb := releaseNamespace(a), releaseNamespace(b); na != nb {
			return na < nb
		}
		return a.Name < b.Name
	})
	s.items = make([]releaseItem, len(rows))
	for i, r := range rows {
		it := releaseItem{row: r}
		if o, ok := old[it.id()]; ok && o.filled {
			// The same latest record, filled already: keep what was read of
			// it, and take the listing's counts and sizes of the rest.
			it = o
			latest := it.row.Latest
			it.row = r
			it.row.Latest = latest
		}
		s.items[i] = it
	}
	s.refilter()
	for i, idx := range s.shown {
		l := s.items[idx].row.Latest
		if releaseID(l) == keep {
			s.cursor = i
		}
	}
	s.clamp()
}

func (s *releasesScreen) clamp() {
	s.cursor = max(0, min(s.cursor, len(s.shown)-1))
	s.offset = scrollWindow(s.cursor, s.offset, s.tableHeight(), len(s.shown))
}

// verifyVisible decodes the latest revision of every row on screen. The listing
// and the chunk check read metadata only, so a chunk whose bytes were damaged
// shows only once its data is read.
func (s *releasesScreen) verifyVisible() tea.Cmd {
	// The list checks each release's latest revision; a history's V checks
	// every revision. The result says which, so that "verified" claims no more.
	s.verify = newVerifyRun("latest revision")
	s.verify.scope = " (older revisions: V in a release's history)"
	var cmds []tea.Cmd
	end := min(s.offset+s.tableHeight(), len(s.shown))
	for _, idx := range s.shown[s.offset:end] {
		it := &s.items[idx]
		l := it.row.Latest
		if l.Broken {
			s.verify.already(l.StorageNamespace + "/" + l.Name)
			continue
		}
		s.verify.ask(it.id())
		s.inflight[it.id()] = true
		cmds = append(cmds, verifyRow(s.ctx, s.client, l))
	}
	if len(cmds) == 0 {
		cmd := s.verify.result()
		s.verify = nil
		return cmd
	}
	return tea.Batch(cmds...)
}

// fillVisible asks for the details of the rows on screen that lack them: the
// chunked rows in one batch (fillRows), the rows of Helm's stores, which are
// decoded whole, each on its own, so that none waits for another's decode.
func (s *releasesScreen) fillVisible() tea.Cmd {
	var rows []kube.RevisionRow
	var cmds []tea.Cmd
	end := min(s.offset+s.tableHeight(), len(s.shown))
	for _, idx := range s.shown[s.offset:end] {
		it := &s.items[idx]
		l := it.row.Latest
		if it.filled || s.inflight[it.id()] {
			continue
		}
		if l.Known && (l.Broken || l.Summary.Chunks <= 1) {
			it.filled = true
			continue
		}
		s.inflight[it.id()] = true
		if l.Driver != "" && l.Driver != kube.DriverChunked {
			cmds = append(cmds, fillRow(s.ctx, s.client, l, true))
			continue
		}
		rows = append(rows, l)
	}
	if len(rows) > 0 {
		cmds = append(cmds, fillRows(s.ctx, s.client, rows))
	}
	return tea.Batch(cmds...)
}

func (s *releasesScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if s.picker != nil {
		cmd, done := s.picker.update(msg)
		if done {
			s.picker = nil
		}
		return cmd
	}
	k := s.keys.Releases
	if s.filtering {
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
		s.cursor = 0
		s.refilter()
		s.clamp()
		return tea.Batch(cmd, s.fillVisible())
	}
	if key.Matches(msg, s.keys.Global.Back) && s.filter.Value() != "" {
		s.filter.SetValue("")
		s.refilter()
		s.clamp()
		return s.fillVisible()
	}
	if moveCursor(msg, s.keys.List, &s.cursor, len(s.shown), s.tableHeight()) {
		s.clamp()
		return s.fillVisible()
	}
	switch {
	case key.Matches(msg, k.Filter):
		s.filtering = true
		return s.filter.Focus()
	case key.Matches(msg, k.Namespace):
		var seen []string
		have := map[string]bool{}
		for _, it := range s.items {
			if ns := it.row.Latest.StorageNamespace; !have[ns] {
				have[ns] = true
				seen = append(seen, ns)
			}
		}
		sort.Strings(seen)
		s.picker = newNSPicker(s.common, seen)
		s.picker.setSize(s.width, s.height)
		return s.picker.init()
	case key.Matches(msg, k.Refresh):
		s.inflight = map[string]bool{}
		for i := range s.items {
			s.items[i].filled = false
		}
		return s.reload()
	case key.Matches(msg, k.Watch):
		return toggleWatch
	case key.Matches(msg, k.Verify):
		return s.verifyVisible()
	case key.Matches(msg, k.Open):
		if it := s.selected(); it != nil {
			l := it.row.Latest
			return push(newHistoryScreen(s.common.forRow(l), l.StorageNamespace, l.Name))
		}
	case key.Matches(msg, k.Status):
		if it := s.selected(); it != nil {
			l := it.row.Latest
			return push(newStatusScreen(s.common.forRow(l), l.StorageNamespace, l.Name, 0))
		}
	case key.Matches(msg, k.Chunks):
		if it := s.selected(); it != nil {
			cs := newChunksScreen(s.common.forRow(it.row.Latest), it.row.Latest)
			cs.named = true
			return push(cs)
		}
	}
	return nil
}

func (s *releasesScreen) view() string {
	if s.picker != nil {
		s.picker.setSize(s.width, s.height)
		return overlay(s.tableView(), s.picker.view(), s.width, s.height)
	}
	return s.tableView()
}
