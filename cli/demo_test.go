package cli_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
)

// runDemo runs chunkview --demo with args; stdin is not a terminal.
func runDemo(t *testing.T, app *cli.App, args ...string) result {
	t.Helper()
	if app.IsTerminal == nil {
		app.IsTerminal = func(io.Reader) bool { return false }
	}
	var out, errb bytes.Buffer
	code := app.Run(t.Context(), append([]string{"--demo"}, args...), strings.NewReader(""), &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// TestDemo runs commands on the in-memory demo cluster and its sample releases.
func TestDemo(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "ls", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	decode(t, r, &ls)
	names := map[string]bool{}
	for _, it := range ls.Releases {
		names[it.Name] = true
	}
	if !names["payments-api"] || !names["podinfo"] || names["cert-manager"] {
		t.Errorf("demo releases with owner helm: %v", names)
	}
	r = runDemo(t, &cli.App{}, "ls", "--profile", "olmv1", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &ls)
	if len(ls.Releases) == 0 || ls.Releases[0].StorageNamespace != "olmv1-system" {
		t.Errorf("demo olmv1 releases: %s", r)
	}
	mustCode(t, runDemo(t, &cli.App{}, "verify"), cli.ExitProblems)
	r = runDemo(t, &cli.App{}, "fix-stuck", "payments-api", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var st cli.StuckResult
	decode(t, r, &st)
	if !st.Stuck || st.Status != "pending-upgrade" {
		t.Errorf("demo stuck release: %s", r)
	}
	r = runDemo(t, &cli.App{}, "rollback", "podinfo", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var rb cli.RollbackResult
	decode(t, r, &rb)
	if !rb.Applied || rb.NewRevision != rb.From+1 {
		t.Errorf("demo rollback: %s", r)
	}
}

// TestTUIHook checks that chunkview without a command opens the view main wires in,
// on the connected client, and says so when there is none.
func TestTUIHook(t *testing.T) {
	t.Parallel()
	var got cli.Session
	var client *kube.Client
	app := &cli.App{TUI: func(_ context.Context, c *kube.Client, s cli.Session) error {
		got, client = s, c
		return nil
	}}
	mustCode(t, runDemo(t, app, "--read-only"), cli.ExitOK)
	if !got.Demo || client == nil || !client.ReadOnly() {
		t.Errorf("TUI opened with %+v, read-only %v", got, client != nil && client.ReadOnly())
	}
	r := runDemo(t, &cli.App{})
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "chunkview ls") {
		t.Errorf("no hint without a TUI: %s", r)
	}
}

// TestDemoHonestHealth: ls and history tell the demo's ledger, whose latest
// revision lost a chunk Secret, broken, as verify and the TUI do, with the reason;
// every other row says it was checked.
func TestDemoHonestHealth(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "ls", "-A", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	decode(t, r, &ls)
	seen := false
	for _, it := range ls.Releases {
		if it.Name == "ledger" {
			seen = true
			if !it.Broken || it.Checked || !strings.HasPrefix(it.Problem, "1 of 4 chunk Secrets missing: ") {
				t.Errorf("ls: ledger broken %v checked %v problem %q; want broken, 1 of 4 chunk Secrets missing", it.Broken, it.Checked, it.Problem)
			}
			continue
		}
		if it.Broken || !it.Checked || it.Unchecked != "" {
			t.Errorf("ls: %s/%s broken %v checked %v (%s); want checked and healthy", it.Namespace, it.Name, it.Broken, it.Checked, it.Unchecked)
		}
	}
	if !seen {
		t.Fatalf("ls -A lists no ledger: %s", r)
	}
	r = runDemo(t, &cli.App{}, "ls", "-A")
	mustCode(t, r, cli.ExitOK)
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, " ledger ") && !strings.HasSuffix(strings.TrimSpace(line), "broken") {
			t.Errorf("ls table: ledger row %q does not end in HEALTH broken", line)
		}
	}

	r = runDemo(t, &cli.App{}, "history", "ledger", "-n", "payments", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var h cli.History
	decode(t, r, &h)
	if len(h.Revisions) != 3 {
		t.Fatalf("history ledger: %s", r)
	}
	for _, rev := range h.Revisions[:2] {
		if rev.Broken || !rev.Checked {
			t.Errorf("history: ledger revision %d broken %v checked %v; want checked and healthy", rev.Revision, rev.Broken, rev.Checked)
		}
	}
	if l := h.Revisions[2]; !l.Broken || !strings.HasPrefix(l.Problem, "1 of 4 chunk Secrets missing: ") {
		t.Errorf("history: ledger revision 3 broken %v problem %q", l.Broken, l.Problem)
	}
	r = runDemo(t, &cli.App{}, "history", "ledger", "-n", "payments")
	if !strings.Contains(r.stdout, "HEALTH") || !strings.Contains(r.stdout, "cannot be read: 1 of 4 chunk Secrets missing") {
		t.Errorf("history table: %s", r)
	}
}
