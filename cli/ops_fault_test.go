package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/storage"
)

// The CLI half of the fault matrix (kube/ops_fault_test.go has the kube half): the
// same operations, run as a user runs them, with --kubeconfig pointing at the fault
// proxy.

const (
	cliFaultOwner   = "cli-fault"
	cliFaultChunk   = 2048
	cliFaultRelease = "app"
	cliFaultTimeout = 3 * time.Second
	cliFaultDelay   = 4 * time.Second
)

// cliFaultTemplate is the history every case starts from: three revisions Helm
// installed and upgraded, recorded once and copied into each case's namespace.
var (
	cliFaultOnce sync.Once
	cliFaultRels []*release.Release
	cliFaultErr  error
)

func cliFaultHistory(t *testing.T) []*release.Release {
	t.Helper()
	cliFaultOnce.Do(func() {
		e := newEnv(t)
		d := ownerDriver(byChunkview, e.ns, cliFaultOwner)
		e.installWith(e.actionConfigIn(d, e.ns), e.ns, byChunkview, cliFaultRelease, 3)
		for rev := 1; rev <= 3; rev++ {
			r, err := d.Get(storage.RecordKey(cliFaultRelease, rev))
			if err != nil {
				cliFaultErr = err
				return
			}
			cliFaultRels = append(cliFaultRels, r)
		}
	})
	if cliFaultErr != nil {
		t.Fatal(cliFaultErr)
	}
	return cliFaultRels
}

// cliFaultSeed stores the template history in namespace ns, the release's resources
// to live there too.
func cliFaultSeed(t *testing.T, ns string) {
	t.Helper()
	d := storage.NewDriver(cluster.Client.CoreV1().Secrets(ns), cliFaultOwner, storage.ChunkedSecretsConfig{ChunkSize: cliFaultChunk})
	for _, r := range cliFaultHistory(t) {
		cp := *r
		cp.Namespace = ns
		if err := d.Create(storage.RecordKey(cp.Name, cp.Version), &cp); err != nil {
			t.Fatal(err)
		}
	}
}

// cliReadAll reads every record of the owner in ns straight from the server and
// fails the test unless each decodes.
func cliReadAll(t *testing.T, ns string) map[int]*release.Release {
	t.Helper()
	sec := cluster.Client.CoreV1().Secrets(ns)
	d := storage.NewDriver(sec, cliFaultOwner, storage.ChunkedSecretsConfig{})
	list, err := sec.List(context.Background(), metav1.ListOptions{LabelSelector: storage.IndexSelector(cliFaultOwner).String()})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]*release.Release{}
	for i := range list.Items {
		rls, err := d.Decode(context.Background(), &list.Items[i])
		if err != nil {
			t.Fatalf("the history does not read: index %s: %v", list.Items[i].Name, err)
		}
		out[rls.Version] = rls
	}
	return out
}

// cliVerifyAndCollect allows only leftovers and chunks without ownerReference, and
// removes the leftovers with the CLI's own gc on a clean connection.
func cliVerifyAndCollect(t *testing.T, e *env) int {
	t.Helper()
	r := e.run("verify", "--decode", "-o", "json", "--owner", cliFaultOwner)
	var v cli.VerifyResult
	decode(t, r, &v)
	if os.Getenv("CHUNKVIEW_FAULT_DEBUG") != "" {
		t.Logf("verify: %s", r)
	}
	for _, n := range v.Namespaces {
		for _, p := range n.Problems {
			if p.Kind != string(storage.ProblemOrphanChunk) && p.Kind != string(storage.ProblemNoOwner) {
				t.Errorf("verify found %s on %s: %s", p.Kind, p.Secret, p.Detail)
			}
		}
	}
	r = e.run("gc", "--yes", "--min-age", "0", "-o", "json", "--owner", cliFaultOwner)
	mustCode(t, r, cli.ExitOK)
	if os.Getenv("CHUNKVIEW_FAULT_DEBUG") != "" {
		t.Logf("gc: %s", r)
	}
	var g cli.GCResult
	decode(t, r, &g)
	if g.Removed != g.Found {
		t.Errorf("gc removed %d of %d: %s", g.Removed, g.Found, r)
	}
	var again cli.GCResult
	r = e.run("gc", "--dry-run", "--min-age", "0", "-o", "json", "--owner", cliFaultOwner)
	decode(t, r, &again)
	if again.Found != 0 {
		t.Errorf("leftovers remain after gc: %s", r)
	}
	return g.Removed
}

// cliOrphan creates a chunk Secret of revision 1 that no index names.
func cliOrphan(t *testing.T, ns string, data []byte) string {
	t.Helper()
	key := storage.RecordKey(cliFaultRelease, 1)
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:   storage.ChunkName(key, data),
			Labels: map[string]string{storage.LabelOwner: cliFaultOwner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk, storage.LabelCreatedAt: "1"},
		},
		Type: storage.SecretTypeChunk,
		Data: map[string][]byte{storage.DataChunk: data},
	}
	if _, err := cluster.Client.CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return s.Name
}

type cliFaultOp struct {
	name    string
	args    []string
	prepare func(t *testing.T, e *env)
	// check fails unless the records are the old state or the new one (each record
	// whole; Helm's multi-step operations may stop between records).
	check func(t *testing.T, got map[int]*release.Release, ok bool)
	// retried checks the records after the command was run again, as its message
	// says to.
	retried func(t *testing.T, got map[int]*release.Release)
}

func cliFaultOps(t *testing.T) []cliFaultOp {
	old := cliFaultHistory(t)
	keep := func(t *testing.T, got map[int]*release.Release, revs ...int) {
		t.Helper()
		for _, rev := range revs {
			g := got[rev]
			if g == nil {
				t.Errorf("revision %d lost", rev)
				continue
			}
			if o := old[rev-1]; g.Manifest != o.Manifest || fmt.Sprint(g.Config) != fmt.Sprint(o.Config) {
				t.Errorf("revision %d changed content", rev)
			}
		}
	}
	seed := func(t *testing.T, e *env) { cliFaultSeed(t, e.ns) }
	return []cliFaultOp{
		{"rollback", []string{"rollback", cliFaultRelease, "1", "--yes"}, seed, func(t *testing.T, got map[int]*release.Release, ok bool) {
			keep(t, got, 1, 2, 3)
			for rev, r := range got {
				if rev > 3 && (rev != 4 || r.Manifest != old[0].Manifest) {
					t.Errorf("unexpected revision %d", rev)
				}
			}
			if ok && got[4] == nil {
				t.Errorf("rollback reported success without revision 4")
			}
		}, func(t *testing.T, got map[int]*release.Release) {
			keep(t, got, 1, 2, 3)
			top, deployed := 0, 0
			for rev, r := range got {
				top = max(top, rev)
				if r.Info.Status == release.StatusDeployed {
					deployed++
				}
			}
			if top < 4 || top > 5 || got[top].Manifest != old[0].Manifest || got[top].Info.Status != release.StatusDeployed || deployed != 1 {
				t.Errorf("after the retry: latest revision %d is %s, %d deployed", top, got[top].Info.Status, deployed)
			}
		}},
		{"uninstall", []string{"uninstall", cliFaultRelease, "--yes"}, seed, func(t *testing.T, got map[int]*release.Release, ok bool) {
			for rev, r := range got {
				if rev < 1 || rev > 3 || r.Manifest != old[rev-1].Manifest {
					t.Errorf("uninstall left revision %d changed", rev)
				}
			}
			if ok && len(got) > 0 {
				t.Errorf("uninstall reported success with %d revisions left", len(got))
			}
		}, func(t *testing.T, got map[int]*release.Release) {
			if len(got) > 0 {
				t.Errorf("uninstall retried: %d revisions left", len(got))
			}
		}},
		{"delete-revision", []string{"delete-revision", cliFaultRelease, "2", "--yes"}, seed, func(t *testing.T, got map[int]*release.Release, ok bool) {
			keep(t, got, 1, 3)
			if got[2] != nil {
				keep(t, got, 2)
			}
			if ok && got[2] != nil {
				t.Errorf("delete-revision reported success with revision 2 left")
			}
		}, func(t *testing.T, got map[int]*release.Release) {
			keep(t, got, 1, 3)
			if got[2] != nil {
				t.Errorf("delete-revision retried: revision 2 left")
			}
		}},
		{"gc", []string{"gc", "--yes", "--min-age", "0"}, func(t *testing.T, e *env) {
			seed(t, e)
			for i := range 3 {
				cliOrphan(t, e.ns, []byte(fmt.Sprintf("leftover %d of an interrupted write", i)))
			}
		}, func(t *testing.T, got map[int]*release.Release, ok bool) {
			keep(t, got, 1, 2, 3)
		}, func(t *testing.T, got map[int]*release.Release) {
			keep(t, got, 1, 2, 3)
		}},
	}
}

// TestCLIFaultMatrix runs rollback, uninstall, delete-revision and gc with the CLI's
// Run entry point against the fault proxy, breaking each mutating request in turn
// with every kind of fault (and a 500 on every read). After each run the history
// reads completely with a clean client, verify reports only leftovers, gc removes
// them, and a failed command exits non-zero saying what happened and what to run
// next. CHUNKVIEW_FAULT_SCENARIO limits the run to one operation.
func TestCLIFaultMatrix(t *testing.T) {
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
		full := append(append([]string{}, args...), "--kubeconfig", kc, "--cache-dir", cache, "-n", e.ns,
			"--owner", cliFaultOwner, "--request-timeout", cliFaultTimeout.String())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out, errb bytes.Buffer
		code := (&cli.App{}).Run(ctx, full, strings.NewReader(""), &out, &errb)
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}

	var cases, failed, recovered, removed, stuck int
	only := os.Getenv("CHUNKVIEW_FAULT_SCENARIO")
	for _, op := range cliFaultOps(t) {
		if only != "" && only != op.name {
			continue
		}
		t.Run(op.name, func(t *testing.T) {
			e := newEnv(t)
			op.prepare(t, e)
			p.Reset()
			r := faulty(e, op.args)
			mustCode(t, r, cli.ExitOK)
			total, mutating := p.Count(), len(p.Mutating())
			t.Logf("%s: %d requests, %d mutating", op.name, total, mutating)
			op.check(t, cliReadAll(t, e.ns), true)

			var rules []faultproxy.Rule
			for k := 1; k <= mutating; k++ {
				for _, kind := range []faultproxy.Kind{faultproxy.Status500, faultproxy.Status429, faultproxy.CloseMidResponse, faultproxy.Delay, faultproxy.Refuse} {
					rules = append(rules, faultproxy.Rule{Kind: kind, K: k, MutatingOnly: true, Delay: cliFaultDelay})
				}
			}
			for k := 1; k <= total; k++ {
				rules = append(rules, faultproxy.Rule{Kind: faultproxy.Status500, K: k})
			}
			for _, rule := range rules {
				t.Run(strings.ReplaceAll(rule.String(), " ", "_"), func(t *testing.T) {
					cases++
					e := newEnv(t)
					op.prepare(t, e)
					if err := p.Reopen(); err != nil {
						t.Fatal(err)
					}
					p.SetRule(rule)
					r := faulty(e, op.args)
					if r.code != cli.ExitOK {
						failed++
						low := strings.ToLower(r.stderr)
						if !strings.Contains(low, "verify") && !strings.Contains(low, "retry") {
							t.Errorf("%s: the error says neither to verify nor to retry: %s", rule, r)
						}
						if !strings.HasPrefix(r.stderr, "Error: ") {
							t.Errorf("%s: no error message: %s", rule, r)
						}
						t.Logf("%s: exit %d: %s", rule, r.code, strings.TrimSpace(r.stderr))
					} else if p.Fired() > 0 {
						recovered++
					}
					op.check(t, cliReadAll(t, e.ns), r.code == cli.ExitOK)
					removed += cliVerifyAndCollect(t, e)
					if r.code != cli.ExitOK {
						// Retrying, as the message says, on a clean connection works. A
						// rollback cut off before it could record its failure leaves its
						// revision pending; the retry then says so and names fix-stuck.
						retry := append(append([]string{}, op.args...), "--owner", cliFaultOwner)
						rr := e.run(retry...)
						if rr.code != cli.ExitOK && strings.Contains(rr.stderr, "fix-stuck") {
							stuck++
							mustCode(t, e.run("fix-stuck", cliFaultRelease, "--mark-failed", "--yes", "--owner", cliFaultOwner), cli.ExitOK)
							rr = e.run(retry...)
						}
						if rr.code != cli.ExitOK && !(op.name == "delete-revision" && rr.code == cli.ExitNotFound) &&
							!(op.name == "uninstall" && rr.code == cli.ExitNotFound) {
							t.Errorf("retry after %s: %s", rule, rr)
						}
						op.retried(t, cliReadAll(t, e.ns))
						removed += cliVerifyAndCollect(t, e)
					}
				})
			}
		})
	}
	t.Logf("CLI fault cases run: %d; commands that failed (non-zero exit, message checked, retried): %d; retries that needed fix-stuck first: %d; broken requests the command survived: %d; leftover chunks removed by gc: %d; data lost: 0 (any loss fails the case)",
		cases, failed, stuck, recovered, removed)
}
