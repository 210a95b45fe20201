// Package diff is the screen that compares two revisions of a release, or one
// revision with the objects live in the cluster.
package diff

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

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
	Ns, Name string
	From, To int
	Reveal   bool

	// Results holds the diffs read, masked and revealed.
	Results map[bool]*revdiff.Result
	// Live compares revision From with the live cluster (see live.go); Drifts
	// holds its answers, by reveal.
	Live    bool
	Drifts  map[bool]*revdiff.Drift
	Loading bool
	Err     error

	view diffview.Model
}

// New compares revision from of a release with revision to.
func New(c common.Common, ns, name string, from, to int) *Screen {
	return &Screen{Common: c, Ns: ns, Name: name, From: from, To: to, Results: map[bool]*revdiff.Result{}, view: c.NewDiff()}
}

// Init reads the diff.
func (s *Screen) Init() tea.Cmd { return s.load() }

func (s *Screen) load() tea.Cmd {
	if s.Live {
		if d, ok := s.Drifts[s.Reveal]; ok {
			s.showLive(d)
			return nil
		}
		s.Loading = true
		return loadLiveDiff(s.Ctx, s.Client, s.Ns, s.Name, s.From, s.Reveal)
	}
	if r, ok := s.Results[s.Reveal]; ok {
		s.show(r)
		return nil
	}
	s.Loading = true
	return loadDiff(s.Ctx, s.Client, s.Ns, s.Name, s.From, s.To, s.Reveal)
}

// Title names the two sides.
func (s *Screen) Title() string {
	if s.Live {
		return fmt.Sprintf("diff %d→live", s.From)
	}
	return fmt.Sprintf("diff %d→%d", s.From, s.To)
}

// Busy reports whether the diff is being read.
func (s *Screen) Busy() bool { return s.Loading }

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
	if d, ok := s.Drifts[s.Reveal]; ok && s.Live {
		s.showLive(d)
	}
	if r, ok := s.Results[s.Reveal]; ok && !s.Live {
		s.show(r)
	}
}

// Help lists the diff's keys.
func (s *Screen) Help() common.HelpKeys {
	own := []key.Binding{s.Keys.Changes.NextChange, s.Keys.Changes.PrevChange, s.Keys.Diff.Reveal}
	return common.HelpKeys{Short: own, Full: [][]key.Binding{own, s.Keys.Scroll.Bindings()}}
}

// Update takes the diffs read and the keys.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LiveLoadedMsg:
		s.takeLive(msg)
		return nil
	case LoadedMsg:
		if s.Live || msg.Ns != s.Ns || msg.Name != s.Name || msg.From != s.From || msg.To != s.To || msg.Reveal != s.Reveal {
			return nil
		}
		s.Loading = false
		if msg.Err != nil {
			s.Err = msg.Err
			s.view.ShowError(common.ShortError(msg.Err), s.Width)
			return nil
		}
		s.Err = nil
		s.Results[msg.Reveal] = msg.result
		s.show(msg.result)
		return nil
	case tea.KeyPressMsg:
		if key.Matches(msg, s.Keys.Diff.Reveal) {
			s.Reveal = !s.Reveal
			return s.load()
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

// Changes is the number of changes the diff shown jumps between.
func (s *Screen) Changes() int { return s.view.Changes() }

// View draws the diff and, under it, the change counter.
func (s *Screen) View() string {
	st := s.Styles
	body := s.view.View()
	if s.Loading && len(s.Results) == 0 && len(s.Drifts) == 0 {
		body = st.Dim.Render(fmt.Sprintf("Comparing revisions of %s…", s.Name))
		if s.Live {
			body = st.Dim.Render(fmt.Sprintf("Reading the live objects of %s to compare with revision %d…", s.Name, s.From))
		}
	}
	return table.PadLines(body, max(s.Height-1, 1)) + "\n" + s.view.Counter()
}
