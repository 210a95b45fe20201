package cli_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
)

// helmEnv is the environment Helm gives its plugin chunkview, with vars.
func helmEnv(vars map[string]string) func(string) string {
	return func(k string) string {
		if k == cli.HelmPluginEnv {
			return "chunkview"
		}
		return vars[k]
	}
}

// TestHelmPluginEnv: run by Helm as a plugin, chunkview takes the namespace and
// kube context Helm took out of its arguments (HELM_NAMESPACE, HELM_KUBECONTEXT);
// its own flags win; on the demo Helm's "default" namespace (what it passes when
// none was asked for) lists everything; help names it `helm chunkview`.
func TestHelmPluginEnv(t *testing.T) {
	t.Parallel()
	names := func(vars map[string]string, args ...string) []string {
		t.Helper()
		r := runDemo(t, &cli.App{Getenv: helmEnv(vars)}, append([]string{"ls", "-q"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		return strings.Fields(r.stdout)
	}
	if got, want := names(map[string]string{"HELM_NAMESPACE": "payments"}), []string{"fraud-model", "ledger", "payments-api"}; !reflect.DeepEqual(got, want) {
		t.Errorf("HELM_NAMESPACE=payments: %v, want %v", got, want)
	}
	if got := names(map[string]string{"HELM_NAMESPACE": "payments"}, "-n", "web"); !reflect.DeepEqual(got, []string{"redis"}) {
		t.Errorf("-n web over HELM_NAMESPACE=payments: %v", got)
	}
	if got := names(map[string]string{"HELM_NAMESPACE": "payments"}, "-A"); len(got) != 9 {
		t.Errorf("-A over HELM_NAMESPACE=payments: %v", got)
	}
	if got := names(map[string]string{"HELM_NAMESPACE": "default"}); len(got) != 9 {
		t.Errorf("the demo with Helm's default namespace: %v", got)
	}
	if got := names(map[string]string{"HELM_KUBECONTEXT": "demo-staging", "HELM_NAMESPACE": "default"}); len(got) != 4 {
		t.Errorf("HELM_KUBECONTEXT=demo-staging: %v", got)
	}
	// Without HELM_PLUGIN_NAME the HELM_* variables are helm's business.
	r := runDemo(t, &cli.App{Getenv: func(k string) string { return map[string]string{"HELM_NAMESPACE": "payments"}[k] }}, "ls", "-q")
	if got := strings.Fields(r.stdout); len(got) != 9 {
		t.Errorf("HELM_NAMESPACE outside a plugin: %v", got)
	}
	r = runDemo(t, &cli.App{Getenv: helmEnv(nil)}, "--help")
	if !strings.Contains(r.stdout, "helm chunkview [flags]") {
		t.Errorf("help run by helm: %.300s", r.stdout)
	}
}

// TestKubectlPluginName: run as kubectl-chunkview, as kubectl runs its plugin,
// help and usage errors name it `kubectl chunkview`.
func TestKubectlPluginName(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{ProgramName: cli.KubectlPluginName}, "--help")
	if !strings.Contains(r.stdout, "kubectl chunkview [flags]") || !strings.Contains(r.stdout, "kubectl chunkview [command]") {
		t.Errorf("help as kubectl-chunkview: %.300s", r.stdout)
	}
	r = runDemo(t, &cli.App{ProgramName: cli.KubectlPluginName}, "get")
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "kubectl chunkview get takes") {
		t.Errorf("usage error as kubectl-chunkview: %s", r)
	}
}
