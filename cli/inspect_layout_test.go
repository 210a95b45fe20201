package cli_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/storage"
)

// TestInspectTableSaysWhatTheScreenSays: inspect's table of a revision with a
// missing chunk prints the words of render.LayoutTable, which the chunks
// screen draws too: each chunk's role with its number, "-" and "(does not
// exist)" for the missing one, "n/a" for the index's hash and owner, and each
// object's state with what is wrong with it after a colon; then what the state
// means, as the screen explains it.
func TestInspectTableSaysWhatTheScreenSays(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "inspect", "ledger", "-n", "payments")
	mustCode(t, r, cli.ExitProblems)
	lines := strings.Split(r.stdout, "\n")
	split := regexp.MustCompile(`\s{2,}`).Split
	head := split(strings.TrimSpace(lines[3]), -1)
	if want := []string{"SECRET", "ROLE", "SIZE", "OF 1 MiB", "HASH", "OWNER REF", "STATE", "AGE"}; strings.Join(head, "|") != strings.Join(want, "|") {
		t.Fatalf("header %q, want %q in:\n%s", head, want, r.stdout)
	}
	var rows [][]string
	for _, l := range lines[4:] {
		if l == "" {
			break
		}
		rows = append(rows, split(strings.TrimSpace(l), -1))
	}
	// The demo's ledger: an index and four chunks, the third of which (chunk
	// 4) is missing.
	if len(rows) != 5 {
		t.Fatalf("%d rows, want ledger's index and 4 chunks:\n%s", len(rows), r.stdout)
	}
	// ledger's revision 3 was deployed 6 days before the demo's now: its
	// objects are as old as that.
	if got := rows[0]; got[0] != "sh.helm.release.v1.ledger.v3" || got[1] != "index" || got[4] != "n/a" || got[5] != "n/a" || got[6] != "ok" || got[7] != "6d" {
		t.Errorf("index row %q, want role index, hash and owner n/a, state ok, age 6d", got)
	}
	for i, got := range rows[1:] {
		if got[1] != fmt.Sprintf("chunk %d", i+2) {
			t.Errorf("row %q: role %q, want chunk %d", got, got[1], i+2)
		}
		if i+2 != 4 {
			if got[4] != "ok" || got[5] != "ok" || got[6] != "ok" || got[7] != "6d" {
				t.Errorf("row %q, want hash, owner and state ok, age 6d", got)
			}
			continue
		}
		want := []string{got[0], "chunk 4", "-", "(does not exist)", "-", "-", "missing: chunk 4 of 5 does not exist", "-"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("the missing chunk's row %q, want %q", got, want)
		}
	}
	// What the screen says under its table, after the state's word.
	if want := "\nmissing: " + storage.ProblemMissingChunk.Explain() + "\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("inspect does not explain the missing chunk (%q):\n%s", want, r.stdout)
	}
}
