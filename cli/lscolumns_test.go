package cli_test

import (
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chunkview/chunkview/cli"
)

// TestLsColumns: ls shows by default the columns an on-call engineer reads, in
// helm's order, with STORAGE NS only where records live apart from their
// release; in a terminal the table fits its width, the chart cut in its middle
// so that its version stays; piped, nothing is cut. -o wide has the rest, uncut.
func TestLsColumns(t *testing.T) {
	t.Parallel()
	width := func(w int) *cli.App { return &cli.App{TerminalWidth: func(io.Writer) int { return w }} }
	head := func(r result) string {
		h, _, _ := strings.Cut(r.stdout, "\n")
		return strings.Join(strings.Fields(h), " ")
	}

	r := runDemo(t, &cli.App{}, "ls", "-A")
	mustCode(t, r, cli.ExitOK)
	if got, want := head(r), "NAME NAMESPACE STORAGE NS REVISION STATUS CHART APP VERSION UPDATED HEALTH FILL"; got != want {
		t.Errorf("ls -A head: %q, want %q", got, want)
	}
	if !strings.Contains(r.stdout, "grafana-dashboards-0.10.0") || strings.Contains(r.stdout, "…") {
		t.Errorf("ls piped cuts a cell:\n%s", r.stdout)
	}
	r = runDemo(t, &cli.App{}, "ls", "-n", "payments")
	mustCode(t, r, cli.ExitOK)
	if got, want := head(r), "NAME NAMESPACE REVISION STATUS CHART APP VERSION UPDATED HEALTH FILL"; got != want {
		t.Errorf("ls -n payments head: %q, want %q", got, want)
	}

	for _, w := range []int{120, 160} {
		r = runDemo(t, width(w), "ls", "-A")
		mustCode(t, r, cli.ExitOK)
		for _, line := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > w {
				t.Errorf("ls -A at %d columns: a line of %d:\n%s", w, n, r.stdout)
				break
			}
		}
		if !strings.Contains(r.stdout, "-0.10.0 ") || !strings.Contains(r.stdout, "payments-api-2.0.0") && !strings.Contains(r.stdout, "-2.0.0 ") {
			t.Errorf("ls -A at %d columns hides the charts' versions:\n%s", w, r.stdout)
		}
	}

	// At 80 columns the table cannot fit whole; it gives what it can, and
	// keeps the header and the versions whole.
	r = runDemo(t, width(80), "ls", "-A")
	mustCode(t, r, cli.ExitOK)
	if got, want := head(r), "NAME NAMESPACE STORAGE NS REVISION STATUS CHART APP VERSION UPDATED HEALTH FILL"; got != want || !strings.Contains(r.stdout, "-0.10.0 ") || !strings.Contains(r.stdout, "pending-upgrade") {
		t.Errorf("ls -A at 80 columns:\n%s", r.stdout)
	}

	r = runDemo(t, width(80), "ls", "-A", "-o", "wide")
	mustCode(t, r, cli.ExitOK)
	if got := head(r); !strings.HasSuffix(got, "FILL STORE CHUNKS SIZE REVISIONS HISTORY LAST DEPLOYED") || strings.Contains(r.stdout, "…") {
		t.Errorf("ls -o wide: head %q, or a cell cut:\n%s", got, r.stdout)
	}
}

// TestHistoryWideDescriptionLast: history -o wide puts DESCRIPTION last, so
// that a short description is not padded to the longest one.
func TestHistoryWideDescriptionLast(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "history", "podinfo", "-o", "wide")
	mustCode(t, r, cli.ExitOK)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if !strings.HasSuffix(lines[0], "APPLY METHOD   DESCRIPTION") {
		t.Fatalf("history -o wide head: %q", lines[0])
	}
	at := strings.Index(lines[0], "DESCRIPTION")
	for _, line := range lines[1:] {
		if strings.HasSuffix(line, " ") || !strings.HasSuffix(line, strings.TrimSpace(line[at:])) {
			t.Errorf("history -o wide: a padded or misplaced DESCRIPTION: %q", line)
		}
	}
	if last := lines[len(lines)-1]; last[at:] != "Rollback to 2" {
		t.Errorf("history -o wide: the last row ends %q, want the description alone", last[at:])
	}
}
