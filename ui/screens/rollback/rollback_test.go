package rollback

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open plans the rollback of release name to revision to through client, from
// its history as listed now (as the history screen would hand it over), and
// waits for the plan.
func open(t testing.TB, f *screentest.Fixture, client *kube.Client, name string, to, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	rows, err := client.History(context.Background(), "default", name)
	if err != nil {
		t.Fatal(err)
	}
	base, err := ops.NewPlan("default", rows)
	if err != nil {
		t.Fatal(err)
	}
	s := New(screentest.Common(client), base, to)
	return s, screentest.New(t, s, w, h)
}

// TestGolden draws the plan at 80x24 and 120x40: a rollback, a re-apply of the
// latest revision, its outcome, the read-only view, and a rollback that leaves a
// pending revision behind.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name, rel string
		to        int
		readOnly  bool
		pending   bool
		keys      []string
	}{
		{name: "plan", rel: "web", to: 3},
		{name: "reapply", rel: "web", to: 4},
		{name: "next_change", rel: "web", to: 3, keys: []string{"n", "n"}},
		{name: "done", rel: "web", to: 3, keys: []string{"ctrl+r"}},
		{name: "read_only", rel: "web", to: 3, readOnly: true, keys: []string{"ctrl+r"}},
		{name: "leaves_pending", rel: "worker", to: 1, pending: true},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				f := screentest.NewFixture(t)
				client := f.Client
				if c.readOnly {
					client = f.ReadOnly()
				}
				s, h := open(t, f, client, c.rel, c.to, sz[0], sz[1])
				if c.pending {
					// The history says so before it opens the screen.
					s.LeftPending = "Revision 2 stays pending-upgrade under the new one: F in the history fixes it first."
				}
				h.Press(c.keys...)
				h.Golden()
			})
		}
	}
}

// TestAppliesThePlanShown: ctrl+r applies the plan the screen shows (4 → 2), not the
// one the release has by the time it is pressed (5 → 2): that is refused with
// nothing written, says why, and has every screen read the release again.
func TestAppliesThePlanShown(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f, f.Client, "web", 2, 120, 37)
	if s.plan == nil || s.plan.From != 4 || s.plan.To != 2 || s.Title() != "roll back to 2" {
		t.Fatalf("plan %+v, title %q: want 4 -> 2", s.plan, s.Title())
	}
	h.Contains("Roll back web from revision 4 to revision 2?", "ctrl+r: roll back to 2 · y: copy · esc: cancel · on namespace default")
	f.MoveWeb(t)
	writes := f.Cluster.Writes()
	h.Press("ctrl+r")
	if n := f.Cluster.Writes() - writes; n != 0 {
		t.Fatalf("a stale rollback wrote %d times", n)
	}
	if s.actErr == nil || !strings.Contains(s.actErr.Error(), "revision 5 (deployed) was added") {
		t.Fatalf("rollback error %v", s.actErr)
	}
	h.Contains("changed while you were looking")
	if !s.HandlesBack() && s.Busy() {
		t.Error("the refused rollback still runs")
	}
	changed := false
	for _, m := range h.Out {
		if m, ok := m.(common.StatusMsg); ok && m.Err && strings.Contains(m.Text, "Changed meanwhile") {
			changed = true
		}
	}
	if !changed {
		t.Errorf("the refusal was not put in the status line: %v", h.Out)
	}
}

// TestRollsBack: y copies the plan and changes nothing, as y copies a diff;
// ctrl+r rolls back through Helm, says what it wrote, and the screen no longer
// asks; a second ctrl+r does nothing.
func TestRollsBack(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f, f.Client, "web", 3, 120, 37)
	writes := f.Cluster.Writes()
	h.Press("y")
	if f.Cluster.Writes() != writes || !s.canConfirm() {
		t.Fatalf("y in the plan wrote %d times or stopped asking", f.Cluster.Writes()-writes)
	}
	copied := false
	for _, m := range h.Out {
		if m, ok := m.(common.StatusMsg); ok && strings.Contains(m.Text, "Copied the plan of rolling web back to revision 3") {
			copied = true
		}
	}
	if !copied {
		t.Errorf("y did not copy the plan: %v", h.Out)
	}
	h.Press("ctrl+r").Contains("✓ Rolled back web to revision 3: revision 5 created.", "esc: back to the history")
	writes = f.Cluster.Writes()
	h.Press("ctrl+r")
	if f.Cluster.Writes() != writes || s.canConfirm() {
		t.Error("a second ctrl+r ran the rollback again")
	}
	rows, err := f.Client.History(context.Background(), "default", "web")
	if err != nil || len(rows) != 5 || rows[4].Status != "deployed" || rows[3].Status != "superseded" {
		t.Fatalf("history after the rollback: %v %+v", err, rows)
	}
}

// TestRevealPlansAgain: v shows the plan's diff revealed (planned again, once)
// and masked again from memory.
func TestRevealPlansAgain(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f, f.Client, "web", 3, 120, 37)
	h.Contains("secrets masked").Lacks("hunter2")
	h.Press("v").Contains("secrets REVEALED")
	h.Press("v").Contains("secrets masked")
	if len(s.diffs) != 2 {
		t.Errorf("%d diffs planned for two reveal states", len(s.diffs))
	}
}

// TestReadOnlyDoesNotAsk: under --read-only the plan is shown, ctrl+r does
// nothing and is not offered.
func TestReadOnlyDoesNotAsk(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f, f.ReadOnly(), "web", 3, 120, 37)
	h.Press("ctrl+r").Contains("Read-only mode: this is what a rollback would change").Lacks("ctrl+r: roll back")
	for _, b := range s.Help().Short {
		if b.Help().Key == "ctrl+r" {
			t.Error("the help offers ctrl+r under --read-only")
		}
	}
	if n := f.Cluster.Writes(); n != 0 {
		t.Fatalf("read-only rollback wrote %d times", n)
	}
}
