package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
)

// TestPruneCLI: prune --dry-run lists what goes and the bytes freed and changes
// nothing; prune asks for the release's name (refused without a terminal and
// --yes), then deletes the oldest revisions' records, keeping --keep and the
// deployed one; a --keep that keeps everything says there is nothing to prune.
func TestPruneCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byPlugins, "tall", 5)
	before := e.secrets("tall")
	r := e.run("prune", "tall", "--keep", "2", "--dry-run")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "oldest first (1, 2, 3)") || !strings.Contains(r.stdout, "Dry run: nothing changed.") || !strings.Contains(r.stdout, "freeing") {
		t.Fatalf("dry run: %s", r)
	}
	if after := e.secrets("tall"); len(after) != len(before) {
		t.Fatalf("a dry run changed the records: %v -> %v", before, after)
	}
	mustCode(t, e.run("prune", "tall", "--keep", "2"), cli.ExitRefused)
	mustCode(t, e.run("prune", "tall"), cli.ExitUsage)
	mustCode(t, e.run("prune", "tall", "--keep", "0"), cli.ExitUsage)

	r = e.run("prune", "tall", "--keep", "2", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var out cli.PruneResult
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if !out.Applied || out.Deleted != 3 || len(out.Removed) != 3 || out.FreedBytes <= 0 || !out.FreedExact {
		t.Errorf("prune result: %+v", out)
	}
	if after := e.secrets("tall"); len(after) != 2 || after[4] == nil || after[5] == nil {
		t.Errorf("records after prune: %v", after)
	}
	r = e.run("prune", "tall", "--keep", "5")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "nothing to prune") {
		t.Errorf("prune that keeps everything: %s", r)
	}
}
