package cli_test

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube/apis"
)

// TestRemovedAPIsCLI walks a release whose stored manifest uses APIs the test
// API server (1.37) no longer serves through the commands that find and fix
// it: ls --removed-apis lists it alone (HEALTH, removedAPIs, a warning with
// the fix), status says Helm can no longer upgrade it, rollback's plan to the
// old revision warns, and fix-apis refuses the PodSecurityPolicy without
// --drop-unserved, shows its plan masked with --dry-run, writes it with --yes;
// Helm's own upgrade then works and ls --removed-apis finds nothing.
func TestRemovedAPIsCLI(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "healthy", 1)
	d := e.helmSecrets()
	cfg := e.actionConfigIn(d, e.ns)
	kubetest.InstallLegacy3(t, cfg, d, e.ns, "legacy", false)
	if err := kubetest.UpgradeLegacy3(cfg, e.ns, "legacy", "1.1.0", false); err == nil {
		t.Fatal("Helm's upgrade of the stale release worked; the test needs one it cannot upgrade")
	}

	r := e.run("ls", "--removed-apis", "-o", "json")
	mustCode(t, r, 0)
	var out cli.Releases
	decode(t, r, &out)
	if len(out.Releases) != 1 || out.Releases[0].Name != "legacy" {
		t.Fatalf("ls --removed-apis lists %+v, want legacy alone", out.Releases)
	}
	var refs []string
	for _, f := range out.Releases[0].RemovedAPIs {
		if f.Problem == apis.Unserved {
			refs = append(refs, f.Ref()+" ("+f.APIVersion+")")
		}
	}
	if got, want := strings.Join(refs, ", "), strings.Join(kubetest.LegacyRefs("legacy", e.ns, false), ", "); got != want {
		t.Fatalf("removedAPIs: %s\nwant %s", got, want)
	}
	r = e.run("ls", "--removed-apis")
	mustCode(t, r, 0)
	kubetest.MustContain(t, r.stdout, "removed-apis")
	kubetest.MustContain(t, r.stderr, apis.CannotUpgrade+" "+e.ns+"/legacy (revision 1)", "PodDisruptionBudget/legacy (policy/v1beta1 → policy/v1)", "chunkview fix-apis legacy -n "+e.ns)
	if strings.Contains(r.stdout, "healthy") {
		t.Errorf("a release on served APIs is listed:\n%s", r.stdout)
	}

	r = e.run("status", "legacy")
	kubetest.MustContain(t, r.stdout, apis.CannotUpgrade+" legacy", "HorizontalPodAutoscaler/legacy (autoscaling/v2beta2 → autoscaling/v2)")

	r = e.run("fix-apis", "legacy", "--yes")
	mustCode(t, r, 2)
	kubetest.MustContain(t, r.stderr, "PodSecurityPolicy/legacy-restricted (policy/v1beta1): no served version replaces it; --drop-unserved")

	r = e.run("fix-apis", "legacy", "--drop-unserved", "--dry-run")
	mustCode(t, r, 0)
	kubetest.MustContain(t, r.stdout, "Writes revision 2, a copy of revision 1", "CronJob/legacy-report (hook legacy-report)", "(dropped)", "-apiVersion: autoscaling/v2beta2", "+apiVersion: autoscaling/v2", "Dry run: nothing changed.")
	if strings.Contains(r.stdout, "s3cr3t-legacy") {
		t.Fatalf("the plan shows the release's password:\n%s", r.stdout)
	}

	r = e.run("fix-apis", "legacy", "--drop-unserved", "--yes")
	mustCode(t, r, 0)
	kubetest.MustContain(t, r.stdout, "Wrote revision 2 of legacy on served API versions; revision 1 is superseded")
	if err := kubetest.UpgradeLegacy3(cfg, e.ns, "legacy", "1.1.0", false); err != nil {
		t.Fatalf("Helm's upgrade after fix-apis: %v", err)
	}
	r = e.run("ls", "--removed-apis")
	mustCode(t, r, 0)
	kubetest.MustContain(t, r.stderr, "no release of the 2 checked uses an API this cluster (Kubernetes 1.37) does not serve")

	r = e.run("rollback", "legacy", "1", "--dry-run")
	mustCode(t, r, 0)
	kubetest.MustContain(t, r.stderr, "revision 1 uses APIs the cluster no longer serves", "the rollback fails")
}
