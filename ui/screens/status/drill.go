package status

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/pods"
)

// From the resources view to what k9s shows of an object: enter lists a
// workload's Pods and their events, l shows a container's log, d describes
// the object. The cursor moves over the objects, then the hooks.

// item is one object the cursor can be on.
type item struct{ kind, ns, name string }

// items are the objects of the status shown, then its hooks.
func (s *Screen) items() []item {
	if s.st == nil {
		return nil
	}
	var out []item
	for _, r := range s.st.Resources {
		out = append(out, item{r.Kind, r.Namespace, r.Name})
	}
	for _, h := range s.st.Hooks {
		out = append(out, item{h.Kind, h.Namespace, h.Name})
	}
	return out
}

// selected is the object under the cursor.
func (s *Screen) selected() (item, bool) {
	its := s.items()
	if s.sel < 0 || s.sel >= len(its) {
		return item{}, false
	}
	return its[s.sel], true
}

// drillKey handles the keys that move the cursor or open a screen on the
// object under it; handled is false for another key.
func (s *Screen) drillKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	k, l := s.Keys.Status, s.Keys.List
	switch {
	case key.Matches(msg, l.Up, l.Down):
		if n := len(s.items()); n > 0 {
			if key.Matches(msg, l.Up) {
				s.sel = max(s.sel-1, 0)
			} else {
				s.sel = min(s.sel+1, n-1)
			}
			s.rerender()
			s.showSelected()
		}
		return nil, true
	case !key.Matches(msg, k.Pods, k.Logs, k.Describe):
		return nil, false
	}
	it, ok := s.selected()
	if !ok {
		return nil, true
	}
	kind := strings.ToLower(it.kind) + "/" + it.name
	switch {
	case key.Matches(msg, k.Pods):
		if !pods.IsWorkload(it.kind) {
			return common.Status(kind+" runs no Pods: enter lists those of a Deployment, StatefulSet, DaemonSet or Job", true), true
		}
		return common.Push(pods.New(s.Common, s.ns, s.name, s.st.Revision, it.kind, it.ns, it.name, s.st.Events)), true
	case key.Matches(msg, k.Logs):
		if !pods.IsWorkload(it.kind) && it.kind != "Pod" {
			return common.Status(kind+" has no log: l shows those of a Deployment, StatefulSet, DaemonSet, Job or Pod", true), true
		}
		return common.Push(pods.NewLog(s.Common, nil, s.ns, s.name, s.st.Revision, it.kind, it.name)), true
	default:
		if !slices.Contains(live.DescribeKinds, it.kind) {
			return common.Status(kind+": d describes a "+strings.Join(live.DescribeKinds, ", "), true), true
		}
		return common.Push(pods.NewDescribe(s.Common, s.st.Scrub, it.kind, it.ns, it.name, s.st.Events)), true
	}
}

// showSelected scrolls the view so that the selected line is in it.
func (s *Screen) showSelected() {
	if s.selLine < 0 {
		return
	}
	y, h := s.vp.YOffset(), s.vp.Height()
	switch {
	case s.selLine < y:
		s.vp.SetYOffset(s.selLine)
	case s.selLine >= y+h:
		s.vp.SetYOffset(s.selLine - h + 1)
	}
}

// firstNotCurrent is where the cursor starts: on the first object that is not
// Current, else on the first.
func firstNotCurrent(st *live.ReleaseStatus) int {
	for i, r := range st.Resources {
		if r.Status != live.StatusCurrent {
			return i
		}
	}
	return 0
}
