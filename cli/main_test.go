package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/internal/testcluster"
)

// cluster is the real API server and etcd the CLI is pointed at.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	// The demo keeps its snapshots in a directory of this run's, never in the
	// user's cache: the demo tests share it, as a user's commands do.
	dir, err := os.MkdirTemp("", "chunkview-demo-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv(demo.CacheEnv, dir)
	testcluster.AtExit(func() { os.RemoveAll(dir) })
	testcluster.Main(m, &cluster)
}

// env is one test's namespace on the test cluster and a kubeconfig that reaches it,
// as a user would have.
type env struct {
	t          *testing.T
	ns         string
	kubeconfig string
	cacheDir   string
	// noNamespace leaves -n out unless a test passes it.
	noNamespace bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, ns: cluster.Namespace(t), kubeconfig: kubetest.WriteKubeconfig(t, cluster.Config, "default"), cacheDir: filepath.Join(dir, "cache")}
	return e
}

// result is what one run of the CLI left.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return "exit " + itoa(r.code) + "\nstdout:\n" + clip(r.stdout) + "\nstderr:\n" + clip(r.stderr)
}

// clip shortens long output in failure messages.
func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "...(clipped)"
	}
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// run runs chunkview with args against the env's namespace, with stdin not a
// terminal.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runApp(&cli.App{}, "", args...)
}

// runTTY runs chunkview as if typed on a terminal that answers with input.
func (e *env) runTTY(input string, args ...string) result {
	e.t.Helper()
	return e.runApp(&cli.App{IsTerminal: func(io.Reader) bool { return true }}, input, args...)
}

// runApp runs app with the connection flags to the test cluster added to args.
func (e *env) runApp(app *cli.App, input string, args ...string) result {
	e.t.Helper()
	return e.runAppIn(app, strings.NewReader(input), args...)
}

// runAppIn is runApp reading stdin from in.
func (e *env) runAppIn(app *cli.App, in io.Reader, args ...string) result {
	e.t.Helper()
	if app.IsTerminal == nil {
		app.IsTerminal = func(io.Reader) bool { return false }
	}
	full := append([]string{}, args...)
	full = append(full, "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir)
	if !e.noNamespace && !hasFlag(args, "-n", "--namespace", "-A", "--all-namespaces") {
		full = append(full, "-n", e.ns)
	}
	ctx, cancel := context.WithTimeout(e.t.Context(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := app.Run(ctx, full, in, &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func hasFlag(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return true
			}
		}
	}
	return false
}

// mustCode fails the test unless r exited with code.
func mustCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
}

// decode parses r's stdout as JSON into v.
func decode(t *testing.T, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("stdout is not the JSON expected: %v\n%s", err, r)
	}
}

// oneLineErr fails unless stderr is exactly one line: the error.
func oneLineErr(t *testing.T, r result) {
	t.Helper()
	if n := strings.Count(strings.TrimRight(r.stderr, "\n"), "\n"); n > 0 || !strings.HasPrefix(r.stderr, "Error: ") {
		t.Fatalf("want a one-line error, got %s", r)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
