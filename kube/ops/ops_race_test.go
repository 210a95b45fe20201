package ops_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// Races between chunkview rollbacks and Helm upgrades of one release, each writer
// with its own connection. Run them with -race: go test -race -run Race ./kube/

const raceOwner = "race-owner"

// raceOutcome sorts an operation's result: a win, or a clean loss of the race.
func raceOutcome(t *testing.T, who string, err error) string {
	t.Helper()
	switch {
	case err == nil:
		return "won"
	case errors.Is(err, kube.ErrInProgress):
		return "in progress"
	case errors.Is(err, storage.ErrConflict):
		msg := strings.ToLower(err.Error())
		if !strings.Contains(msg, "retry") {
			t.Errorf("%s: a conflict that does not say to retry: %v", who, err)
		}
		return "conflict"
	case strings.Contains(err.Error(), "another operation (install/upgrade/rollback) is in progress"):
		return "helm: in progress"
	case errors.Is(err, driver.ErrReleaseExists):
		return "helm: exists"
	}
	t.Errorf("%s: not a clean loss of a race: %v", who, err)
	return "error"
}

// TestRaceRollbacks: several chunkview clients roll one release back at once, while
// Helm upgrades it, round after round. Each new revision number is created once:
// the number of revisions grows by exactly the number of wins, the losers fail with
// a conflict (or are told another operation is in progress), revisions stay
// contiguous, exactly one is deployed, and gc leaves nothing behind.
//
// The race must happen: some operation must lose (a conflict, a revision another
// stored first, an operation in progress). A run where every operation won ran
// them one after another; it is tried again, a few times, before the test fails
// for having raced too little.
func TestRaceRollbacks(t *testing.T) {
	const attempts = 5
	for i := 1; ; i++ {
		if raceRollbacks(t) {
			return
		}
		if i == attempts {
			t.Fatalf("%d runs and no operation lost a race: the writers never overlapped", attempts)
		}
		t.Logf("run %d: every operation won; the writers did not overlap, trying again", i)
	}
}

// raceRollbacks is one run of TestRaceRollbacks; it reports whether the race
// happened (some operation lost).
func raceRollbacks(t *testing.T) bool {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	kc := adminKubeconfig(t, ns)
	seedDrv := storage.NewDriver(secrets(ns), raceOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, seedDrv, history("app", ns, 3, 20_000)...)

	const rollbackers, upgraders, rounds = 3, 1, 3
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		wins     int
		outcomes = map[string]int{}
	)
	count := func(what, o string) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[what+": "+o]++
		if o == "won" {
			wins++
		}
	}
	for w := range rollbackers {
		c := connect(t, kc, []string{"-n", ns, "--owner", raceOwner, "--chunk-size", "16384"}, nil)
		wg.Go(func() {
			for r := range rounds {
				_, err := applyByName(ctx, c, ns, "app", rollbackPlan(1+(w+r)%2, kube.DiffOptions{}))
				count("rollback", raceOutcome(t, fmt.Sprintf("rollbacker %d round %d", w, r), err))
			}
		})
	}
	for w := range upgraders {
		hc := helmConfig(t, kc, ns, storage.NewDriver(secrets(ns), raceOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10}))
		wg.Go(func() {
			for r := range rounds {
				up := action.NewUpgrade(hc)
				up.Namespace = ns
				_, err := up.Run("app", webappChart(fmt.Sprintf("2.%d.%d", w, r)), webappValues("app", r, 1000))
				count("upgrade", raceOutcome(t, fmt.Sprintf("upgrader %d round %d", w, r), err))
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	t.Logf("%d operations won; outcomes %v", wins, outcomes)
	if wins == 0 {
		t.Fatal("no operation won")
	}
	lost := 0
	for o, n := range outcomes {
		if !strings.HasSuffix(o, ": won") {
			lost += n
		}
	}

	// History, read with a clean client.
	d := storage.NewDriver(secrets(ns), raceOwner, storage.ChunkedSecretsConfig{})
	rels, err := d.Query(map[string]string{"name": "app", "owner": "helm"})
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	byRev := map[int]*release.Release{}
	var deployed []int
	for _, r := range rels {
		if byRev[r.Version] != nil {
			t.Errorf("revision %d stored twice", r.Version)
		}
		byRev[r.Version] = r
		if r.Info.Status == release.StatusDeployed {
			deployed = append(deployed, r.Version)
		}
	}
	if len(byRev) != 3+wins {
		t.Errorf("%d revisions, want %d: 3 and one per win", len(byRev), 3+wins)
	}
	for rev := 1; rev <= len(byRev); rev++ {
		if byRev[rev] == nil {
			t.Errorf("revision %d is missing: revisions are not contiguous", rev)
		}
	}
	if len(deployed) != 1 || deployed[0] != len(byRev) {
		t.Errorf("deployed revisions %v of %d; want exactly the latest", deployed, len(byRev))
	}

	// Nothing left unreferenced once gc has run.
	c := connect(t, kc, []string{"-n", ns, "--owner", raceOwner}, nil)
	reps, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.NewChecker(c).RemoveLeftovers(ctx, reps); err != nil {
		t.Fatal(err)
	}
	reps, err = kube.NewChecker(c).Verify(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		for _, p := range r.Problems {
			t.Errorf("after gc, verify: %s on %s: %s", p.Kind, p.Secret, p.Detail)
		}
	}
	return lost > 0
}
