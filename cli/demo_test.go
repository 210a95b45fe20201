package cli_test

import (
	"bytes"
	"context"
	"io"
	"slices"
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
	// The default target, revision 3, is failed: it must be named.
	r = runDemo(t, &cli.App{}, "rollback", "podinfo", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "revision 3 (the one before the latest), is failed") || !strings.Contains(r.stderr, "chunkview --demo history podinfo") {
		t.Errorf("rollback to a failed default target: %s", r)
	}
	r = runDemo(t, &cli.App{}, "rollback", "podinfo", "2", "--yes", "-o", "json")
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
	}, TUITerminal: func(io.Reader, io.Writer) bool { return true }}
	mustCode(t, runDemo(t, app, "--read-only"), cli.ExitOK)
	if !got.Demo || client == nil || !client.ReadOnly() {
		t.Errorf("TUI opened with %+v, read-only %v", got, client != nil && client.ReadOnly())
	}
	r := runDemo(t, &cli.App{})
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "`chunkview --demo ls`") {
		t.Errorf("no hint that pastes without a TUI: %s", r)
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
			if !it.Broken || it.Checked || !strings.HasPrefix(it.Problem, "1 of 5 chunks missing: chunk 4 of 5, ") {
				t.Errorf("ls: ledger broken %v checked %v problem %q; want broken, 1 of 5 chunks missing", it.Broken, it.Checked, it.Problem)
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
		// ... HEALTH FILL
		if f := strings.Fields(line); strings.HasPrefix(line, "ledger ") && f[len(f)-2] != "broken" {
			t.Errorf("ls table: ledger row %q does not have HEALTH broken", line)
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
	if l := h.Revisions[2]; !l.Broken || !strings.HasPrefix(l.Problem, "1 of 5 chunks missing: chunk 4 of 5, ") {
		t.Errorf("history: ledger revision 3 broken %v problem %q", l.Broken, l.Problem)
	}
	r = runDemo(t, &cli.App{}, "history", "ledger", "-n", "payments")
	if !strings.Contains(r.stdout, "HEALTH") || !strings.Contains(r.stdout, "cannot be read: 1 of 5 chunks missing: chunk 4 of 5") {
		t.Errorf("history table: %s", r)
	}
}

// TestDemoVerifyAndGCTakeTheReleaseNamespace: -n names the releases' namespace
// for verify and gc as for ls. grafana-dashboards is deployed to monitoring and
// stored in demo: verify -n monitoring checks its records there; -n payments
// finds the broken ledger and exits 4.
func TestDemoVerifyAndGCTakeTheReleaseNamespace(t *testing.T) {
	t.Parallel()
	verify := func(ns string, code int) cli.VerifyResult {
		t.Helper()
		r := runDemo(t, &cli.App{}, "verify", "-n", ns, "-o", "json")
		mustCode(t, r, code)
		var out cli.VerifyResult
		decode(t, r, &out)
		return out
	}
	indexes := func(out cli.VerifyResult) map[string]int {
		m := map[string]int{}
		for _, n := range out.Namespaces {
			m[n.Namespace] += n.Indexes
		}
		return m
	}
	problems := func(out cli.VerifyResult) []string {
		var p []string
		for _, n := range out.Namespaces {
			for _, pr := range n.Problems {
				p = append(p, pr.Kind+" "+pr.Release)
			}
		}
		return p
	}

	mon := verify("monitoring", cli.ExitOK)
	// grafana-dashboards' two revisions, stored in demo.
	if got := indexes(mon); got["demo"] != 2 || got["monitoring"] != 0 || !mon.OK {
		t.Errorf("verify -n monitoring checked %v (ok %v), want grafana-dashboards' 2 records in demo", got, mon.OK)
	}
	// What demo holds: podinfo's 4, web-frontend's 3 and grafana-dashboards' 2.
	if got := indexes(verify("demo", cli.ExitOK)); got["demo"] != 9 || len(got) != 1 {
		t.Errorf("verify -n demo checked %v, want the 9 records demo holds", got)
	}
	pay := verify("payments", cli.ExitProblems)
	if got := problems(pay); !slices.Contains(got, "missing-chunk ledger") || pay.OK {
		t.Errorf("verify -n payments: problems %v, want ledger's missing chunk", got)
	}

	r := runDemo(t, &cli.App{}, "verify", "-n", "payments")
	mustCode(t, r, cli.ExitProblems)
	if !strings.Contains(r.stdout, "missing-chunk   ledger") {
		t.Errorf("verify -n payments does not show the broken ledger: %s", r)
	}
	r = runDemo(t, &cli.App{}, "verify", "-n", "monitoring")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Namespace demo: 2 index Secrets") {
		t.Errorf("verify -n monitoring does not check grafana-dashboards' records: %s", r)
	}

	r = runDemo(t, &cli.App{}, "gc", "-n", "monitoring", "--dry-run", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var gc cli.GCResult
	decode(t, r, &gc)
	var looked []string
	for _, n := range gc.Namespaces {
		looked = append(looked, n.Namespace)
	}
	if !slices.Contains(looked, "demo") {
		t.Errorf("gc -n monitoring looked in %v, not where grafana-dashboards is stored (demo)", looked)
	}
}

// TestDemoVerifyAdvisesWhatPastes: verify lists only the namespaces where a store
// holds something (logging and web hold Helm's Secrets alone, no chunked record),
// and its advice names each revision to delete with the flags that find it:
// pasted with --yes, each deletes that revision. inspect of the revision that
// cannot be read exits 4, as verify does.
func TestDemoVerifyAdvisesWhatPastes(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "verify")
	mustCode(t, r, cli.ExitProblems)
	if strings.Contains(r.stdout, "0 index Secrets, 0 chunk Secrets") {
		t.Errorf("verify prints namespaces without chunked records: %s", r)
	}
	var advised []string
	for _, s := range suggestions(r) {
		if strings.Contains(s, " delete-revision ") {
			advised = append(advised, s)
		}
	}
	want := []string{"delete-revision fraud-model 1 --force", "delete-revision ledger 3 --force"}
	if len(advised) != len(want) {
		t.Fatalf("verify advised %q, want one delete-revision each for %q: %s", advised, want, r)
	}
	for i, s := range advised {
		if !strings.Contains(s, want[i]) || !strings.HasPrefix(s, "chunkview --demo ") {
			t.Errorf("advised %q, want %q under --demo", s, want[i])
		}
		args := append(shellWords(t, s)[1:], "--yes") // without the --demo runDemo adds
		got := runDemo(t, &cli.App{}, args...)
		mustCode(t, got, cli.ExitOK)
		if !strings.Contains(got.stdout, "Deleted revision") {
			t.Errorf("`%s --yes`: %s", s, got)
		}
	}

	var out cli.VerifyResult
	r = runDemo(t, &cli.App{}, "verify", "-o", "json")
	mustCode(t, r, cli.ExitProblems)
	decode(t, r, &out)
	for _, n := range out.Namespaces {
		if n.Indexes == 0 && n.Chunks == 0 && len(n.Problems) == 0 {
			t.Errorf("verify -o json lists %s's %s store with nothing in it", n.Namespace, n.Driver)
		}
	}

	mustCode(t, runDemo(t, &cli.App{}, "inspect", "ledger", "--revision", "3"), cli.ExitProblems)
	mustCode(t, runDemo(t, &cli.App{}, "inspect", "ledger", "--revision", "3", "-o", "json"), cli.ExitProblems)
	mustCode(t, runDemo(t, &cli.App{}, "inspect", "ledger", "--revision", "2"), cli.ExitOK)
}
