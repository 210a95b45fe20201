package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/testcluster"
)

// TestRollbackForceConflicts: Helm 4's CLI installs a release server-side;
// `kubectl patch` changes a field of its ConfigMap. `rollback --dry-run` names
// the field and kubectl's manager in the plan (and applies as the manager
// --field-manager names, when it does); the rollback is refused (exit
// 5) before the question, changing nothing; with --force-conflicts it applies
// the revision again, undoing the drift.
func TestRollbackForceConflicts(t *testing.T) {
	bin := testcluster.AssetsDir()
	for _, b := range []string{"helm4", "kubectl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			t.Fatalf("%s is not in %s: run `make plugintools`: %v", b, bin, err)
		}
	}
	e := newEnv(t)
	tool := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), filepath.Join(bin, name), append(args, "-n", e.ns, "--kubeconfig", e.kubeconfig)...)
		cmd.Env = append(os.Environ(), "HELM_DRIVER=secret", "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	tool("helm4", "install", "ssa", smallChart(t))
	tool("kubectl", "patch", "configmap", "ssa-config", "-p", `{"data":{"greeting":"drifted"}}`)
	greeting := func() string {
		cm, err := cluster.Client.CoreV1().ConfigMaps(e.ns).Get(t.Context(), "ssa-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data["greeting"]
	}

	var plan cli.RollbackResult
	r := e.run("rollback", "ssa", "1", "--driver", "secret", "--dry-run", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &plan)
	ss := plan.ServerSide
	if plan.Helm != 4 || ss == nil || ss.Manager != "helm" || len(ss.Conflicts) != 1 ||
		ss.Conflicts[0].Field != ".data.greeting" || ss.Conflicts[0].Manager != "kubectl-patch" {
		t.Fatalf("the plan's server-side apply: Helm %d, %+v; want helm's apply conflicting on .data.greeting with kubectl-patch", plan.Helm, ss)
	}
	r = e.run("rollback", "ssa", "1", "--driver", "secret", "--dry-run", "-o", "json", "--field-manager", "kubectl-patch")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &plan)
	if ss := plan.ServerSide; ss == nil || ss.Manager != "kubectl-patch" || !strings.Contains(ss.Why, "--field-manager") {
		t.Errorf("--field-manager kubectl-patch: the plan applies as %+v", ss)
	}
	r = e.run("rollback", "ssa", "1", "--driver", "secret", "--yes")
	mustCode(t, r, cli.ExitRefused)
	for _, want := range []string{"ConfigMap/ssa-config .data.greeting (kubectl-patch)", "--force-conflicts"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, r)
		}
	}
	if g := greeting(); g != "drifted" {
		t.Fatalf("a refused rollback changed the greeting to %q", g)
	}
	if revs, err := cluster.Client.CoreV1().Secrets(e.ns).List(t.Context(), metav1.ListOptions{LabelSelector: "owner=helm,name=ssa"}); err != nil || len(revs.Items) != 1 {
		t.Fatalf("after a refused rollback: %v, want revision 1 alone", err)
	}
	r = e.run("rollback", "ssa", "1", "--driver", "secret", "--yes", "--force-conflicts")
	mustCode(t, r, cli.ExitOK)
	if g := greeting(); g != "hello" {
		t.Errorf("after --force-conflicts the greeting is %q, want the chart's hello", g)
	}
}
