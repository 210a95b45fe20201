package cli_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
)

// TestDemoContextFlag: --context picks one of the demo's two clusters, and a
// context the demo does not have fails as one a kubeconfig lacks, naming both.
func TestDemoContextFlag(t *testing.T) {
	t.Parallel()
	names := func(args ...string) []string {
		t.Helper()
		r := runDemo(t, &cli.App{}, append(args, "ls", "-q")...)
		mustCode(t, r, cli.ExitOK)
		return strings.Fields(r.stdout)
	}
	all := names()
	staging := names("--context", "demo-staging")
	if want := []string{"podinfo", "web-frontend", "payments-api", "redis"}; !sameSet(staging, want) {
		t.Errorf("--context demo-staging lists %v, want %v (demo lists %v)", staging, want, all)
	}
	if got := names("--context", "demo"); !reflect.DeepEqual(got, all) {
		t.Errorf("--context demo lists %v, want the default %v", got, all)
	}
	r := runDemo(t, &cli.App{}, "--context", "nope", "ls")
	mustCode(t, r, cli.ExitUnreachable)
	oneLineErr(t, r)
	for _, want := range []string{`"nope"`, "demo, demo-staging", "--context"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("--context nope: %q lacks %q", r.stderr, want)
		}
	}
	// The view opens on the context asked for.
	var got cli.Session
	app := &cli.App{TUI: func(_ context.Context, _ *kube.Client, s cli.Session) error { got = s; return nil },
		TUITerminal: func(io.Reader, io.Writer) bool { return true }}
	mustCode(t, runDemo(t, app, "--context", "demo-staging"), cli.ExitOK)
	if got.Context != "demo-staging" || got.Contexts == nil || got.Contexts.Current != "demo-staging" {
		t.Errorf("the view opened on %q (contexts %+v), want demo-staging", got.Context, got.Contexts)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestKubeconfigErrors: a missing kubeconfig is named as it was given, and a
// --context the kubeconfig lacks exits as an unreachable cluster does, naming the
// contexts there are.
func TestKubeconfigErrors(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", "")
	run := func(args ...string) result {
		var out, errb bytes.Buffer
		code := (&cli.App{}).Run(t.Context(), args, strings.NewReader(""), &out, &errb)
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}
	r := run("--kubeconfig", "/nope", "ls")
	mustCode(t, r, cli.ExitUnreachable)
	if r.stderr != "Error: no kubeconfig found: /nope (--kubeconfig) does not exist; try --demo\n" {
		t.Errorf("--kubeconfig /nope: %q", r.stderr)
	}
	t.Setenv("KUBECONFIG", "/nope/a:/nope/b")
	r = run("history", "x")
	mustCode(t, r, cli.ExitUnreachable)
	if r.stderr != "Error: no kubeconfig found: none of /nope/a, /nope/b (KUBECONFIG) exists; try --demo\n" {
		t.Errorf("KUBECONFIG=/nope/a:/nope/b: %q", r.stderr)
	}

	kc := filepath.Join(t.TempDir(), "config")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	for _, n := range []string{"prod", "staging"} {
		cfg.Contexts[n] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	}
	cfg.CurrentContext = "prod"
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	r = run("--kubeconfig", kc, "--context", "nope", "ls")
	mustCode(t, r, cli.ExitUnreachable)
	oneLineErr(t, r)
	for _, want := range []string{`no context "nope"`, "prod, staging"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("--context nope: %q lacks %q", r.stderr, want)
		}
	}
}

// TestUsageErrors: what helm and kubectl users mistype exits 2 with a one-line
// error that names the argument, before anything is read.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"lss"}, []string{`unknown command "lss"`, `did you mean "ls"?`}},
		{[]string{"histroy", "podinfo"}, []string{`did you mean "history"?`}},
		{[]string{"get"}, []string{"get takes what to print", "all, hooks, manifest, metadata, notes, values"}},
		{[]string{"get", "valuse", "podinfo"}, []string{`unknown command "valuse"`, `did you mean "values"?`}},
		{[]string{"completion"}, []string{"completion takes a shell", "bash"}},
		{[]string{"completion", "tcsh"}, []string{`unknown command "tcsh"`, "bash, fish, powershell, zsh"}},
		{[]string{"history", "Bad_Name!"}, []string{`release name "Bad_Name!" is not valid`, "lowercase"}},
		{[]string{"rollback", "Bad_Name!", "1"}, []string{`release name "Bad_Name!" is not valid`}},
		{[]string{"get", "values", "podinfo", "--revision", "abc"}, []string{`--revision "abc": want a revision number`}},
		{[]string{"history", "podinfo", "--max", "x"}, []string{`--max "x": want a whole number`}},
		{[]string{"diff", "podinfo", "1", "x"}, []string{`TO "x" is not a revision number`}},
	}
	for _, c := range cases {
		r := runDemo(t, &cli.App{}, c.args...)
		if r.code != cli.ExitUsage || r.stdout != "" {
			t.Errorf("%v: want exit 2 and nothing on stdout, got %s", c.args, r)
			continue
		}
		oneLineErr(t, r)
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: %q lacks %q", c.args, r.stderr, w)
			}
		}
		if strings.Contains(r.stderr, "strconv") || strings.Contains(r.stderr, "expected:") {
			t.Errorf("%v: a parser's error reached the user: %q", c.args, r.stderr)
		}
	}
	// A subcommand spelled right still works, and help is still help.
	mustCode(t, runDemo(t, &cli.App{}, "completion", "bash"), cli.ExitOK)
	mustCode(t, runDemo(t, &cli.App{}, "get", "--help"), cli.ExitOK)
}

// TestListLikeHelm: ls takes helm list's flags. As helm list, it hides releases
// whose latest revision is superseded or uninstalled until asked (and says so);
// -a shows every one; -r reverses, -d sorts by date, -m caps.
func TestListLikeHelm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "alpha", 2)
	e.install(byChunkview, "bravo", 1)
	e.install(byPlugins, "charlie", 1)
	e.addPending(byChunkview, "bravo", release.StatusPendingUpgrade, 0)
	e.addPending(byChunkview, "charlie", release.StatusUninstalled, 0)
	e.addPending(byChunkview, "alpha", release.StatusSuperseded, 0)
	names := func(args ...string) ([]string, result) {
		t.Helper()
		r := e.run(append([]string{"ls", "-q"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		return strings.Fields(r.stdout), r
	}
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"bravo"}},
		{[]string{"-a"}, []string{"alpha", "bravo", "charlie"}},
		{[]string{"--all", "-r"}, []string{"charlie", "bravo", "alpha"}},
		{[]string{"-a", "-m", "2"}, []string{"alpha", "bravo"}},
		{[]string{"-a", "-r", "--max", "1"}, []string{"charlie"}},
		{[]string{"--uninstalled"}, []string{"charlie"}},
		{[]string{"--superseded"}, []string{"alpha"}},
		{[]string{"--superseded", "--pending"}, []string{"alpha", "bravo"}},
		{[]string{"-a", "-f", "^b"}, []string{"bravo"}},
	}
	for _, c := range cases {
		if got, r := names(c.args...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ls %v: %v, want %v\n%s", c.args, got, c.want, r)
		}
	}
	// The table says what the default left out, and how to see it.
	r := e.run("ls")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stderr, "2 releases whose latest revision is superseded or uninstalled not shown") || !strings.Contains(r.stderr, "-a shows every release") {
		t.Errorf("ls hides two without saying so: %s", r)
	}
	if r := e.run("ls", "-a"); strings.Contains(r.stderr, "not shown") {
		t.Errorf("ls -a says something is hidden: %s", r)
	}
	// -d: by the time of the latest revision, oldest first; the pending ones
	// were written last, the latest of them alpha's.
	if got, _ := names("-a", "-d"); !reflect.DeepEqual(got, []string{"bravo", "charlie", "alpha"}) && !reflect.DeepEqual(got, []string{"charlie", "bravo", "alpha"}) {
		t.Errorf("ls -a -d: %v", got)
	}
}

// TestDiffExitCode: diff --exit-code exits as git diff --exit-code does: 1 when
// the revisions differ, 0 when they are the same, and a failure keeps a code of
// its own; without it, diff exits 0 either way.
func TestDiffExitCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"diff", "podinfo", "1", "2"}, cli.ExitOK},
		{[]string{"diff", "podinfo", "1", "2", "--exit-code"}, cli.ExitDiffers},
		{[]string{"diff", "podinfo", "1", "2", "--exit-code", "-o", "json"}, cli.ExitDiffers},
		// Revision 4 is the rollback to 2: the same release again.
		{[]string{"diff", "podinfo", "2", "4", "--exit-code"}, cli.ExitOK},
		{[]string{"diff", "podinfo", "1", "9", "--exit-code"}, cli.ExitNotFound},
		{[]string{"diff", "podinfo", "1", "x", "--exit-code"}, cli.ExitUsage},
		// ledger's revision 3 lost a chunk: a failure to read, not a difference.
		{[]string{"diff", "ledger", "2", "3", "--exit-code"}, cli.ExitDiffError},
	}
	for _, c := range cases {
		r := runDemo(t, &cli.App{}, c.args...)
		if r.code != c.code {
			t.Errorf("%v: want exit %d, got %s", c.args, c.code, r)
		}
	}
}

// TestDiffAgainstLatest: diff NAME compares the revision before the latest with
// the latest, and diff NAME REV compares REV with the latest, as helm diff
// revision does; podinfo's history in the demo is 1..4.
func TestDiffAgainstLatest(t *testing.T) {
	t.Parallel()
	pair := func(args ...string) [2]int {
		t.Helper()
		r := runDemo(t, &cli.App{}, append([]string{"diff", "podinfo", "-o", "json"}, args...)...)
		mustCode(t, r, cli.ExitOK)
		var res struct{ From, To int }
		decode(t, r, &res)
		return [2]int{res.From, res.To}
	}
	for _, c := range []struct {
		args []string
		want [2]int
	}{
		{nil, [2]int{3, 4}},
		{[]string{"2"}, [2]int{2, 4}},
		{[]string{"1", "3"}, [2]int{1, 3}},
	} {
		if got := pair(c.args...); got != c.want {
			t.Errorf("diff podinfo %v compares %d -> %d, want %d -> %d", c.args, got[0], got[1], c.want[0], c.want[1])
		}
	}
	// The text names them too, as the two-revision form does.
	r := runDemo(t, &cli.App{}, "diff", "podinfo")
	mustCode(t, r, cli.ExitOK)
	if !strings.HasPrefix(r.stdout, `Release "podinfo": revision 3 -> 4`) {
		t.Errorf("diff podinfo: %s", r)
	}
	mustCode(t, runDemo(t, &cli.App{}, "diff", "podinfo", "9"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "diff", "podinfo", "1", "2", "3"), cli.ExitUsage)
}
