package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// raceSetup describes the writers, readers and gc of one race on one key.
type raceSetup struct {
	// cvWriters chunkview writers each run rounds operations (create, update,
	// delete) with cvContents.
	cvWriters, rounds int
	cvContents        []*release.Release
	// origRounds operations of helm-operator-plugins' driver, in one goroutine (an
	// operator reconciles a release serially), with origContents.
	origRounds   int
	origContents []*release.Release
	// gcOld are the UIDs of chunk Secrets that existed before the race: a gc
	// goroutine finds leftovers again and again during the race, with no minimum
	// age, and removes those among them (the chunks of writes in flight are
	// spared by age in real use; these are not in flight), beside gc with the
	// default minimum age.
	gcOld map[types.UID]bool
}

type raceResult struct {
	outcomes  map[string]int
	reads     int
	gcRemoved int
}

// runRace runs the race and fails the test on any read that is torn (an error
// other than not found) or wrong (a release no writer wrote).
func runRace(t *testing.T, secrets corev1client.SecretInterface, k string, s raceSetup) raceResult {
	t.Helper()
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize, ReadRetry: 10 * time.Second}
	written := append(append([]*release.Release{}, s.cvContents...), s.origContents...)
	var (
		wg, bg   sync.WaitGroup
		mu       sync.Mutex
		outcomes = map[string]int{}
		reads    int
		// gcRemoved counts the chunks gc removed during the race.
		gcRemoved int
		stop      = make(chan struct{})
		skipped   = &logRecorder{}
	)
	note := func(who, op string, err error) {
		outcome := op + ": ok"
		switch {
		case err == nil:
		case errors.Is(err, driver.ErrReleaseExists):
			outcome = op + ": exists"
		case errors.Is(err, driver.ErrReleaseNotFound):
			outcome = op + ": not found"
		case errors.Is(err, storage.ErrConflict):
			outcome = op + ": conflict"
		case who == "original" && strings.Contains(err.Error(), "not found"):
			// The original driver wraps not found in its own words.
			outcome = op + ": not found"
		case who == "original" && op != "create" && strings.Contains(err.Error(), "missing chunks data"):
			// It addressed the key by name (Helm reaches only listed keys so)
			// while a chunkview create held its pending index, which has no data
			// yet: an error, never a release.
			outcome = op + ": create in flight"
		default:
			t.Errorf("%s %s: %v", who, op, err)
		}
		mu.Lock()
		outcomes[who+" "+outcome]++
		mu.Unlock()
	}
	check := func(who string, rls *release.Release, err error) {
		switch {
		case err == nil:
			for _, w := range written {
				if sameRelease(rls, w) {
					return
				}
			}
			t.Errorf("%s read a release that no writer wrote: %s v%d %s", who, rls.Name, rls.Version, rls.Info.Status)
		case errors.Is(err, driver.ErrReleaseNotFound):
		default:
			t.Errorf("%s: torn read: %v", who, err)
		}
	}
	for w := range s.cvWriters {
		base := storage.NewDriver(secrets, testOwner, cfg)
		wg.Go(func() {
			for r := range s.rounds {
				rls := s.cvContents[(w+r)%len(s.cvContents)]
				// Each operation through a driver value of its own, as one Helm
				// action has; half the updates read the record first, as Helm does.
				d := base.Fresh()
				op := []string{"create", "update", "read-update", "update", "delete"}[(w*2+r)%5]
				var err error
				switch op {
				case "create":
					err = d.Create(k, rls)
				case "update":
					err = d.Update(k, rls)
				case "read-update":
					if _, err = d.Get(k); err == nil {
						err = d.Update(k, rls)
					}
				case "delete":
					_, err = d.Delete(k)
				}
				note(fmt.Sprintf("chunkview-%d", w), op, err)
			}
		})
	}
	if s.origRounds > 0 {
		orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
		wg.Go(func() {
			for r := range s.origRounds {
				rls := s.origContents[r%len(s.origContents)]
				op := []string{"create", "update", "update", "delete"}[r%4]
				var err error
				switch op {
				case "create":
					err = orig.Create(k, rls)
				case "update":
					err = orig.Update(k, rls)
				case "delete":
					_, err = orig.Delete(k)
				}
				note("original", op, err)
			}
		})
	}
	// Readers: Get and List through chunkview, until the writers stop.
	readCfg := cfg
	readCfg.Log = skipped.Log
	for i := range 2 {
		d := storage.NewDriver(secrets, testOwner, readCfg)
		bg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if i == 0 {
					rls, err := d.Get(k)
					check("get", rls, err)
				} else {
					l, err := d.List(nil)
					if err != nil {
						check("list", nil, err)
					}
					for _, rls := range l {
						check("list", rls, nil)
					}
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
		})
	}
	bg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if len(s.gcOld) > 0 {
				all, err := storage.FindLeftovers(context.Background(), secrets, testOwner, time.Nanosecond)
				if err != nil {
					t.Errorf("gc: %v", err)
					continue
				}
				var old []storage.Leftover
				for _, lo := range all {
					if s.gcOld[lo.UID] {
						old = append(old, lo)
					}
				}
				n, err := storage.RemoveLeftovers(context.Background(), secrets, old)
				if err != nil {
					t.Errorf("gc: %v", err)
				}
				mu.Lock()
				gcRemoved += n
				mu.Unlock()
			}
			los, err := storage.FindLeftovers(context.Background(), secrets, testOwner, storage.DefaultMinLeftoverAge)
			if err != nil {
				t.Errorf("gc: %v", err)
				continue
			}
			if _, err := storage.RemoveLeftovers(context.Background(), secrets, los); err != nil {
				t.Errorf("gc: %v", err)
			}
		}
	})
	wg.Wait()
	close(stop)
	bg.Wait()
	// A list skips what it cannot read: it reads no torn record either.
	for _, line := range strings.Split(skipped.String(), "\n") {
		if strings.Contains(line, "skipping") {
			t.Errorf("list: torn read: %s", line)
		}
	}
	return raceResult{outcomes: outcomes, reads: reads, gcRemoved: gcRemoved}
}

// raceFinal checks that, once the writers have stopped, the key reads the same
// through both drivers, as one of allowed (nil: no record), and returns it.
func raceFinal(t *testing.T, secrets corev1client.SecretInterface, k string, allowed ...*release.Release) *release.Release {
	t.Helper()
	cv := getOrNil(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ReadRetry: -1}), k)
	mustBeOneOf(t, cv, allowed...)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	o, err := orig.Get(k)
	switch {
	case cv == nil && err == nil:
		t.Fatalf("chunkview finds no record, the original driver finds %s", o.Info.Status)
	case cv == nil:
	case err != nil:
		t.Fatalf("chunkview reads the record, the original driver does not: %v", err)
	case !sameRelease(cv, o):
		t.Fatal("the two drivers read different releases under one key")
	}
	return cv
}

// TestRaceWithOriginalDriver: chunkview writers and helm-operator-plugins v0.9.1's
// driver (operator-controller's) write one key at once — create, update, delete —
// while chunkview readers read it and gc runs. No chunkview read is torn or wrong:
// reads ride out the original driver's write window (index before chunks), and
// chunkview never leaves an index naming a missing chunk. Once the writers stop,
// both drivers read the same record.
func TestRaceWithOriginalDriver(t *testing.T) {
	const name = "olm"
	k := key(name, 1)
	_, secrets := newNamespace(t)
	// The original driver fails an update when a chunk it creates already exists,
	// leaving its own index torn, so the two write different contents: operator-
	// controller and a person never store byte-identical revisions at once.
	cvContents := []*release.Release{
		releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1),
		releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 2),
	}
	origContents := []*release.Release{
		releaseOfChunks(t, name, 1, release.StatusPendingUpgrade, 3, faultChunkSize, 3),
		releaseOfChunks(t, name, 1, release.StatusFailed, 2, faultChunkSize, 4),
	}
	r := runRace(t, secrets, k, raceSetup{
		cvWriters: 3, rounds: 10, cvContents: cvContents,
		origRounds: 16, origContents: origContents,
	})
	t.Logf("outcomes: %v; reads: %d", r.outcomes, r.reads)
	allowed := append(append([]*release.Release{nil}, cvContents...), origContents...)
	final := raceFinal(t, secrets, k, allowed...)
	mustAllReadable(t, secrets, testOwner)
	mustRemoveLeftovers(t, secrets, testOwner)
	if final != nil {
		mustHoldOnly(t, secrets, k)
	} else {
		mustHoldOnly(t, secrets)
	}
}
