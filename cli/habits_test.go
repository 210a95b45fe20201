package cli_test

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/chunkview/chunkview/cli"
)

// TestContextFlagIsTheKubeContext: --context names the kubeconfig context on every
// command, diff's included; diff's context lines are -U/--unified, as in diff and
// git.
func TestContextFlagIsTheKubeContext(t *testing.T) {
	t.Parallel()
	// Before, diff's own --context took the context as a number and failed to
	// parse it.
	r := runDemo(t, &cli.App{}, "--context", "demo-staging", "diff", "podinfo", "1", "2")
	mustCode(t, r, cli.ExitOK)
	r = runDemo(t, &cli.App{}, "diff", "podinfo", "1", "2", "--context", "demo-staging")
	mustCode(t, r, cli.ExitOK)
	wide := runDemo(t, &cli.App{}, "diff", "podinfo", "1", "2", "--unified", "8")
	narrow := runDemo(t, &cli.App{}, "diff", "podinfo", "1", "2", "-U", "0")
	mustCode(t, wide, cli.ExitOK)
	mustCode(t, narrow, cli.ExitOK)
	if len(narrow.stdout) >= len(wide.stdout) {
		t.Errorf("-U 0 shows no fewer lines than --unified 8:\n%s\n---\n%s", narrow.stdout, wide.stdout)
	}
	mustCode(t, runDemo(t, &cli.App{}, "diff", "podinfo", "1", "2", "-U", "-1"), cli.ExitUsage)
	r = runDemo(t, &cli.App{}, "--context", "demo-staging", "rollback", "podinfo", "2", "--dry-run", "-U", "0")
	mustCode(t, r, cli.ExitOK)
}

// TestNamespaceIsTheReleaseNamespace: -n selects releases by the namespace of their
// resources, as helm's does, wherever their records are stored.
func TestNamespaceIsTheReleaseNamespace(t *testing.T) {
	t.Parallel()
	names := func(args ...string) []string {
		t.Helper()
		r := runDemo(t, &cli.App{}, append([]string{"ls", "-q"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		return strings.Fields(r.stdout)
	}
	// grafana-dashboards is stored in demo but deployed to monitoring.
	if got, want := names("-n", "demo"), []string{"podinfo", "web-frontend"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ls -n demo: %v, want %v", got, want)
	}
	if got, want := names("-n", "monitoring"), []string{"grafana-dashboards"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ls -n monitoring: %v, want %v", got, want)
	}
	r := runDemo(t, &cli.App{}, "history", "grafana-dashboards", "-n", "monitoring")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "grafana-dashboards-0.10.0") {
		t.Errorf("history -n monitoring: %s", r)
	}

	// The STORAGE NS column appears only where a release's records live apart.
	r = runDemo(t, &cli.App{}, "ls")
	mustCode(t, r, cli.ExitOK)
	head, _, _ := strings.Cut(r.stdout, "\n")
	if !strings.HasPrefix(strings.Join(strings.Fields(head), " "), "NAME NAMESPACE STORAGE NS REVISION") {
		t.Errorf("ls of mixed namespaces lacks STORAGE NS: %q", head)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "grafana-dashboards") && !strings.HasPrefix(strings.Join(strings.Fields(line)[:3], " "), "grafana-dashboards monitoring demo") {
			t.Errorf("grafana-dashboards row: %q", line)
		}
	}
	r = runDemo(t, &cli.App{}, "ls", "-n", "payments")
	mustCode(t, r, cli.ExitOK)
	if strings.Contains(r.stdout, "STORAGE NS") {
		t.Errorf("ls -n payments shows STORAGE NS with every record beside its release: %s", r)
	}
}

// TestListFlags covers the ls and history flags helm users type, -o wide and -o
// name, and the empty list.
func TestListFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ls", "-q", "--pending"}, "payments-api\n"},
		{[]string{"ls", "-q", "--failed"}, ""},
		{[]string{"ls", "-q", "--deployed", "-f", "^pay|^led"}, "ledger\n"},
		{[]string{"ls", "-q", "--deployed", "--pending", "--filter", "^pay|^led"}, "ledger\npayments-api\n"},
		{[]string{"ls", "--short", "--max", "2"}, "podinfo\nweb-frontend\n"},
		{[]string{"ls", "-o", "name", "-f", "podinfo"}, "secret/sh.helm.release.v1.podinfo.v4\n"},
		{[]string{"history", "podinfo", "-o", "name", "--max", "2"}, "secret/sh.helm.release.v1.podinfo.v3\nsecret/sh.helm.release.v1.podinfo.v4\n"},
		{[]string{"ls", "--owner", "nobody", "-q"}, ""},
	}
	for _, c := range cases {
		r := runDemo(t, &cli.App{}, c.args...)
		mustCode(t, r, cli.ExitOK)
		if r.stdout != c.want {
			t.Errorf("%v: got %q, want %q", c.args, r.stdout, c.want)
		}
	}

	r := runDemo(t, &cli.App{}, "ls", "-n", "payments", "--no-headers")
	mustCode(t, r, cli.ExitOK)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 3 || strings.HasPrefix(lines[0], "NAME") {
		t.Errorf("--no-headers: %s", r)
	}
	r = runDemo(t, &cli.App{}, "ls", "-n", "payments", "-o", "wide")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "STORAGE NS") || !strings.Contains(r.stdout, "LAST DEPLOYED") {
		t.Errorf("-o wide: %s", r)
	}
	r = runDemo(t, &cli.App{}, "history", "podinfo", "-o", "wide", "--max", "1")
	mustCode(t, r, cli.ExitOK)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "INDEX SECRET") || !strings.HasPrefix(lines[1], "4 ") {
		t.Errorf("history -o wide --max 1: %s", r)
	}

	// Nothing listed is an answer: exit 0, the header alone, where ls looked on
	// stderr.
	r = runDemo(t, &cli.App{}, "ls", "--owner", "nobody")
	mustCode(t, r, cli.ExitOK)
	if strings.Count(r.stdout, "\n") != 1 || !strings.HasPrefix(r.stdout, "NAME ") || !strings.Contains(r.stderr, "--owner") {
		t.Errorf("empty ls: %s", r)
	}
	r = runDemo(t, &cli.App{}, "ls", "--owner", "nobody", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, `"releases": []`) {
		t.Errorf("empty ls -o json: %s", r)
	}

	for _, args := range [][]string{
		{"ls", "-f", "("}, {"ls", "--max", "-1"}, {"history", "podinfo", "--max", "-2"}, {"ls", "-o", "tsv"},
		{"diff", "podinfo", "1", "2", "-o", "wide"},
	} {
		mustCode(t, runDemo(t, &cli.App{}, args...), cli.ExitUsage)
	}
}

// TestHistoryTimesHaveTheirZone: history's times are local, with the zone named.
func TestHistoryTimesHaveTheirZone(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "history", "podinfo", "--max", "1", "--no-headers")
	mustCode(t, r, cli.ExitOK)
	zone, _ := time.Now().Zone()
	if f := strings.Fields(r.stdout); len(f) < 4 || f[3] != zone {
		t.Errorf("want the time then zone %s: %q", zone, r.stdout)
	}
}

// TestVersion: --version and `version` print the version, the commit and the Go
// version.
func TestVersion(t *testing.T) {
	t.Parallel()
	a := runDemo(t, &cli.App{}, "--version")
	b := runDemo(t, &cli.App{}, "version")
	mustCode(t, a, cli.ExitOK)
	mustCode(t, b, cli.ExitOK)
	if a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "chunkview ") || !strings.Contains(a.stdout, ", commit ") || !strings.Contains(a.stdout, ", go1.") {
		t.Errorf("--version %q, version %q", a.stdout, b.stdout)
	}
}

// TestCompletion: completion is listed, and completes names, revisions,
// namespaces and -o values from the cluster.
func TestCompletion(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "--help")
	if !strings.Contains(r.stdout, "\n  completion ") {
		t.Errorf("completion is not listed: %s", r.stdout)
	}
	complete := func(args ...string) []string {
		t.Helper()
		r := runDemo(t, &cli.App{}, append([]string{"__complete"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		var out []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if l == "" || strings.HasPrefix(l, ":") {
				continue
			}
			name, _, _ := strings.Cut(l, "\t")
			out = append(out, name)
		}
		return out
	}
	has := func(got []string, want ...string) bool {
		for _, w := range want {
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
				return false
			}
		}
		return true
	}
	if got := complete("history", ""); !has(got, "podinfo", "payments-api", "grafana-dashboards") {
		t.Errorf("release names: %v", got)
	}
	if got := complete("rollback", "podinfo", ""); !reflect.DeepEqual(got, []string{"4", "3", "2", "1"}) {
		t.Errorf("revisions: %v", got)
	}
	if got := complete("diff", "podinfo", "1", ""); len(got) != 4 {
		t.Errorf("diff TO revisions: %v", got)
	}
	if got := complete("ls", "-n", ""); !has(got, "demo", "monitoring", "payments") {
		t.Errorf("namespaces: %v", got)
	}
	if got := complete("ls", "-o", ""); !reflect.DeepEqual(got, []string{"table", "wide", "name", "json", "yaml"}) {
		t.Errorf("ls -o values: %v", got)
	}
	if got := complete("verify", "-o", ""); !reflect.DeepEqual(got, []string{"table", "json", "yaml"}) {
		t.Errorf("verify -o values: %v", got)
	}
	r = runDemo(t, &cli.App{}, "completion", "bash")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "__chunkview") {
		t.Errorf("completion bash: %.200s", r.stdout)
	}
}

// TestNoKubeconfig: without a kubeconfig, say which file is missing and suggest
// --demo, and exit with the same code however the missing file was named.
func TestNoKubeconfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	run := func(args ...string) result {
		var out, errb bytes.Buffer
		code := (&cli.App{}).Run(t.Context(), args, strings.NewReader(""), &out, &errb)
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}
	t.Setenv("KUBECONFIG", "")
	home := clientcmd.RecommendedHomeFile
	cases := []struct {
		r    result
		want string
	}{
		{run("ls"), "Error: no kubeconfig found: " + home + " does not exist (set KUBECONFIG or --kubeconfig); try --demo\n"},
		{run("--kubeconfig", "/nope", "ls"), "Error: no kubeconfig found: /nope (--kubeconfig) does not exist; try --demo\n"},
		{run("history", "x", "--kubeconfig=/nope"), "Error: no kubeconfig found: /nope (--kubeconfig) does not exist; try --demo\n"},
	}
	t.Setenv("KUBECONFIG", "/nope")
	cases = append(cases, struct {
		r    result
		want string
	}{run("ls"), "Error: no kubeconfig found: /nope (KUBECONFIG) does not exist; try --demo\n"})
	for _, c := range cases {
		if c.r.code != cli.ExitUnreachable || c.r.stderr != c.want {
			t.Errorf("want exit %d and %q, got %s", cli.ExitUnreachable, c.want, c.r)
		}
	}
}

// promptWriter is stderr that reports when a confirmation prompt has been written.
type promptWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	prompt chan struct{}
	once   sync.Once
}

func (w *promptWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), "Proceed") || strings.Contains(w.buf.String(), "type the release name") {
		w.once.Do(func() { close(w.prompt) })
	}
	return n, err
}

func (w *promptWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestCtrlCAtPrompt: Ctrl-C while a confirmation waits for its answer cancels with
// exit 130 at once, and nothing changes.
func TestCtrlCAtPrompt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byPlugins, "calm", 3)
	before := e.secrets("calm")
	for _, args := range [][]string{
		{"rollback", "calm", "1"},
		{"uninstall", "calm"},
		{"delete-revision", "calm", "2"},
	} {
		// stdin is a terminal nobody types on: the read never ends by itself.
		stdin, typist := io.Pipe()
		defer typist.Close()
		ctx, cancel := context.WithCancel(t.Context())
		stderr := &promptWriter{prompt: make(chan struct{})}
		var stdout bytes.Buffer
		done := make(chan int, 1)
		go func() {
			app := &cli.App{IsTerminal: func(io.Reader) bool { return true }}
			done <- app.Run(ctx, append(args, "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir, "-n", e.ns), stdin, &stdout, stderr)
		}()
		select {
		case <-stderr.prompt:
		case code := <-done:
			t.Fatalf("%v ended with %d before asking: %s", args, code, stderr)
		case <-time.After(60 * time.Second):
			t.Fatalf("%v never asked: %s", args, stderr)
		}
		cancel() // what main's signal handler does on Ctrl-C
		select {
		case code := <-done:
			// 130, as a shell reports a command that SIGINT ended: the
			// README's code, written out.
			if code != 130 || !strings.Contains(stderr.String(), "nothing was changed") {
				t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v still waits for an answer after Ctrl-C: %s", args, stderr)
		}
	}
	if after := e.secrets("calm"); !reflect.DeepEqual(before, after) {
		t.Errorf("records changed after Ctrl-C: %v -> %v", before, after)
	}
}

// TestRollbackWarnsFirst: before the question, rollback says when the default
// target is a failed revision and when a pending revision stays behind.
func TestRollbackWarnsFirst(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "rollback", "podinfo", "--dry-run")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stderr, "Warning: the default target, revision 3") || !strings.Contains(r.stdout, "to the content of revision 3") {
		t.Errorf("failed default target not warned about: %s", r)
	}
	r = runDemo(t, &cli.App{}, "rollback", "payments-api", "3", "--dry-run", "-U", "1")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stderr, "leaves revision 5 pending-upgrade") {
		t.Errorf("pending revision left behind not warned about: %s", r)
	}
	r = runDemo(t, &cli.App{}, "rollback", "podinfo", "2", "--dry-run")
	if r.stderr != "" {
		t.Errorf("warnings for a plain rollback: %s", r)
	}
}

// TestGet: get prints what helm get prints, for the latest revision or the one
// named.
func TestGet(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"get", "values", "podinfo"}, []string{"USER-SUPPLIED VALUES:\n", "replicaCount"}},
		{[]string{"get", "values", "podinfo", "--all"}, []string{"COMPUTED VALUES:\n", "autoscaling:"}},
		{[]string{"get", "manifest", "podinfo", "--revision", "1"}, []string{"# Source: podinfo/templates/", "kind: Deployment"}},
		{[]string{"get", "notes", "payments-api"}, []string{"NOTES:\n", "port-forward"}},
		{[]string{"get", "hooks", "payments-api"}, []string{"---\n# Source: payments-api/templates/"}},
		{[]string{"get", "all", "podinfo", "--revision", "2"}, []string{"NAME: podinfo\n", "REVISION: 2\n", "STATUS: superseded\n", "USER-SUPPLIED VALUES:", "COMPUTED VALUES:", "HOOKS:", "MANIFEST:"}},
	}
	for _, c := range cases {
		r := runDemo(t, &cli.App{}, c.args...)
		mustCode(t, r, cli.ExitOK)
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v lacks %q:\n%s", c.args, w, r.stdout)
			}
		}
	}
	mustCode(t, runDemo(t, &cli.App{}, "get", "values", "podinfo", "--revision", "9"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "get", "values", "nope"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "get", "values", "podinfo", "--revision", "-1"), cli.ExitUsage)
	mustCode(t, runDemo(t, &cli.App{}, "get", "values"), cli.ExitUsage)
	if got := runDemo(t, &cli.App{}, "get", "values", "payments-api"); strings.Contains(got.stdout, "password: ") && !strings.Contains(got.stdout, "password: <masked:") {
		t.Errorf("get values shows a password:\n%s", got.stdout)
	}
}
