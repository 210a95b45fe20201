package releases

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/picker"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/status"
	"github.com/chunkview/chunkview/ui/theme"
)

// ReleaseItem is one row of the release list and what is known about it beyond
// the listing.
type ReleaseItem struct {
	Row kube.ReleaseRow
	// Filled is set once the row's details (or chunk check) came back.
	Filled bool
	Err    error
	// reread, when set, is the latest record as the watch last saw it, whose
	// summary the row shows from the record's previous write (a status
	// rewrite, common.KeepSummary): fillVisible reads it again.
	reread *kube.RevisionRow
}

func (it *ReleaseItem) id() string { return common.RowID(it.Row.Latest) }

// Screen lists the releases in view, one row each, and fills in the rows
// on screen that the listing could not describe.
type Screen struct {
	common.Common
	ViewName string
	Gen      int
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

	Items []ReleaseItem
	Shown []int // indexes into items, after the filter
	// list is the cursor over Shown.
	list     table.Model
	Inflight map[string]bool

	filter    textinput.Model
	filtering bool
	// picker, when open, picks a namespace or a context (pickKind).
	picker   *picker.Model
	pickKind pickKind
	// verify follows the last V until every row has answered.
	verify *rowcheck.VerifyRun
	// Live is set while the live view feeds the rows: the first list waits
	// for the watch's (see model.Init).
	Live bool
	// apis is what the cluster serves, once known, and the latest
	// revisions checked against it, for the rows Helm can no longer upgrade.
	apis common.APIChecks
}

// New opens the release list of the namespace the client is set to.
func New(c common.Common) *Screen {
	f := theme.NewTextInput()
	f.Prompt = "/"
	f.Placeholder = "part of a name; ~ first for fuzzy on name, namespace, chart, status"
	list := table.New()
	list.KeyMap = c.Keys.List
	s := &Screen{Common: c, filter: f, list: list, Inflight: map[string]bool{}}
	s.ViewName = namespaceView(c.Client)
	return s
}

// namespaceView names what a client looks at, for titles and to tell answers
// for another view apart.
func namespaceView(c *kube.Client) string {
	cfg := c.Config()
	switch {
	case cfg.AllNamespaces:
		return common.AllNamespaces
	case cfg.Namespace == "":
		return "default"
	}
	return cfg.Namespace
}

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd {
	if s.Live {
		s.loading = true
		return common.LoadServed(s.Ctx, s.Client, false)
	}
	return tea.Batch(s.reload(), common.LoadServed(s.Ctx, s.Client, false))
}

// reload lists the releases again.
func (s *Screen) reload() tea.Cmd {
	s.Gen++
	s.loading = true
	return loadReleases(s.Ctx, s.Client, s.ViewName, s.Gen)
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string {
	if s.ViewName == common.AllNamespaces {
		return "Releases (all namespaces)"
	}
	return "Releases in " + s.ViewName
}

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.filter.SetWidth(max(w-4, 10))
	s.list.SetHeight(s.tableHeight())
	if s.picker != nil {
		s.picker.SetSize(w, h)
	}
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.loading || len(s.Inflight) > 0 }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return s.filtering || s.picker != nil }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool {
	return s.filtering || s.picker != nil || s.filter.Value() != ""
}

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k, l := s.Keys.Releases, s.Keys.List
	switch {
	case s.picker != nil:
		b := s.picker.KeyMap.ShortHelp()
		return common.HelpKeys{Short: b, Full: [][]key.Binding{b}}
	case s.filtering:
		return common.HelpKeys{Short: []key.Binding{k.Accept, k.ClearFilter}, Full: [][]key.Binding{{k.Accept, k.ClearFilter}}}
	}
	// c opens what the selected row's store has: chunks, or Helm's one record.
	chunks := k.Chunks
	if it := s.Selected(); it != nil {
		chunks = common.LayoutKey(k.Chunks, it.Row.Latest.Driver)
	}
	return common.HelpKeys{
		Short: []key.Binding{k.Open, k.Status, chunks, k.Filter, k.Namespace, k.Refresh, k.Verify},
		Full:  [][]key.Binding{l.Bindings(), {k.Open, k.Status, chunks, fuzzyHelp(k.Filter), k.Namespace}, {k.Refresh, k.Verify, k.Watch}},
	}
}

// fuzzyHelp is the filter key as the help overlay shows it: with the fuzzy
// match that a leading "~" asks for, which the short help has no room to say.
func fuzzyHelp(filter key.Binding) key.Binding {
	filter.SetHelp("/", "filter (/~ fuzzy)")
	return filter
}

// tableHeight is the number of rows the table shows.
func (s *Screen) tableHeight() int {
	// Header line above, the selected row's detail (two lines) and the filter
	// line below.
	return max(s.Height-4, 1)
}

// Selected is the release under the cursor, or nil.
func (s *Screen) Selected() *ReleaseItem {
	c := s.list.Cursor()
	if c < 0 || c >= len(s.Shown) {
		return nil
	}
	return &s.Items[s.Shown[c]]
}

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
				parts = append(parts, fmt.Sprintf("The %s store was skipped: %s", kube.DriverLabel(d), common.ShortError(err)))
			}
		}
	}
	return strings.Join(parts, " · ")
}

// releaseID names a release across reloads: by store, storage namespace and name.
func releaseID(l kube.RevisionRow) string {
	return common.StoreOf(l.Driver) + ":" + l.StorageNamespace + "/" + l.Name
}

// errorText is err's message, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return table.OneLine(err.Error())
}

// SetRows replaces the rows, keeping what was learnt about records that did not
// change and the selection.
func (s *Screen) setRows(rows []kube.ReleaseRow) {
	var keep string
	if it := s.Selected(); it != nil {
		keep = releaseID(it.Row.Latest)
	}
	old := map[string]ReleaseItem{}
	for _, it := range s.Items {
		old[it.id()] = it
	}
	// Sorted by the namespace shown, which is the release's own: with one storage
	// namespace for all (OLMv1) the listing's order says nothing.
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Latest, rows[j].Latest
		if na, nb := common.ReleaseNamespace(a), common.ReleaseNamespace(b); na != nb {
			return na < nb
		}
		return a.Name < b.Name
	})
	s.Items = make([]ReleaseItem, len(rows))
	for i, r := range rows {
		it := ReleaseItem{Row: r}
		if o, ok := old[it.id()]; ok && o.Filled {
			// The same latest record, filled already: keep what was read of
			// it, and take the listing's counts and sizes of the rest.
			it = o
			latest := it.Row.Latest
			it.Row = r
			it.Row.Latest = latest
		}
		s.Items[i] = it
	}
	s.refilter()
	for i, idx := range s.Shown {
		l := s.Items[idx].Row.Latest
		if releaseID(l) == keep {
			s.list.SetCursor(i)
		}
	}
	s.clamp()
}

func (s *Screen) clamp() { s.list.Fit(len(s.Shown), s.tableHeight()) }

// verifyVisible decodes the latest revision of every row on screen. The listing
// and the chunk check read metadata only, so a chunk whose bytes were damaged
// shows only once its data is read.
func (s *Screen) verifyVisible() tea.Cmd {
	// The list checks each release's latest revision; a history's V checks
	// every revision. The result says which, so that "verified" claims no more.
	s.verify = rowcheck.NewVerifyRun("latest revision")
	s.verify.Scope = " (older revisions: V in a release's history)"
	var cmds []tea.Cmd
	for _, idx := range s.Shown[s.list.Offset():s.list.End()] {
		it := &s.Items[idx]
		l := it.Row.Latest
		if l.Broken {
			s.verify.Already(l.StorageNamespace + "/" + l.Name)
			continue
		}
		s.verify.Ask(it.id())
		s.Inflight[it.id()] = true
		cmds = append(cmds, rowcheck.VerifyRow(s.Ctx, s.Client, l))
	}
	if len(cmds) == 0 {
		cmd := s.verify.Result()
		s.verify = nil
		return cmd
	}
	return tea.Batch(cmds...)
}

// fillVisible asks for the details of the rows on screen that lack them: the
// chunked rows in one batch (FillRows), the rows of Helm's stores, which are
// decoded whole, each on its own, so that none waits for another's decode.
func (s *Screen) fillVisible() tea.Cmd {
	var rows []kube.RevisionRow
	var cmds []tea.Cmd
	for _, idx := range s.Shown[s.list.Offset():s.list.End()] {
		it := &s.Items[idx]
		l := it.Row.Latest
		if it.Filled || s.Inflight[it.id()] {
			continue
		}
		if it.reread != nil {
			// The summary shown is the previous write's: read the record.
			l = *it.reread
		} else if l.Known && (l.Broken || l.Summary.Chunks <= 1) {
			it.Filled = true
			continue
		}
		s.Inflight[it.id()] = true
		if l.Driver != "" && l.Driver != kube.DriverChunked {
			cmds = append(cmds, rowcheck.FillRow(s.Ctx, s.Client, l, true))
			continue
		}
		rows = append(rows, l)
	}
	if len(rows) > 0 {
		cmds = append(cmds, rowcheck.FillRows(s.Ctx, s.Client, rows))
	}
	return tea.Batch(append(cmds, s.checkVisible())...)
}

// checkVisible checks the latest revision of the rows on screen not checked
// yet against what the cluster serves, once that is known: each is decoded
// once (the details cache keeps it for the history).
func (s *Screen) checkVisible() tea.Cmd {
	if s.apis.Served == nil {
		return nil
	}
	var rows []kube.RevisionRow
	for _, idx := range s.Shown[s.list.Offset():s.list.End()] {
		rows = append(rows, s.Items[idx].Row.Latest)
	}
	return s.apis.Check(s.Ctx, s.Client, rows)
}

// cannotUpgrade is the report of a row whose latest revision uses APIs the
// cluster no longer serves; false when it does not, or is not known to.
func (s *Screen) cannotUpgrade(l kube.RevisionRow) (apis.Report, bool) {
	return s.apis.CannotUpgrade(l)
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if s.picker != nil {
		return s.updatePicker(msg)
	}
	k := s.Keys.Releases
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
		s.list.SetCursor(0)
		s.refilter()
		s.clamp()
		return tea.Batch(cmd, s.fillVisible())
	}
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

// View draws it in exactly its size.
func (s *Screen) View() string {
	if s.picker != nil {
		s.picker.SetSize(s.Width, s.Height)
		return dialog.Overlay(s.tableView(), s.picker.View(), s.Width, s.Height)
	}
	return s.tableView()
}
