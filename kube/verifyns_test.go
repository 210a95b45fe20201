package kube_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestVerifyAndGCTakeTheReleaseNamespace: -n names the releases' namespace, as in
// helm, for verify and gc too. An operator in ops stores "moved" and "foreign"
// (written by helm-operator-plugins' driver, so only its payload says where it
// is deployed), both deployed to app, beside "local", deployed to ops; "home" is
// stored in app itself. Verify and gc -n app cover what app holds and the records
// of moved and foreign in ops, not local's; -n ops covers what ops holds.
func TestVerifyAndGCTakeTheReleaseNamespace(t *testing.T) {
	ctx := t.Context()
	ops, app := cluster.Namespace(t), cluster.Namespace(t)
	const owner = "relns-owner"
	const chunk = 8 << 10
	key := storage.RecordKey
	cv := chunkviewDriver(ops, owner, chunk)
	seed(t, cv, history("moved", app, 2, 30_000)...)
	seed(t, originalDriver(ops, owner, chunk), makeRelease("foreign", app, 1, release.StatusDeployed, 30_000))
	seed(t, cv, makeRelease("local", ops, 1, release.StatusDeployed, 30_000))
	seed(t, chunkviewDriver(app, owner, chunk), makeRelease("home", app, 1, release.StatusDeployed, 30_000))

	lost := chunkNames(t, ops, key("moved", 2))[0]
	if err := secrets(ops).Delete(ctx, lost, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	movedLeft := createChunk(t, ops, owner, key("moved", 1), []byte("left by an interrupted write of moved"))
	localLeft := createChunk(t, ops, owner, key("local", 1), []byte("left by an interrupted write of local"))
	opsStray := createChunk(t, ops, owner, key("gone", 1), []byte("the index of gone was deleted"))
	appStray := createChunk(t, app, owner, key("vanished", 3), []byte("the index of vanished was deleted"))

	later := time.Now().Add(time.Hour)
	client := func(ns string) *kube.Client {
		return directClient(t, nil, kube.Config{Owner: owner, Namespace: ns, Now: func() time.Time { return later }})
	}
	indexes := func(reps []kube.NamespaceReport) map[string]int {
		out := map[string]int{}
		for _, r := range reps {
			out[r.Namespace] = r.Indexes
		}
		return out
	}
	leftovers := func(reps []kube.NamespaceReport) []string {
		var out []string
		for _, r := range reps {
			for _, lo := range r.Leftovers {
				out = append(out, r.Namespace+"/"+lo.Name)
			}
		}
		slices.Sort(out)
		return out
	}

	reps, err := kube.NewChecker(client(app)).Verify(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := indexes(reps), map[string]int{app: 1, ops: 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verify -n app checked the indexes %v, want %v (moved 2 and foreign 1 in ops, home 1 in app)", got, want)
	}
	got, want := problemSet(reps), []string{
		fmt.Sprintf("%s %s %s", storage.ProblemMissingChunk, key("moved", 2), lost),
		fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("moved", 1), movedLeft),
		fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("vanished", 3), appStray),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("verify -n app found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	reps, err = kube.NewChecker(client(ops)).Verify(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := indexes(reps), map[string]int{ops: 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verify -n ops checked the indexes %v, want %v (all it holds)", got, want)
	}
	got, want = problemSet(reps), []string{
		fmt.Sprintf("%s %s %s", storage.ProblemMissingChunk, key("moved", 2), lost),
		fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("moved", 1), movedLeft),
		fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("gone", 1), opsStray),
		fmt.Sprintf("%s %s %s", storage.ProblemOrphanChunk, key("local", 1), localLeft),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("verify -n ops found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// One release of the namespace: its records alone.
	reps, err = kube.NewChecker(client(app)).Verify(ctx, "moved", false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := indexes(reps), map[string]int{ops: 2, app: 0}; fmt.Sprint(got) != fmt.Sprint(want) || len(problemSet(reps)) != 2 {
		t.Errorf("verify moved -n app: indexes %v (want %v), problems %v", got, want, problemSet(reps))
	}
	// Looked up where it is stored, as the CLI does once it has located it.
	reps, err = kube.NewChecker(client(app)).VerifyRelease(ctx, ops, "moved", false)
	if err != nil || len(reps) != 1 || reps[0].Namespace != ops || reps[0].Indexes != 2 || len(reps[0].Problems) != 2 {
		t.Errorf("VerifyRelease(ops, moved): %+v, %v", reps, err)
	}

	found, err := kube.NewChecker(client(app)).FindLeftovers(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := leftovers(found), sortedCopy([]string{ops + "/" + movedLeft, app + "/" + appStray}); !slices.Equal(got, want) {
		t.Errorf("gc -n app found %v, want %v", got, want)
	}
	_, removed, err := gc(ctx, client(app), false)
	if err != nil || removed != 2 {
		t.Fatalf("gc -n app: removed %d, %v", removed, err)
	}
	for _, k := range []struct {
		ns, key string
		left    bool
	}{
		{ops, key("moved", 1), false}, {app, key("vanished", 3), false},
		{ops, key("local", 1), true}, {ops, key("gone", 1), true},
	} {
		names := secretsOfKey(t, k.ns, owner, k.key)
		has := slices.ContainsFunc(names, func(n string) bool { return n == movedLeft || n == appStray || n == localLeft || n == opsStray })
		if has != k.left {
			t.Errorf("after gc -n app, %s/%s: %v (a leftover should be left: %v)", k.ns, k.key, names, k.left)
		}
	}
	// moved's own chunks are all still there but the one deleted above.
	if _, err := decode(ctx, client(app), ops, "moved", 1); err != nil {
		t.Errorf("after gc -n app, moved v1 does not read: %v", err)
	}
}
