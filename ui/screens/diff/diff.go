// Package diff is the screen that compares two revisions of a release, or one
// revision with the objects live in the cluster.
package diff

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/table"
)

// Screen compares two revisions: the resources added, removed and changed
// first, then a coloured unified diff per resource and for values, chart and
// notes, with keys to jump between changes. NewLive compares a revision with
// the live cluster instead.
type Screen struct {
	common.Common
	ns, name string
	from, to int
	reveal   bool

	// results holds the diffs read, masked and revealed.
	results map[bool]*revdiff.Result
	// live compares revision from with the live cluster (see live.go); drifts
	// holds its answers, by reveal.
	live    bool
	drifts  map[bool]*revdiff.Drift
	loading bool
	err     error

	view diffview.Model
}

// New compares revision from of a release with revision to.
func New(c common.Common, ns, name string, from, to int) *Screen {
	return &Screen{Common: c, ns: ns, name: name, from: from, to: to, results: map[bool]*revdiff.Result{}, view: c.NewDiff()}
}

// Init reads the diff.
func (s *Screen) Init() tea.Cmd { return s.load() }

func (s *Screen) load() tea.Cmd {
	if s.live {
		if d, ok := s.drifts[s.reveal]; ok {
			s.showLive(d)
			return nil
		}
		s.loading = true
		return loadLiveDiff(s.Ctx, s.Client, s.ns, s.name, s.from, s.reveal)
	}
	if r, ok := s.results[s.reveal]; ok {
		s.show(r)
		return nil
	}
	s.loading = true
	return loadDiff(s.Ctx, kube.NewInspector(s.Client), s.ns, s.name, s.from, s.to, s.reveal)
}

// Title names the two sides.
func (s *Screen) Title() string {
	if s.live {
		return fmt.Sprintf("diff %d→live", s.from)
	}
	return fmt.Sprintf("diff %d→%d", s.from, s.to)
}

// Busy reports whether the diff is being read.
func (s *Screen) Busy() bool { return s.loading }

// Capturing is false: the screen takes no typed text.
func (s *Screen) Capturing() bool { return false }

// HandlesBack is false: esc closes the screen.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the screen's size; the diff is rendered again at a new width.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.view.SetSize(w, h-1) // the change counter
	if !s.view.Stale(w) {
		return
	}
	if d, ok := s.drifts[s.reveal]; ok && s.live {
		s.showLive(d)
	}
	if r, ok := s.results[s.reveal]; ok && !s.live {
		s.show(r)
	}
}

// Help lists the diff's keys.
func (s *Screen) Help() common.HelpKeys {
	own := []key.Binding{s.Keys.Changes.NextChange, s.Keys.Changes.PrevChange, s.Keys.Diff.Reveal, s.Keys.Diff.Copy}
	return common.HelpKeys{Short: own, Full: [][]key.Binding{own, s.Keys.Scroll.Bindings()}}
}

// Update takes the diffs read and the keys.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LiveLoadedMsg:
		s.takeLive(msg)
		return nil
	case LoadedMsg:
		if s.live || msg.Ns != s.ns || msg.Name != s.name || msg.From != s.from || msg.To != s.to || msg.Reveal != s.reveal {
			return nil
		}
		s.loading = false
		if msg.Err != nil {
			s.err = msg.Err
			s.view.ShowError(common.ShortError(msg.Err), s.Width)
			return nil
		}
		s.err = nil
		s.results[msg.Reveal] = msg.result
		s.show(msg.result)
		return nil
	case tea.KeyPressMsg:
		if key.Matches(msg, s.Keys.Diff.Reveal) {
			s.reveal = !s.reveal
			return s.load()
		}
		if key.Matches(msg, s.Keys.Diff.Copy) {
			return s.copy()
		}
		var cmd tea.Cmd
		s.view, cmd = s.view.Update(msg)
		return cmd
	}
	return nil
}

func (s *Screen) show(r *revdiff.Result) {
	s.view.ShowDiff(r, s.Width)
}

// View draws the diff and, under it, the change counter.
func (s *Screen) View() string {
	st := s.Styles
	body := s.view.View()
	if s.loading && len(s.results) == 0 && len(s.drifts) == 0 {
		body = st.Dim.Render(fmt.Sprintf("Comparing revisions of %s…", s.name))
		if s.live {
			body = st.Dim.Render(fmt.Sprintf("Reading the live objects of %s to compare with revision %d…", s.name, s.from))
		}
	}
	return table.PadLines(body, max(s.Height-1, 1)) + "\n" + s.view.Counter()
}

// copy puts the diff shown on the clipboard, as it reads unstyled: the
// unified diff between revisions, or the live diff's text.
func (s *Screen) copy() tea.Cmd {
	if s.live {
		if d, ok := s.drifts[s.reveal]; ok && d != nil {
			return common.CopyText(d.Text(), fmt.Sprintf("diff of revision %d with the live objects", s.from), s.reveal)
		}
		return nil
	}
	if r, ok := s.results[s.reveal]; ok && r != nil {
		return common.CopyText(r.Unified(), fmt.Sprintf("diff of revisions %d and %d", s.from, s.to), s.reveal)
	}
	return nil
}

// NewLive compares revision rev with the live cluster.
func NewLive(c common.Common, ns, name string, rev int) *Screen {
	s := New(c, ns, name, rev, 0)
	s.live = true
	s.drifts = map[bool]*revdiff.Drift{}
	return s
}

// takeLive shows a live diff that answers the screen's request.
func (s *Screen) takeLive(msg LiveLoadedMsg) {
	if !s.live || msg.Ns != s.ns || msg.Name != s.name || msg.Rev != s.from || msg.Reveal != s.reveal {
		return
	}
	s.loading = false
	if msg.err != nil {
		s.err = msg.err
		s.view.ShowError(common.ShortError(msg.err), s.Width)
		return
	}
	s.err = nil
	s.drifts[msg.Reveal] = msg.Drift
	s.showLive(msg.Drift)
}

func (s *Screen) showLive(d *revdiff.Drift) {
	s.view.ShowDrift(d, s.Width)
}
