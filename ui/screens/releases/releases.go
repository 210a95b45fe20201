package releases

import (
	"sort"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/picker"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/theme"
)

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

// refilter applies the filter, keeping the list's order: by default the rows
// whose name holds the text (any case), as k9s does; with a leading "~", a fuzzy
// match on name, namespace, chart, status and store.
func (s *Screen) refilter() {
	s.Shown = matchReleases(s.Items, s.filter.Value())
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

// apisLine is the report of row l when Helm can no longer upgrade it, for the
// detail lines; nil otherwise.
func (s *Screen) apisLine(l kube.RevisionRow) *apis.Report {
	if rep, bad := s.cannotUpgrade(l); bad && !l.Broken {
		return &rep
	}
	return nil
}
