package pods

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
	"github.com/chunkview/chunkview/ui/theme"
)

// Describe shows what kubectl describe says first of a workload or a Pod:
// its owner, conditions, images and probes (render.DescribeOf), then its
// Warning events and those of what it runs.
type Describe struct {
	common.Common
	id             uint64
	kind, ns, name string
	scrub          func(string) string
	events         []live.WarningEvent

	loading bool
	err     error
	d       *live.Description
	vp      viewer.Model
}

// NewDescribe opens the description of kind ns/name (one of
// live.DescribeKinds), its messages masked by scrub; events are the
// release's Warning events.
func NewDescribe(c common.Common, scrub func(string) string, kind, ns, name string, events []live.WarningEvent) *Describe {
	return &Describe{Common: c, id: screens.Add(1), kind: kind, ns: ns, name: name, scrub: scrub, events: events, vp: c.NewViewer()}
}

// describedMsg answers describe for screen id.
type describedMsg struct {
	id  uint64
	d   *live.Description
	err error
}

func (s *Describe) read() tea.Cmd {
	s.loading = true
	ctx, c, id, kind, ns, name, scrub := s.Ctx, s.Client, s.id, s.kind, s.ns, s.name, s.scrub
	return func() tea.Msg {
		d, err := live.Describe(ctx, c.Clientset(), kind, ns, name, scrub)
		return describedMsg{id: id, d: d, err: err}
	}
}

// Init reads the object.
func (s *Describe) Init() tea.Cmd { return s.read() }

// Title is the part of the breadcrumb it adds.
func (s *Describe) Title() string { return "describe " + s.kind + "/" + s.name }

// Busy reports whether it waits on the cluster.
func (s *Describe) Busy() bool { return s.loading }

// Capturing: it takes no typed text.
func (s *Describe) Capturing() bool { return false }

// HandlesBack: esc leaves it.
func (s *Describe) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Describe) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.vp.SetSize(w, h)
	s.rerender()
}

// Help returns its keys.
func (s *Describe) Help() common.HelpKeys {
	return common.HelpKeys{
		Short: []key.Binding{s.Keys.Pods.Refresh, s.Keys.Scroll.Down, s.Keys.Scroll.PageDown},
		Full:  [][]key.Binding{{s.Keys.Pods.Refresh}, s.Keys.Scroll.Bindings()},
	}
}

// Update takes a key, or the answer of its read.
func (s *Describe) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case describedMsg:
		if msg.id == s.id {
			s.loading, s.d, s.err = false, msg.d, msg.err
			s.rerender()
		}
		return nil
	case tea.KeyPressMsg:
		if key.Matches(msg, s.Keys.Pods.Refresh) {
			return s.read()
		}
		var cmd tea.Cmd
		s.vp, cmd = s.vp.Update(msg)
		return cmd
	}
	return nil
}

func (s *Describe) rerender() {
	if s.Width == 0 {
		return
	}
	st := s.Styles
	switch {
	case s.err != nil:
		s.vp.SetContent(common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("r: read again · esc: back"))
		return
	case s.d == nil:
		s.vp.SetContent(st.Dim.Render("Reading " + s.kind + "/" + s.name + "…"))
		return
	}
	now := s.Now()
	var out []string
	for i, l := range render.DescribeOf(s.d, now) {
		indent := strings.Repeat("  ", l.Depth)
		text := human.WrapCells(l.Text, max(s.Width-len(indent), 10))
		for _, w := range strings.Split(text, "\n") {
			w = indent + w
			if i == 0 {
				w = st.Title.Render(w)
			} else {
				w = common.Paint(st, w, l.Meaning)
			}
			out = append(out, w)
		}
	}
	evs := live.EventsAbout(s.events, s.kind, s.name)
	out = append(out, "", "Warning events"+st.Dim.Render(" · newest first"))
	if len(evs) == 0 {
		out = append(out, st.Dim.Render("  none"))
	}
	out = append(out, eventTable(st, evs, s.Width, len(evs)+1, now)...)
	s.vp.SetContent(strings.Join(out, "\n"))
}

// eventLayout lays out the events' columns, by render's names.
var eventLayout = map[string]table.Column{
	"LAST SEEN": {Width: 5},
	"OBJECT":    {Width: 24, Flex: 1},
	"REASON":    {Width: 20},
	"MESSAGE":   {Width: 16, Flex: 3},
}

// eventTable draws evs (render.EventsOf) in at most n lines, the header
// among them.
func eventTable(st *theme.Styles, evs []live.WarningEvent, width, n int, now time.Time) []string {
	if len(evs) == 0 || n < 2 {
		return nil
	}
	t := render.EventsOf(evs, now)
	cols := table.FitColumns(common.TableColumns(t, eventLayout), width)
	out := []string{table.RenderHeader(cols, &st.TableHeader)}
	for i := range t.Rows {
		if len(out) == n-1 && i < len(t.Rows)-1 {
			out = append(out, st.Dim.Render(fmt.Sprintf("  … and %d more", len(t.Rows)-i)))
			break
		}
		out = append(out, table.RenderRow(cols, common.TableCells(st, t, i), "  "))
	}
	return out
}

// View draws it in exactly its size.
func (s *Describe) View() string { return s.vp.View() }
