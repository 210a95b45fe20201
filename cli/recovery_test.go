package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
)

// TestRollbackPastUnreadable: ledger's latest revision (3) cannot be read. A
// rollback to revision 2 says, before anything, that revision 3's record is
// deleted first; applied, it ends with a readable revision 3 deployed, as Helm's
// rollback of a history without the unreadable record would.
func TestRollbackPastUnreadable(t *testing.T) {
	t.Parallel()
	app := &cli.App{}
	// One demo cluster for the whole flow: each runDemo starts a new one.
	r := runDemo(t, app, "rollback", "ledger", "2", "--dry-run")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Revision 3 cannot be read") || !strings.Contains(r.stdout, "its record is deleted first") || !strings.Contains(r.stdout, "recorded as revision 3") {
		t.Fatalf("the plan does not say what happens to the unreadable revision: %s", r)
	}
	// What goes and what comes back, not revision 2 compared with itself.
	if strings.Contains(r.stdout, "revision 2 -> 2") || !strings.Contains(r.stdout, "Goes: revision 3, unreadable") || !strings.Contains(r.stdout, "Comes back: revision 2") {
		t.Errorf("the plan compares revision 2 with itself: %s", r)
	}
	r = runDemo(t, app, "rollback", "ledger", "2", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var rb cli.RollbackResult
	if err := json.Unmarshal([]byte(r.stdout), &rb); err != nil {
		t.Fatalf("%v: %s", err, r)
	}
	if !rb.Applied || rb.From != 2 || rb.To != 2 || rb.NewRevision != 3 || len(rb.Drop) != 1 || rb.Drop[0].Revision != 3 || rb.Drop[0].Problem == "" {
		t.Fatalf("rollback past the unreadable revision: %+v", rb)
	}
	r = runDemo(t, &cli.App{}, "rollback", "ledger", "2", "--yes")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Replaced the unreadable revision 3 of ledger: its record was deleted, and revision 3 now holds revision 2's content.") {
		t.Errorf("the rollback does not say the unreadable revision was replaced: %s", r)
	}
}

// TestLsStuckAfterThreshold: a release pending for less than --stuck-after (5
// minutes by default) is in progress, not stuck, in ls -o json; past it, stuck.
func TestLsStuckAfterThreshold(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "moving", 2)
	e.addPending(byChunkview, "moving", "pending-upgrade", time.Minute)
	e.install(byChunkview, "halted", 2)
	e.addPending(byChunkview, "halted", "pending-upgrade", time.Hour)
	for _, tc := range []struct {
		args                     []string
		movingStuck, haltedStuck bool
	}{
		{nil, false, true},
		{[]string{"--stuck-after", "30s"}, true, true},
		{[]string{"--stuck-after", "2h"}, false, false},
	} {
		r := e.run(append([]string{"ls", "-o", "json"}, tc.args...)...)
		mustCode(t, r, cli.ExitOK)
		var ls cli.Releases
		if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
			t.Fatal(err)
		}
		got := map[string]cli.ReleaseItem{}
		for _, it := range ls.Releases {
			got[it.Name] = it
		}
		for name, want := range map[string]bool{"moving": tc.movingStuck, "halted": tc.haltedStuck} {
			it := got[name]
			if it.Stuck != want || it.InProgress == want || it.UpdatedFrom != "last_deployed" {
				t.Errorf("%v: %s stuck %v, in progress %v, updated from %q; want stuck %v", tc.args, name, it.Stuck, it.InProgress, it.UpdatedFrom, want)
			}
		}
	}
}
