package releases

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// open is the release list of the fixture's default namespace at w x h.
func open(t *testing.T, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	f := screentest.NewFixture(t)
	s := New(screentest.Common(f.Client))
	return s, screentest.New(t, s, w, h)
}

// selectRow moves the cursor to release name.
func selectRow(t *testing.T, s *Screen, h *screentest.Harness, name string) {
	t.Helper()
	for range len(s.Items) + 1 {
		if sel := s.Selected(); sel != nil && sel.Row.Latest.Name == name {
			return
		}
		h.Press("down")
	}
	t.Fatalf("no row for %s:\n%s", name, h.View())
}

// TestGolden: the list of the default namespace at 80x24 and 120x40, the
// broken release first and selected, its reason and the way on under the
// table.
func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			_, h := open(t, sz[0], sz[1])
			h.Contains("legacy", "old-tool", "web", "worker", "4 releases")
			h.Golden()
		})
	}
}

// TestBrokenRowSaysWhy: a release whose latest revision cannot be read says
// why, counting its chunks one way, and where to go from there; at 120
// columns the reason is whole.
func TestBrokenRowSaysWhy(t *testing.T) {
	s, h := open(t, 120, 40)
	selectRow(t, s, h, "legacy")
	h.Contains("✗ BROKEN", "legacy revision 2 cannot be read: 1 of 3 chunks missing: chunk 3 of 3", "c: which Secret is at fault")
	selectRow(t, s, h, "web")
	h.Lacks("cannot be read").Contains("web-1.4.0 · app 1.4 · 4 revisions holding 217 KiB · Upgrade complete")
}

// TestFilterNarrowsAndClears: / filters the rows by a part of the name as it
// is typed, says how many of how many it shows, and esc gives every row back.
func TestFilterNarrowsAndClears(t *testing.T) {
	s, h := open(t, 80, 24)
	h.Press("/").Type("ork")
	h.Contains("worker", "/ork").Lacks("old-tool", "legacy")
	if len(s.Shown) != 1 || s.Items[s.Shown[0]].Row.Latest.Name != "worker" {
		t.Fatalf("shown after /ork: %v", s.Shown)
	}
	h.Press("enter").Contains("worker", "filter: ork (1 of 4; esc clears)").Lacks("old-tool")
	h.Press("esc")
	h.Contains("legacy", "old-tool", "web", "worker").Lacks("filter: ork")
	if len(s.Shown) != 4 {
		t.Fatalf("esc left %d of 4 rows shown", len(s.Shown))
	}
}

// TestKeysOpenScreens: enter opens the selected release's history, c its
// chunk layout and s its objects' status, each for that release; a filter
// that shows nothing opens nothing.
func TestKeysOpenScreens(t *testing.T) {
	for _, k := range []struct{ key, title string }{{"enter", "web"}, {"c", "chunks"}, {"s", "status"}} {
		t.Run(k.key, func(t *testing.T) {
			s, h := open(t, 120, 40)
			selectRow(t, s, h, "web")
			h.Forget().Press(k.key)
			p := h.Pushed()
			if p == nil {
				t.Fatalf("%s opened nothing", k.key)
			}
			if title := p.Title(); !strings.Contains(strings.ToLower(title), k.title) {
				t.Errorf("%s opened %q (%T), want a %s screen", k.key, title, p, k.title)
			}
		})
	}
	_, h := open(t, 80, 24)
	h.Press("/").Type("nothing-matches").Press("enter")
	h.Forget().Press("enter")
	if p := h.Pushed(); p != nil {
		t.Errorf("enter on an empty filter opened %T", p)
	}
}

// TestNamespacePicker: n lists the cluster's namespaces, and picking one
// lists its releases instead.
func TestNamespacePicker(t *testing.T) {
	_, h := open(t, 80, 24)
	h.Press("n")
	h.Contains("Look at releases in", "all namespaces", "default", "shop")
	h.Type("shop").Press("enter")
	h.Contains("api", "cache").Lacks("old-tool", "worker")
}
