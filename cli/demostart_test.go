package cli_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
)

// TestDemoViewStartsAtOnce: the interactive view opens on the demo before most
// samples are written: its client lists the quick samples at once, and every
// sample once the rest, written in the background, are in, ledger's damage
// included.
func TestDemoViewStartsAtOnce(t *testing.T) {
	t.Parallel()
	var first, last []kube.ReleaseRow
	app := &cli.App{TUITerminal: func(io.Reader, io.Writer) bool { return true },
		TUI: func(ctx context.Context, c *kube.Client, _ cli.Session) error {
			var err error
			if first, err = c.Releases(ctx); err != nil {
				return err
			}
			deadline := time.Now().Add(2 * time.Minute)
			for len(last) < 9 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				if last, err = c.Releases(ctx); err != nil {
					return err
				}
			}
			rows := make([]*kube.RevisionRow, len(last))
			for i := range last {
				rows[i] = &last[i].Latest
			}
			return kube.NewChecker(c).CheckHealth(ctx, rows)
		}}
	mustCode(t, runDemo(t, app), cli.ExitOK)
	names := func(rows []kube.ReleaseRow) map[string]kube.RevisionRow {
		m := map[string]kube.RevisionRow{}
		for _, r := range rows {
			m[r.Latest.Name] = r.Latest
		}
		return m
	}
	got := names(first)
	for _, q := range demo.QuickSamples {
		if _, ok := got[q]; !ok {
			t.Errorf("the view's first list lacks %s: %v", q, got)
		}
	}
	all := names(last)
	if len(all) != 9 {
		t.Fatalf("the samples did not all come: %v", all)
	}
	if l := all["ledger"]; !l.Broken || !strings.Contains(l.Problem, "missing") {
		t.Errorf("ledger once written: broken %v (%s)", l.Broken, l.Problem)
	}
}

// TestDemoOneRelease: a command on one release finds it on the demo as it is
// among all the samples, with its damage: ledger's missing chunk, fraud-model's
// corrupt one, cert-manager's orphan; and the demo-staging context still lacks
// what it does not hold.
func TestDemoOneRelease(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "history", "ledger")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "<broken>") || !strings.Contains(r.stdout, "1 of 5 chunks missing: chunk 4 of 5") {
		t.Errorf("history ledger: %s", r)
	}
	mustCode(t, runDemo(t, &cli.App{}, "verify", "ledger"), cli.ExitProblems)
	mustCode(t, runDemo(t, &cli.App{}, "verify", "podinfo"), cli.ExitOK)
	r = runDemo(t, &cli.App{}, "get", "values", "fraud-model", "--revision", "1")
	if r.code == cli.ExitOK || !strings.Contains(r.stderr, "does not match") && !strings.Contains(r.stderr, "hash") {
		t.Errorf("get values of fraud-model's corrupt revision: %s", r)
	}
	r = runDemo(t, &cli.App{}, "verify", "cert-manager", "--profile", "olmv1")
	mustCode(t, r, cli.ExitProblems)
	if !strings.Contains(r.stdout, "orphan-chunk") {
		t.Errorf("verify cert-manager: %s", r)
	}
	mustCode(t, runDemo(t, &cli.App{}, "--context", "demo-staging", "history", "ledger"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "--context", "demo-staging", "history", "podinfo"), cli.ExitOK)
	mustCode(t, runDemo(t, &cli.App{}, "history", "nosuch"), cli.ExitNotFound)
}
