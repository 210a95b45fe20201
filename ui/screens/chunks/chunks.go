package chunks

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// Screen draws how one revision is stored: the index and each chunk as a bar
// against the 1 MiB Secret limit, with hash state and owner, then the totals and
// what takes the space.
type Screen struct {
	common.Common
	row kube.RevisionRow
	// Named puts the release's name in the title, when the screen below does
	// not show it.
	Named   bool
	layout  *storage.Layout
	loading bool
	// measuring is set while the payload is decoded for the sizes (the
	// layout's Secrets and hash checks are drawn meanwhile); measureErr says
	// why that failed.
	measuring  bool
	measureErr error
	err        error
	view       viewer.Model
}

// New opens the layout of the record of row.
func New(c common.Common, row kube.RevisionRow) *Screen {
	return &Screen{Common: c, row: row, view: c.NewViewer()}
}

// Init starts the first loads.
func (s *Screen) Init() tea.Cmd { return s.reload() }

func (s *Screen) reload() tea.Cmd {
	s.loading = true
	return loadLayout(s.Ctx, kube.NewInspector(s.Client), s.row.StorageNamespace, s.row.Name, s.row.Revision)
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string {
	what := "chunks"
	if common.IsHelmStore(s.row.Driver) {
		what = "record"
	}
	if s.Named {
		return fmt.Sprintf("%s › %s of revision %d", s.row.Name, what, s.row.Revision)
	}
	return fmt.Sprintf("%s of revision %d", what, s.row.Revision)
}

// Busy reports whether it waits on the cluster, for the spinner.
func (s *Screen) Busy() bool { return s.loading || s.measuring }

// Capturing reports whether it takes typed text, so that q and ? reach it.
func (s *Screen) Capturing() bool { return false }

// HandlesBack reports whether esc closes something inside it rather than the screen.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.view.SetSize(w, max(h, 1))
	s.rerender()
}

// Help returns its keys for the help line and the overlay.
func (s *Screen) Help() common.HelpKeys {
	k := s.Keys.Chunks
	sc := s.Keys.Scroll
	return common.HelpKeys{
		Short: []key.Binding{sc.Down, sc.PageDown, k.Refresh},
		Full:  [][]key.Binding{sc.Bindings(), {k.Refresh}},
	}
}

// Update takes a message: a key, or an answer to one of its requests.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LayoutLoadedMsg:
		if msg.Ns != s.row.StorageNamespace || msg.Name != s.row.Name || msg.Rev != s.row.Revision {
			return nil
		}
		s.loading = false
		s.layout, s.err, s.measureErr = msg.Layout, msg.err, nil
		s.measuring = msg.Layout != nil && !msg.Layout.Measured()
		if msg.Layout != nil {
			s.Layouts.Put(s.row, largestSecret(msg.Layout))
		}
		s.rerender()
		if s.measuring {
			return measureLayout(s.Ctx, kube.NewInspector(s.Client), msg.row, msg.Layout)
		}
		return nil
	case layoutMeasuredMsg:
		if msg.from != s.layout {
			return nil // a layout read again meanwhile
		}
		s.measuring = false
		if msg.err != nil {
			s.measureErr = msg.err
		} else {
			s.layout = msg.layout
		}
		s.rerender()
		return nil
	case common.ReleaseChangedMsg:
		if msg.Ns == s.row.StorageNamespace && msg.Name == s.row.Name {
			return s.reload()
		}
	case tea.KeyPressMsg:
		if key.Matches(msg, s.Keys.Chunks.Refresh) {
			return s.reload()
		}
		var cmd tea.Cmd
		s.view, cmd = s.view.Update(msg)
		return cmd
	}
	return nil
}

func (s *Screen) rerender() {
	st := s.Styles
	switch {
	case s.err != nil:
		s.view.SetContent(common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("r: retry · esc: back"))
	case s.layout == nil:
		s.view.SetContent(st.Dim.Render(fmt.Sprintf("Reading the %s of revision %d of %s…", map[bool]string{true: "record", false: "Secrets"}[common.IsHelmStore(s.row.Driver)], s.row.Revision, s.row.Name)))
	case common.IsHelmStore(s.row.Driver):
		s.view.SetContent(renderHelmLayout(st, s.layout, s.row.Driver, s.Now(), s.Width))
	default:
		text := renderLayout(st, s.layout, s.Now(), s.Width)
		switch {
		case s.measureErr != nil:
			text += "\n\n" + common.RenderError(st, s.measureErr, s.Width) + "\n" + st.Dim.Render("r: retry")
		case !s.layout.Measured():
			text += "\n\n" + st.Dim.Render(human.WrapCells("Decoding the payload for its decompressed size and what takes the space…", s.Width))
		}
		s.view.SetContent(text)
	}
}

// View draws it in exactly its size.
func (s *Screen) View() string { return s.view.View() }

// largestSecret is the size of the largest Secret of layout l, which the
// release list draws against the Secret limit.
func largestSecret(l *storage.Layout) int {
	n := l.Index.Bytes
	for _, c := range l.Chunks {
		n = max(n, c.Bytes)
	}
	return n
}
