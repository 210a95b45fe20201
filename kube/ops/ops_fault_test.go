package ops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// The fault matrix runs chunkview's release operations through a proxy that breaks
// one request at a time, the way networks and API servers do, and then checks with a
// clean client straight to the server that nothing was lost.

const (
	faultOwner     = "fault-owner"
	faultChunkSize = 16 << 10
	// faultTimeout is the --request-timeout of the faulty connection; delayed
	// responses are held longer than that.
	faultTimeout = 3 * time.Second
	faultDelay   = 4 * time.Second
	faultRelease = "app"
)

// faultScenario is one operation of the matrix.
type faultScenario struct {
	name string
	// prepare seeds namespace ns through a clean driver.
	prepare func(t *testing.T, ns string)
	// run performs the operation through c.
	run func(ctx context.Context, c *kube.Client, ns string) error
	// check is given the records left (by revision) and the operation's error; it
	// fails the test unless the records are the old state, the new one, or (for
	// operations Helm itself does in several steps) a mix whose every record is
	// whole.
	check func(t *testing.T, got map[int]*release.Release, err error)
	// retried checks the records after the operation was run again on a clean
	// connection, as a failure's message tells the user to.
	retried func(t *testing.T, got map[int]*release.Release)
}

// faultHistory is what every scenario starts from: three revisions of several
// chunks each.
func faultHistory(ns string) []*release.Release { return history(faultRelease, ns, 3, 40_000) }

func faultSeed(t *testing.T, ns string) {
	t.Helper()
	seed(t, storage.NewDriver(secrets(ns), faultOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}), faultHistory(ns)...)
}

// faultLeftovers creates n chunk Secrets that no index names, as interrupted writes
// leave them.
func faultLeftovers(t *testing.T, ns string, n int) {
	t.Helper()
	for i := range n {
		createChunk(t, ns, faultOwner, storage.RecordKey(faultRelease, 1), []byte(fmt.Sprintf("leftover %d of an interrupted write", i)))
	}
}

// sameContent reports whether two revisions hold the same release, status aside:
// operations change statuses of the revisions they leave in place.
func sameContent(a, b *release.Release) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Manifest == b.Manifest &&
		fmt.Sprint(a.Config) == fmt.Sprint(b.Config) && a.Chart.Metadata.Version == b.Chart.Metadata.Version
}

// mustKeepOld fails unless every revision of the original history that is still
// stored holds what it held, and no revision outside allowed exists.
func mustKeepOld(t *testing.T, got map[int]*release.Release, ns string, allowedNew map[int]bool) {
	t.Helper()
	old := map[int]*release.Release{}
	for _, r := range faultHistory(ns) {
		old[r.Version] = r
	}
	for rev, r := range got {
		if o, ok := old[rev]; ok {
			if !sameContent(o, r) {
				t.Errorf("revision %d changed content", rev)
			}
			continue
		}
		if !allowedNew[rev] {
			t.Errorf("unexpected revision %d (%s)", rev, r.Info.Status)
		}
	}
}

func faultScenarios() []faultScenario {
	return []faultScenario{
		{
			name:    "rollback",
			prepare: faultSeed,
			run: func(ctx context.Context, c *kube.Client, ns string) error {
				_, err := applyByName(ctx, c, ns, faultRelease, rollbackPlan(2, kube.DiffOptions{}))
				return err
			},
			check: func(t *testing.T, got map[int]*release.Release, err error) {
				ns := ""
				if r := got[1]; r != nil {
					ns = r.Namespace
				}
				mustKeepOld(t, got, ns, map[int]bool{4: true})
				for _, rev := range []int{1, 2, 3} {
					if got[rev] == nil {
						t.Errorf("rollback lost revision %d", rev)
					}
				}
				if r := got[4]; r != nil && got[2] != nil && r.Manifest != got[2].Manifest {
					t.Errorf("revision 4 does not hold revision 2's manifest")
				}
				if err == nil && (got[4] == nil || got[4].Info.Status != release.StatusDeployed) {
					t.Errorf("rollback succeeded but revision 4 is %v", statusOf(got[4]))
				}
				// Helm's rollback only logs a failed write of revision 3's
				// superseded status; the operation finishes that job itself.
				for _, rev := range []int{1, 2, 3} {
					if err == nil && got[rev] != nil && got[rev].Info.Status == release.StatusDeployed {
						t.Errorf("rollback succeeded but revision %d is still deployed beside revision 4", rev)
					}
				}
			},
			retried: func(t *testing.T, got map[int]*release.Release) {
				// The failed attempt may have recorded revision 4 (failed or pending);
				// the retry then records 5.
				revs := revisions(got)
				latest := got[revs[len(revs)-1]]
				if len(revs) < 4 || len(revs) > 5 || latest.Info.Status != release.StatusDeployed || got[2] == nil || latest.Manifest != got[2].Manifest {
					t.Errorf("after the retry: revisions %v, latest %s", revs, statusOf(latest))
				}
				for _, rev := range []int{1, 2, 3} {
					if got[rev] == nil {
						t.Errorf("retry lost revision %d", rev)
					}
				}
			},
		},
		{
			name:    "uninstall",
			prepare: faultSeed,
			run: func(ctx context.Context, c *kube.Client, ns string) error {
				_, err := applyByName(ctx, c, ns, faultRelease, uninstallPlan(false))
				return err
			},
			check: func(t *testing.T, got map[int]*release.Release, err error) {
				// Helm purges revisions one at a time: a failure part-way leaves some,
				// each whole; uninstall again finishes the job.
				for rev, r := range got {
					if rev < 1 || rev > 3 || r.Manifest == "" {
						t.Errorf("uninstall left revision %d in a bad state", rev)
					}
				}
				if err == nil && len(got) > 0 {
					t.Errorf("uninstall succeeded but %d revisions remain", len(got))
				}
			},
			retried: func(t *testing.T, got map[int]*release.Release) {
				if len(got) > 0 {
					t.Errorf("uninstall retried, %d revisions remain", len(got))
				}
			},
		},
		{
			name:    "delete-revision",
			prepare: faultSeed,
			run: func(ctx context.Context, c *kube.Client, ns string) error {
				_, err := applyByName(ctx, c, ns, faultRelease, deleteRevisionPlan(2, false))
				return err
			},
			check: func(t *testing.T, got map[int]*release.Release, err error) {
				ns := ""
				if r := got[1]; r != nil {
					ns = r.Namespace
				}
				mustKeepOld(t, got, ns, nil)
				if got[1] == nil || got[3] == nil {
					t.Errorf("delete-revision 2 lost another revision: have %v", revisions(got))
				}
				if err == nil && got[2] != nil {
					t.Errorf("delete-revision succeeded but revision 2 is still there")
				}
			},
			retried: func(t *testing.T, got map[int]*release.Release) {
				if got[2] != nil || got[1] == nil || got[3] == nil {
					t.Errorf("delete-revision retried: revisions %v", revisions(got))
				}
			},
		},
		{
			name: "gc",
			prepare: func(t *testing.T, ns string) {
				faultSeed(t, ns)
				faultLeftovers(t, ns, 3)
			},
			run: func(ctx context.Context, c *kube.Client, ns string) error {
				reps, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
				if err != nil {
					return err
				}
				_, err = kube.NewChecker(c).RemoveLeftovers(ctx, reps)
				return err
			},
			check: func(t *testing.T, got map[int]*release.Release, err error) {
				if len(got) != 3 {
					t.Errorf("gc changed the history: %v", revisions(got))
				}
				for _, r := range got {
					if r.Info.Status != faultHistory(r.Namespace)[r.Version-1].Info.Status {
						t.Errorf("gc changed revision %d", r.Version)
					}
				}
			},
			retried: func(t *testing.T, got map[int]*release.Release) {
				if len(got) != 3 {
					t.Errorf("gc retried changed the history: %v", revisions(got))
				}
			},
		},
		{
			// prune --keep 1 removes revisions 1 and 2, oldest first: a fault
			// at any call leaves the history shorter at its old end, never with
			// a gap among the newest.
			name:    "prune",
			prepare: faultSeed,
			run: func(ctx context.Context, c *kube.Client, ns string) error {
				p, err := planOf(ctx, c, ns, faultRelease)
				if err != nil {
					return err
				}
				pr, err := ops.NewRunner(c).PlanPrune(ctx, p, 1)
				if err != nil {
					return err
				}
				return ops.NewRunner(c).Apply(ctx, pr)
			},
			check: func(t *testing.T, got map[int]*release.Release, err error) {
				ns := ""
				if r := got[3]; r != nil {
					ns = r.Namespace
				}
				mustKeepOld(t, got, ns, nil)
				if got[3] == nil {
					t.Errorf("prune removed the latest revision: have %v", revisions(got))
				}
				if got[2] == nil && got[1] != nil {
					t.Errorf("prune left a gap: revision 1 stays, revision 2 is gone (%v)", revisions(got))
				}
				if err == nil && len(got) != 1 {
					t.Errorf("prune succeeded but left %v", revisions(got))
				}
			},
			retried: func(t *testing.T, got map[int]*release.Release) {
				if len(got) != 1 || got[3] == nil {
					t.Errorf("prune retried: revisions %v", revisions(got))
				}
			},
		},
	}
}

func statusOf(r *release.Release) string {
	if r == nil {
		return "missing"
	}
	return r.Info.Status.String()
}

func revisions(got map[int]*release.Release) []int {
	var out []int
	for r := range got {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

// readAll reads every index Secret of the owner in ns with a clean driver straight
// to the server, and fails the test if any does not decode: the history must always
// read completely.
func readAll(t *testing.T, ns string) map[int]*release.Release {
	t.Helper()
	d := storage.NewDriver(secrets(ns), faultOwner, storage.ChunkedSecretsConfig{})
	list, err := secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: storage.IndexSelector(faultOwner).String()})
	if err != nil {
		t.Fatalf("list indexes: %v", err)
	}
	out := map[int]*release.Release{}
	for i := range list.Items {
		rls, err := d.Decode(t.Context(), &list.Items[i])
		if err != nil {
			t.Fatalf("the history does not read: index %s: %v", list.Items[i].Name, err)
		}
		out[rls.Version] = rls
	}
	return out
}

// faultStats counts what the matrix saw.
type faultStats struct {
	cases, failed, recovered, leftovers, unowned, retried, stuck int
	// pending counts pending indexes of creates cut off before their cleanup.
	pending int
	// helmStates counts runs after which Helm's own bookkeeping (statuses) was left
	// part-way: Helm logs and ignores some failed writes.
	helmStates int
}

// verifyAndCollect checks the records with Verify (decoding every revision), allows
// only leftovers (orphan chunks, pending indexes of creates cut off), removes them
// with a clean client and checks that none remain. A chunk without its
// ownerReference is an error: a chunk is created owned by its index.
func verifyAndCollect(t *testing.T, ns string, st *faultStats) {
	t.Helper()
	ctx := t.Context()
	rep, err := storage.Verify(ctx, secrets(ns), faultOwner, storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	for _, p := range rep.Problems {
		switch p.Kind {
		case storage.ProblemOrphanChunk:
		case storage.ProblemPendingIndex:
			// A create cut off with its cleanup: the pending index is a leftover.
			st.pending++
		case storage.ProblemNoOwner:
			st.unowned++
			t.Errorf("verify found a chunk without its owner, which create gives it from the start: %s: %s", p.Secret, p.Detail)
		default:
			t.Errorf("verify found %s on %s: %s", p.Kind, p.Secret, p.Detail)
		}
	}
	n, err := storage.RemoveLeftovers(ctx, secrets(ns), rep.Leftovers)
	if err != nil || n != len(rep.Leftovers) {
		t.Fatalf("gc removed %d of %d leftovers: %v", n, len(rep.Leftovers), err)
	}
	st.leftovers += n
	again, err := storage.Verify(ctx, secrets(ns), faultOwner, storage.VerifyOptions{MinAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Leftovers) > 0 {
		t.Errorf("leftovers remain after gc: %v", again.Leftovers)
	}
}

// mustSayWhatNext fails unless a failed operation's message says what happened and
// what to run next.
func mustSayWhatNext(t *testing.T, err error) {
	t.Helper()
	msg := strings.ToLower(err.Error())
	if !strings.Contains(msg, "verify") && !strings.Contains(msg, "retry") {
		t.Errorf("error says neither to verify nor to retry: %v", err)
	}
}

// faultRules returns the rules of the matrix for an operation that makes total
// requests, mutating of them able to change the cluster: every fault on every
// mutating request, and a 500 on every request.
func faultRules(total, mutating int) []faultproxy.Rule {
	var rules []faultproxy.Rule
	for k := 1; k <= mutating; k++ {
		for _, kind := range []faultproxy.Kind{faultproxy.Status500, faultproxy.Status429, faultproxy.CloseMidResponse, faultproxy.Delay, faultproxy.Refuse} {
			rules = append(rules, faultproxy.Rule{Kind: kind, K: k, MutatingOnly: true, Delay: faultDelay})
		}
		// With Retry-After, client-go retries and the operation goes through.
		rules = append(rules, faultproxy.Rule{Kind: faultproxy.Status429, K: k, MutatingOnly: true, RetryAfter: 1})
	}
	for k := 1; k <= total; k++ {
		rules = append(rules, faultproxy.Rule{Kind: faultproxy.Status500, K: k})
	}
	return rules
}

// TestFaultMatrix runs rollback, uninstall, delete-revision and gc through the fault
// proxy, breaking each request in turn (every kind of fault on each mutating
// request, a 500 on each request), and after each run checks with a clean client
// that the history reads completely and holds the old or the new state, that verify
// reports only leftovers and gc removes them, and that a failure says what to do
// next. CHUNKVIEW_FAULT_SCENARIO limits the run to one operation.
func TestFaultMatrix(t *testing.T) {
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	kc, err := p.WriteKubeconfig(dir, "default")
	if err != nil {
		t.Fatal(err)
	}
	faulty := func(t *testing.T, ns string) *kube.Client {
		// A discovery cache of its own: one shared with an earlier run would
		// save that run's discovery requests and shift the count the rules
		// are keyed on.
		o := parseOptions(t, []string{"--kubeconfig", kc, "--cache-dir", t.TempDir(), "-n", ns, "--owner", faultOwner,
			"--chunk-size", fmt.Sprint(faultChunkSize), "--request-timeout", faultTimeout.String()})
		c, err := o.Connect()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	clean := func(t *testing.T, ns string) *kube.Client {
		return connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", faultOwner, "--chunk-size", fmt.Sprint(faultChunkSize)}, nil)
	}

	var st faultStats
	only := os.Getenv("CHUNKVIEW_FAULT_SCENARIO")
	for _, sc := range faultScenarios() {
		if only != "" && only != sc.name {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			// A run without faults measures the requests the operation makes.
			ns := cluster.Namespace(t)
			sc.prepare(t, ns)
			p.Reset()
			if err := sc.run(t.Context(), faulty(t, ns), ns); err != nil {
				t.Fatalf("%s without faults: %v", sc.name, err)
			}
			total, mutating := p.Count(), len(p.Mutating())
			t.Logf("%s: %d requests, %d mutating: %v", sc.name, total, mutating, p.Mutating())
			sc.check(t, readAll(t, ns), nil)

			for _, rule := range faultRules(total, mutating) {
				t.Run(strings.ReplaceAll(rule.String(), " ", "_"), func(t *testing.T) {
					st.cases++
					ns := cluster.Namespace(t)
					sc.prepare(t, ns)
					if err := p.Reopen(); err != nil {
						t.Fatal(err)
					}
					p.SetRule(rule)
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					err := sc.run(ctx, faulty(t, ns), ns)
					if p.Fired() == 0 {
						// The first K-1 requests are those of the run without
						// faults, so the K-th is made: a rule that did not fire
						// tested nothing.
						t.Errorf("%s never fired (%d requests)", rule, p.Count())
					}
					if err != nil {
						st.failed++
						mustSayWhatNext(t, err)
						t.Logf("%s: %v", rule, err)
					} else if p.Fired() > 0 {
						st.recovered++
					}
					got := readAll(t, ns)
					sc.check(t, got, err)
					if sc.name == "rollback" && err == nil {
						deployed := 0
						for _, r := range got {
							if r.Info.Status == release.StatusDeployed {
								deployed++
							}
						}
						if deployed != 1 {
							// Helm ignores a failed write of the previous revision's
							// status; chunkview's rollback finishes that job.
							st.helmStates++
							t.Errorf("%s: rollback succeeded with %d deployed revisions", rule, deployed)
						}
					}
					verifyAndCollect(t, ns, &st)

					// What the message says to do next works: retry.
					if err != nil {
						st.retried++
						cc := clean(t, ns)
						rerr := sc.run(t.Context(), cc, ns)
						if errors.Is(rerr, kube.ErrInProgress) {
							// Cut off before it could record its own failure, the
							// rollback left its revision pending; the retry says so
							// and names fix-stuck, which gets it out.
							st.stuck++
							if _, err := applyByName(t.Context(), cc, ns, faultRelease, fixStuckPlan(ops.FixMarkFailed)); err != nil {
								t.Fatalf("fix-stuck after %s: %v", rule, err)
							}
							rerr = sc.run(t.Context(), cc, ns)
						}
						if rerr != nil && !((sc.name == "delete-revision" || sc.name == "prune") && errors.Is(rerr, kube.ErrNotFound)) {
							t.Errorf("retry after %s: %v", rule, rerr)
						}
						sc.retried(t, readAll(t, ns))
						verifyAndCollect(t, ns, &st)
					}
				})
			}
		})
	}
	t.Logf("fault cases run: %d; operations that failed: %d (all retried: %d, of which %d needed fix-stuck first); broken requests the operation survived: %d; leftovers removed by gc: %d (pending indexes among them: %d); chunks left without ownerReference: %d; rollbacks leaving two revisions deployed: %d; data lost: 0 (any loss fails the case)",
		st.cases, st.failed, st.retried, st.stuck, st.recovered, st.leftovers, st.pending, st.unowned, st.helmStates)
}
