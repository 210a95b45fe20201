package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// Races between writers of one release, at the driver and through Helm's actions.
// Run them with -race: go test -race -run Race ./storage/

// TestRaceSharedChunkSurvivesLoserCleanup pins down an interleaving of three writers
// of one key in which a chunk Secret is shared: W2 writes the chunks of content S
// and is about to write the index; W3 updates the index meanwhile; W1, also writing
// S, reads W3's index and finds S's chunks there (W2's) and reuses them; W2's index
// write then conflicts and W2 removes the chunks it created, which the index it
// reads (W3's) does not name; then W1's index write lands, naming them. Without the
// claim after the index write, W1's record names chunks that are gone.
func TestRaceSharedChunkSurvivesLoserCleanup(t *testing.T) {
	const name = "shared"
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	_, secrets := newNamespace(t)
	clean := storage.NewDriver(secrets, testOwner, cfg)
	mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
	same := releaseOfChunks(t, name, 1, release.StatusSuperseded, 3, faultChunkSize, 2)
	other := releaseOfChunks(t, name, 1, release.StatusFailed, 3, faultChunkSize, 3)

	w1Reached, w1Go := make(chan struct{}), make(chan struct{})
	fc1 := newFaultClient(secrets)
	fc1.hook = func(_ int, method, n string) {
		if method == "update" && n == k {
			close(w1Reached)
			select {
			case <-w1Go:
			case <-time.After(30 * time.Second):
			}
		}
	}
	w1 := storage.NewDriver(fc1, testOwner, cfg)
	var w1Err error
	var wg sync.WaitGroup

	fc2 := newFaultClient(secrets)
	fc2.hook = onceBefore("update", k, func() {
		// W3 moves the index on.
		if err := clean.Update(k, other); err != nil {
			t.Errorf("W3: %v", err)
		}
		// W1 reads W3's index, reuses W2's chunks and stops before its index write.
		wg.Go(func() { w1Err = w1.Update(k, same) })
		select {
		case <-w1Reached:
		case <-time.After(30 * time.Second):
			t.Error("W1 never reached its index write")
		}
	})
	w2Err := storage.NewDriver(fc2, testOwner, cfg).Update(k, same)
	if !errors.Is(w2Err, storage.ErrConflict) {
		t.Fatalf("W2: got %v, want ErrConflict", w2Err)
	}
	close(w1Go)
	wg.Wait()
	if w1Err != nil {
		t.Fatalf("W1: %v", w1Err)
	}
	got, err := clean.Get(k)
	if err != nil {
		t.Fatalf("the record W1 wrote does not read: %v", err)
	}
	mustBeOneOf(t, got, same)
	rep, err := storage.Verify(t.Context(), secrets, testOwner, storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if p.Kind != storage.ProblemOrphanChunk {
			t.Errorf("verify: %s on %s: %s", p.Kind, p.Secret, p.Detail)
		}
	}
	mustRemoveLeftovers(t, secrets, testOwner)
	mustHoldOnly(t, secrets, k)
}

// TestRaceDeleteSparesNewRecord: a delete removes the index, and before it sweeps
// the chunks, another writer creates a new record under the same key. With other
// content (fresh chunks) the sweep takes the old record's chunks only. With the
// same content the new record reuses and claims the old record's chunks: the
// sweep's deletes carry the resourceVersion it read them at, which the claim
// changed, so they are refused and the chunks are kept. Either way the new record
// reads, and nothing is left for gc.
func TestRaceDeleteSparesNewRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		// seed of the new record's content: 1 is the old record's.
		chunks int
		seed   uint64
		// kept is how many chunk deletes must be refused (claimed meanwhile):
		// the chunk Secrets past the index's own.
		kept int
	}{
		{"other content", 4, 2, 0},
		{"same content", 3, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const name = "reborn"
			k := key(name, 1)
			cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
			_, secrets := newNamespace(t)
			clean := storage.NewDriver(secrets, testOwner, cfg)
			mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
			reborn := releaseOfChunks(t, name, 1, release.StatusDeployed, tc.chunks, faultChunkSize, tc.seed)

			fc := newFaultClient(secrets)
			// Between the index delete and the first chunk delete.
			var once sync.Once
			fc.hook = func(_ int, method, name string) {
				if method == "delete" && strings.HasPrefix(name, k+"-") {
					once.Do(func() {
						if err := clean.Create(k, reborn); err != nil {
							t.Errorf("create under the deleted key: %v", err)
						}
					})
				}
			}
			var logs []string
			var mu sync.Mutex
			dcfg := cfg
			dcfg.Log = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				logs = append(logs, fmt.Sprintf(format, args...))
			}
			if _, err := storage.NewDriver(fc, testOwner, dcfg).Delete(k); err != nil {
				t.Fatalf("delete: %v", err)
			}
			got, err := clean.Get(k)
			if err != nil {
				t.Fatalf("the record created during the delete does not read: %v", err)
			}
			mustBeOneOf(t, got, reborn)
			kept := 0
			for _, l := range logs {
				if strings.Contains(l, "was claimed meanwhile; kept") {
					kept++
				}
			}
			if kept != tc.kept {
				t.Errorf("%d of the sweep's chunk deletes were refused as claimed, want %d (the race did not happen as planned): %q", kept, tc.kept, logs)
			}
			if n := mustRemoveLeftovers(t, secrets, testOwner); n != 0 {
				t.Errorf("the delete left %d of the old record's chunks for gc", n)
			}
			mustHoldOnly(t, secrets, k)
		})
	}
}

// TestRaceSameContent: many writers store one key at once, half of them the same
// content (so they share chunk Secrets), creating, updating and deleting it, while
// readers read it and gc removes what it found left over before the race. Every
// operation succeeds or fails cleanly (ErrReleaseExists, ErrConflict, not found),
// every read returns one of the contents written or finds no record, and at the
// end the key reads as one of them; gc then leaves exactly the record.
//
// A read that meets a missing chunk fails the test: a chunk that a writer reuses is
// claimed after its index is written, and every delete carries the version it saw,
// so no writer's cleanup, update or delete takes a chunk another index names.
func TestRaceSameContent(t *testing.T) {
	const name = "same"
	k := key(name, 1)
	_, secrets := newNamespace(t)
	contents := []*release.Release{
		releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1),
		releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 2),
	}
	// Leftovers of both contents, as interrupted writes leave them, which gc
	// removes during the race while the writers reuse them.
	helm3 := helm3Driver{storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})}
	for _, c := range contents {
		plantLeftovers(t, secrets, k, helm3, c, faultChunkSize)
	}
	old := map[types.UID]bool{}
	for _, s := range listSecrets(t, secrets) {
		old[s.UID] = true
	}
	r := runRace(t, secrets, k, raceSetup{
		cvWriters: 6, rounds: 8, cvContents: contents, gcOld: old,
	})
	t.Logf("outcomes: %v; reads: %d; chunks gc removed during the race: %d", r.outcomes, r.reads, r.gcRemoved)
	final := raceFinal(t, secrets, k, append([]*release.Release{nil}, contents...)...)
	mustAllReadable(t, secrets, testOwner)
	mustRemoveLeftovers(t, secrets, testOwner)
	if final != nil {
		mustHoldOnly(t, secrets, k)
	} else {
		mustHoldOnly(t, secrets)
	}
}

// raceChart is a chart Helm renders without a cluster (the kube client is Helm's
// printing fake): the race is about the records.
func raceChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "race", Version: "1.0.0"},
		Values:   map[string]interface{}{"n": "0", "blob": noise(7, 12<<10)},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: race\ndata:\n  n: {{ .Values.n | quote }}\n  blob: {{ .Values.blob | quote }}\n")}},
	}
}

// raceConfig is a Helm action configuration with its own driver over secrets, as a
// separate process (an operator, helm, chunkview) would have.
func raceConfig(d *storage.ChunkedSecrets) *action.Configuration {
	return &action.Configuration{
		Releases:     helmstorage.Init(d),
		KubeClient:   &kubefake.PrintingKubeClient{Out: io.Discard},
		Capabilities: chartutil.DefaultCapabilities,
		Log:          func(string, ...interface{}) {},
	}
}

// cleanRaceError reports whether err is one of the ways a writer that lost a race
// fails: the revision it numbered exists, the record changed under it, or Helm saw
// another operation pending.
func cleanRaceError(err error) bool {
	return errors.Is(err, driver.ErrReleaseExists) || errors.Is(err, storage.ErrConflict) ||
		strings.Contains(err.Error(), "another operation (install/upgrade/rollback) is in progress")
}

// TestRaceHelmUpgrades: several writers, each with its own driver, upgrade one
// release with Helm's upgrade action at once, round after round. Each revision
// number is created once: every success adds exactly one revision, every failure
// is a clean loss of the race, revisions stay contiguous, exactly one is deployed,
// and nothing is left for gc.
func TestRaceHelmUpgrades(t *testing.T) {
	ns, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: 8 << 10}
	const rel = "race"
	in := action.NewInstall(raceConfig(storage.NewDriver(secrets, testOwner, cfg)))
	in.ReleaseName, in.Namespace = rel, ns
	if _, err := in.Run(raceChart(), nil); err != nil {
		t.Fatal(err)
	}
	const writers, rounds = 4, 4
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		successes = 1 // the install
		losses    = map[string]int{}
	)
	for w := range writers {
		hc := raceConfig(storage.NewDriver(secrets, testOwner, cfg))
		wg.Go(func() {
			for r := range rounds {
				up := action.NewUpgrade(hc)
				up.Namespace = ns
				_, err := up.Run(rel, raceChart(), map[string]interface{}{"n": fmt.Sprintf("w%d-r%d", w, r)})
				mu.Lock()
				switch {
				case err == nil:
					successes++
				case cleanRaceError(err):
					losses[firstLine(err)]++
				default:
					t.Errorf("writer %d round %d: %v", w, r, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d revisions written; lost races: %v", successes, losses)
	mustConsistentHistory(t, secrets, testOwner, rel, successes)
}

// mustConsistentHistory fails unless release rel has exactly revisions 1..n, each
// readable, exactly one deployed (the latest), and verify finds nothing after gc.
func mustConsistentHistory(t *testing.T, secrets corev1client.SecretInterface, owner, rel string, n int) {
	t.Helper()
	d := storage.NewDriver(secrets, owner, storage.ChunkedSecretsConfig{})
	rels, err := d.Query(map[string]string{"name": rel, "owner": "helm"})
	if err != nil {
		t.Fatalf("history of %s: %v", rel, err)
	}
	byRev := map[int]*release.Release{}
	deployed := []int{}
	for _, r := range rels {
		if byRev[r.Version] != nil {
			t.Errorf("revision %d stored twice", r.Version)
		}
		byRev[r.Version] = r
		if r.Info.Status == release.StatusDeployed {
			deployed = append(deployed, r.Version)
		}
	}
	if len(byRev) != n {
		t.Errorf("%d revisions stored, want %d (one per successful operation)", len(byRev), n)
	}
	for rev := 1; rev <= len(byRev); rev++ {
		if byRev[rev] == nil {
			t.Errorf("revisions are not contiguous: %d is missing", rev)
		}
	}
	if len(deployed) != 1 || deployed[0] != len(byRev) {
		t.Errorf("deployed revisions %v of %d, want exactly the latest", deployed, len(byRev))
	}
	mustAllReadable(t, secrets, owner)
	mustRemoveLeftovers(t, secrets, owner)
	rep, err := storage.Verify(context.Background(), secrets, owner, storage.VerifyOptions{Decode: true, MinAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("after gc, verify: %s on %s: %s", p.Kind, p.Secret, p.Detail)
	}
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexAny(s, ":\n"); i > 0 {
		return s[:i]
	}
	return s
}
