package cli_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"

	"github.com/chunkview/chunkview/cli"
)

// installBig installs release name through Helm's Secrets driver and upgrades it
// once: each revision's ConfigMap holds blob bytes of one line that gzip cannot
// shrink, as a dashboard or a bundle of data does.
func (e *env) installBig(name string, blob int) {
	e.t.Helper()
	cfg := e.actionConfigIn(e.helmSecrets(), e.ns)
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, e.ns
	if _, err := in.Run(testChart(), map[string]any{"greeting": "one", "blob": noise(name+"1", blob)}); err != nil {
		e.t.Fatal(err)
	}
	up := action.NewUpgrade(cfg)
	up.Namespace = e.ns
	if _, err := up.Run(name, testChart(), map[string]any{"greeting": "two", "blob": noise(name+"2", blob)}); err != nil {
		e.t.Fatal(err)
	}
}

// TestRefusedBeforePlan: a rollback refused, under --read-only or because a Flux
// HelmRelease reconciles the release, prints nothing of its plan, only the
// refusal; nor does a refused uninstall. Once it may run, its plan shows a value
// of 60 KB as its size and hash, not its text, in the table and in -o json,
// where `chunkview diff` shows it whole. (It installs a CRD: not parallel.)
func TestRefusedBeforePlan(t *testing.T) {
	e := newEnv(t)
	e.installBig("big", 60_000)
	line := noise("big2", 60_000)[:64]

	r := e.run("rollback", "big", "1", "--yes", "--read-only")
	mustCode(t, r, cli.ExitRefused)
	if r.stdout != "" || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("--read-only: want the refusal alone, got %s", r)
	}

	cluster.InstallFlux(t)
	createHelmRelease(t, dynamicClient(t), e.ns, "big", false)
	for _, args := range [][]string{{"rollback", "big", "1", "--yes"}, {"uninstall", "big", "--yes"}} {
		r := e.run(args...)
		mustCode(t, r, cli.ExitRefused)
		if r.stdout != "" || !strings.Contains(r.stderr, "HelmRelease/"+e.ns+"/big") {
			t.Errorf("%v under an active HelmRelease: want the refusal alone, got %s", args, r)
		}
	}

	r = e.run("rollback", "big", "1", "--dry-run")
	mustCode(t, r, cli.ExitOK)
	if strings.Contains(r.stdout, line) || !strings.Contains(r.stdout, "blob: <60000 bytes in 1 lines, sha256 ") ||
		!strings.Contains(r.stdout, "longer than 32768 bytes shown as size and hash") || !strings.Contains(r.stdout, `+  greeting: "one"`) {
		t.Errorf("the plan: want the 60 KB value as its size and hash, the small one diffed:\n%.3000s", r.stdout)
	}
	var plan cli.RollbackResult
	decode(t, e.run("rollback", "big", "1", "--dry-run", "-o", "json"), &plan)
	if plan.Diff == nil || plan.Diff.Summarized == 0 || strings.Contains(plan.Diff.Unified(), line) {
		t.Errorf("-o json: want the large values summarised, got %+v", plan.Diff)
	}
	r = e.run("diff", "big", "1", "2")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, line) {
		t.Errorf("diff: want the value whole:\n%.600s", r.stdout)
	}
}
