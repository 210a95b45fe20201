package pods

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/table"
)

// Screen lists the Pods of one workload of a release (a Deployment,
// StatefulSet, DaemonSet or Job, a hook Job among them), as `chunkview status
// -o wide` does (render.PodsOf), then the Warning events of the workload and
// of its Pods; l shows a Pod's log, d describes it.
type Screen struct {
	common.Common
	id uint64
	// ns and release name the release, rev its revision (0: the one status
	// shows); kind, objNs and obj the workload.
	ns, release      string
	rev              int
	kind, objNs, obj string
	// events are the release's Warning events, as the resources view read them.
	events []live.WarningEvent

	loading bool
	err     error
	pods    *live.ReleasePods
	w       *live.WorkloadPods
	list    table.Model
}

// New opens the Pods of workload kind objNs/obj of revision rev of a
// release; events are the release's Warning events.
func New(c common.Common, ns, release string, rev int, kind, objNs, obj string, events []live.WarningEvent) *Screen {
	return &Screen{Common: c, id: screens.Add(1), ns: ns, release: release, rev: rev, kind: kind, objNs: objNs, obj: obj,
		events: events, list: c.NewTable()}
}

// IsWorkload reports whether kind has Pods the screen lists.
func IsWorkload(kind string) bool {
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet", "Job":
		return true
	}
	return false
}

// Init reads the release's Pods.
func (s *Screen) Init() tea.Cmd { return s.reload() }

func (s *Screen) reload() tea.Cmd {
	s.loading = true
	return readPods(s.Ctx, s.Client, s.id, s.ns, s.release, s.rev)
}

// Title is the part of the breadcrumb it adds.
func (s *Screen) Title() string { return "Pods of " + s.kind + "/" + s.obj }

// Busy reports whether it waits on the cluster.
func (s *Screen) Busy() bool { return s.loading }

// Capturing: it takes no typed text.
func (s *Screen) Capturing() bool { return false }

// HandlesBack: esc leaves it.
func (s *Screen) HandlesBack() bool { return false }

// SetSize sets the size it draws in.
func (s *Screen) SetSize(w, h int) {
	s.Common.SetSize(w, h)
	s.fit()
}

// Help returns its keys.
func (s *Screen) Help() common.HelpKeys {
	k := s.Keys.Pods
	return common.HelpKeys{
		Short: []key.Binding{k.Logs, k.Describe, s.Keys.List.Down, k.Refresh},
		Full:  [][]key.Binding{{k.Logs, k.Describe, k.Refresh}, s.Keys.List.Bindings()},
	}
}

// Update takes a key, or the answer of its read.
func (s *Screen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case podsMsg:
		if msg.id != s.id {
			return nil
		}
		s.loading, s.pods, s.err, s.w = false, msg.pods, msg.err, nil
		if s.err == nil {
			s.w = s.workload()
			if s.w == nil {
				s.err = fmt.Errorf("%s/%s is not in the cluster: it has no Pods to show", strings.ToLower(s.kind), s.obj)
			}
		}
		s.fit()
		return nil
	case tea.KeyPressMsg:
		k := s.Keys.Pods
		switch {
		case key.Matches(msg, k.Refresh):
			return s.reload()
		case key.Matches(msg, k.Logs):
			if p, ok := s.selected(); ok {
				return common.Push(NewLog(s.Common, s.pods, s.ns, s.release, s.rev, "Pod", p.Name))
			}
			return nil
		case key.Matches(msg, k.Describe):
			if p, ok := s.selected(); ok {
				return common.Push(NewDescribe(s.Common, s.pods.Scrub, "Pod", s.w.Namespace, p.Name, s.events))
			}
			return nil
		}
		s.list, _ = s.list.Update(msg)
	}
	return nil
}

// workload finds the screen's workload among the Pods read.
func (s *Screen) workload() *live.WorkloadPods {
	for i, w := range s.pods.Workloads {
		if w.Kind == s.kind && w.Name == s.obj && (s.objNs == "" || w.Namespace == s.objNs) {
			return &s.pods.Workloads[i]
		}
	}
	return nil
}

// selected is the Pod under the cursor.
func (s *Screen) selected() (live.PodState, bool) {
	if s.w == nil || s.list.Cursor() < 0 || s.list.Cursor() >= len(s.w.Pods) {
		return live.PodState{}, false
	}
	return s.w.Pods[s.list.Cursor()], true
}

// The Pods table's columns, by render's names.
var podLayout = map[string]table.Column{
	"NAME":      {Width: 22, Flex: 1},
	"READY":     {Width: 5},
	"STATUS":    {Width: 16},
	"RESTARTS":  {Width: 15},
	"AGE":       {Width: 5},
	"NODE":      {Width: 11, Flex: 1, Prio: 1},
	"LAST EXIT": {Width: 9, Flex: 1, Prio: 2},
}

// podsHeadLines are the lines above the table: the workload and its count, a
// remark or the keys.
const podsHeadLines = 2

// layout splits the height: rows for the Pods, the rest for the events.
func (s *Screen) layout() (podRows, eventLines int) {
	ev := len(live.EventsAbout(s.events, s.kind, s.obj))
	eventLines = 2
	if ev > 0 {
		eventLines = min(3+ev, max(s.Height/3, 5))
	}
	return max(s.Height-podsHeadLines-1-eventLines, 1), eventLines
}

// fit sets the cursor over the Pods.
func (s *Screen) fit() {
	n := 0
	if s.w != nil {
		n = len(s.w.Pods)
	}
	rows, _ := s.layout()
	s.list.Fit(n, rows)
}

// View draws it in exactly its size.
func (s *Screen) View() string {
	st := s.Styles
	switch {
	case s.err != nil:
		return common.RenderError(st, s.err, s.Width) + "\n\n" + st.Dim.Render("r: read again · esc: back")
	case s.w == nil:
		return st.Dim.Render("Reading the Pods…")
	}
	now := s.Now()
	p := render.PodsOf(*s.w, now)
	_, evLines := s.layout()
	head := common.Paint(st, p.Title.Text, p.Title.Meaning)
	sub := st.Dim.Render("l: log · d: describe · newest first")
	if p.Remark != nil {
		sub = common.Paint(st, p.Remark.Text, p.Remark.Meaning)
	}
	lines := []string{head, sub}
	cols := table.FitColumns(common.TableColumns(p.Table, podLayout), s.Width)
	nameW := table.ColWidth(cols, "NAME")
	lines = append(lines, table.RenderHeader(cols, &st.TableHeader))
	for i := s.list.Offset(); i < s.list.End(); i++ {
		cells := common.TableCells(st, p.Table, i, "STATUS")
		// A Pod's name ends with what tells it from its siblings.
		cells["NAME"] = table.Plain(midCut(p.Table.Rows[i][0].Text, nameW))
		gutter := "  "
		if i == s.list.Cursor() {
			gutter = st.Cursor.Render("▶") + " "
			cells["NAME"] = table.Styled(cells["NAME"].Text, &st.Selected)
		}
		lines = append(lines, table.RenderRow(cols, cells, gutter))
	}
	if len(s.w.Pods) == 0 {
		lines = append(lines, st.Dim.Render("  no Pods"))
	}
	return strings.Join(lines, "\n") + "\n" + s.eventLines(evLines)
}

// eventLines draws the Warning events of the workload and its Pods in n lines.
func (s *Screen) eventLines(n int) string {
	st := s.Styles
	evs := live.EventsAbout(s.events, s.kind, s.obj)
	out := []string{"", st.Title.Render("Warning events") + st.Dim.Render(fmt.Sprintf(" of %s/%s and its Pods · newest first", s.kind, s.obj))}
	if len(evs) == 0 {
		out[1] += st.Dim.Render(": none")
		return strings.Join(out, "\n")
	}
	return strings.Join(append(out, eventTable(st, evs, s.Width, n-2, s.Now())...), "\n")
}

// midCut fits s in w cells by cutting its middle: the start names the
// workload, the end tells its Pods apart.
func midCut(s string, w int) string {
	r := []rune(s)
	if len(r) <= w || w < 8 {
		return s
	}
	tail := min(6, (w-1)/2)
	return string(r[:w-1-tail]) + "…" + string(r[len(r)-tail:])
}
