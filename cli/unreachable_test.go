package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/storage"
)

// TestUnreachableMidOperation: whenever the API server stops answering while an
// operation runs (the fault proxy closes every connection and refuses the next,
// as a killed API server does), the command exits 6, unreachable, and says to
// retry: at each mutating request of a rollback, an uninstall and a
// delete-revision, Helm's applies and deletes of the release's objects among
// them. Only a command whose work was done by then exits 0: a delete-revision
// whose last request, the delete of a chunk its deleted index owned, is left to
// Kubernetes' garbage collector.
func TestUnreachableMidOperation(t *testing.T) {
	t.Parallel()
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kc, err := p.WriteKubeconfig(t.TempDir(), "default")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	faulty := func(e *env, args []string) result {
		full := append(append([]string{}, args...), "--kubeconfig", kc, "--cache-dir", cache, "-n", e.ns, "--request-timeout", cliFaultTimeout.String())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out, errb bytes.Buffer
		code := (&cli.App{}).Run(ctx, full, strings.NewReader(""), &out, &errb)
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}
	chunked := func(t *testing.T, e *env) { cliFaultSeed(t, e.ns) }
	owner := []string{"--owner", cliFaultOwner}
	dir := smallChart(t)
	helm4 := func(t *testing.T, e *env) {
		for rev := 1; rev <= 2; rev++ {
			e.helm4Install(driver4.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)), dir, "h4", rev, map[string]any{"replicas": rev})
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		seed func(*testing.T, *env)
		// done reports whether the records are as the command leaves them.
		done func(*testing.T, *env) bool
	}{
		{"rollback", append([]string{"rollback", cliFaultRelease, "1", "--yes"}, owner...), chunked, func(t *testing.T, e *env) bool {
			got := cliReadAll(t, e.ns)
			return got[4] != nil && got[4].Info.Status == release.StatusDeployed && got[3].Info.Status == release.StatusSuperseded
		}},
		{"uninstall", append([]string{"uninstall", cliFaultRelease, "--yes"}, owner...), chunked, func(t *testing.T, e *env) bool { return len(cliReadAll(t, e.ns)) == 0 }},
		{"delete-revision", append([]string{"delete-revision", cliFaultRelease, "2", "--yes"}, owner...), chunked, func(t *testing.T, e *env) bool {
			got := cliReadAll(t, e.ns)
			return got[2] == nil && len(got) == 2
		}},
		// Helm 4's rollback applies the Deployment and the ConfigMap
		// server-side, one PATCH each.
		{"rollback by Helm 4", []string{"rollback", "h4", "1", "--yes"}, helm4, func(t *testing.T, e *env) bool {
			_, err := driver4.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)).Get(storage.RecordKey("h4", 3))
			return err == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.seed(t, e)
			if err := p.Reopen(); err != nil {
				t.Fatal(err)
			}
			p.Reset()
			mustCode(t, faulty(e, tc.args), cli.ExitOK)
			mutating := len(p.Mutating())
			var onObjects int
			for _, r := range p.Mutating() {
				if strings.Contains(r.Path, "/configmaps") || strings.Contains(r.Path, "/deployments") {
					onObjects++
				}
			}
			t.Logf("%s: %d mutating requests, %d on the release's objects", tc.name, mutating, onObjects)
			for k := 1; k <= mutating; k++ {
				e := newEnv(t)
				tc.seed(t, e)
				if err := p.Reopen(); err != nil {
					t.Fatal(err)
				}
				p.SetRule(faultproxy.Rule{Kind: faultproxy.Refuse, K: k, MutatingOnly: true})
				r := faulty(e, tc.args)
				if p.Fired() != 1 {
					t.Fatalf("refuse on mutating request %d: fired %d times", k, p.Fired())
				}
				if r.code == cli.ExitOK && tc.done(t, e) {
					continue
				}
				if r.code != cli.ExitUnreachable || !strings.Contains(strings.ToLower(r.stderr), "retry") {
					t.Errorf("%s with the server gone at mutating request %d (%s): want exit 6 and a retry, got %s", tc.name, k, lastMutating(p), r)
				}
			}
			if tc.name != "delete-revision" && onObjects == 0 {
				t.Errorf("%s made no request on the release's objects", tc.name)
			}
		})
	}
}

// lastMutating is the mutating request the proxy broke.
func lastMutating(p *faultproxy.Proxy) string {
	for _, r := range p.Mutating() {
		if r.Fault != faultproxy.None {
			return r.String()
		}
	}
	return "?"
}
