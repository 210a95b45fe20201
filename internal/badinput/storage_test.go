package badinput_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/badinput"
	"github.com/chunkview/chunkview/storage"
)

// logRecorder is a driver Log func that keeps every line.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Log(format string, args ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// mustNotLeak fails if s repeats the planted secret, plain or base64.
func mustNotLeak(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, badinput.PlantedSecret) || strings.Contains(s, badinput.PlantedSecretBase64) {
		t.Errorf("%s repeats the planted secret: %s", what, s)
	}
}

// mustStayInKey fails unless every Secret read by name during a read of key was the
// key's own index or one of its chunks.
func mustStayInKey(t *testing.T, calls []string, key string) {
	t.Helper()
	for _, c := range calls {
		name, ok := strings.CutPrefix(c, "get ")
		if ok && name != key && !strings.HasPrefix(name, key+"-") {
			t.Errorf("a read of %s fetched Secret %s, outside its own key", key, name)
		}
	}
}

// TestBadInputCorpus loads each malformed record of storage/testdata/badinput onto
// the cluster and runs every read path over it: Get, List, Query, Inspect and Verify
// with and without decoding. None panics; each error names the Secret at fault and
// wraps ErrCorrupt or ErrTooLarge; no read fetches a Secret outside its own key;
// verify reports the case's problem kind; gc removes nothing that is not a
// leftover; the bomb costs a few MiB, not the decompression bound; and no error or
// log line repeats payload data.
func TestBadInputCorpus(t *testing.T) {
	for _, c := range badinput.Loaded() {
		t.Run(c.Name, func(t *testing.T) {
			ctx := context.Background()
			_, secrets := newNamespace(t)
			if err := badinput.Apply(ctx, secrets, c); err != nil {
				t.Fatal(err)
			}
			var logs logRecorder
			rec := newRecordingClient(secrets)
			d := storage.NewDriver(rec, badinput.Owner, storage.ChunkedSecretsConfig{Log: logs.Log})

			// Get, with memory measured.
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rls, err := d.Get(c.Key())
			runtime.ReadMemStats(&after)
			allocated := int64(after.TotalAlloc - before.TotalAlloc)
			switch {
			case c.AtBound:
				// Refused at the bound on decompressed size: about the bound.
				t.Logf("decoding the bomb allocated %d MiB (bound %d MiB)", allocated>>20, storage.DefaultMaxDecodedBytes>>20)
				if allocated > storage.DefaultMaxDecodedBytes*5/4 {
					t.Errorf("decoding the bomb allocated %d MiB; want about the %d MiB bound at most", allocated>>20, storage.DefaultMaxDecodedBytes>>20)
				}
			case c.Bomb:
				t.Logf("decoding the bomb allocated %d MiB", allocated>>20)
				if allocated > 64<<20 {
					t.Errorf("decoding the bomb allocated %d MiB; want a few tens at most", allocated>>20)
				}
			}
			mustStayInKey(t, rec.Calls(), c.Key())
			switch {
			case c.Readable && err != nil:
				t.Errorf("Get: %v", err)
			case !c.Readable && err == nil:
				t.Errorf("Get of a broken record returned release %s v%d", rls.Name, rls.Version)
			case err != nil:
				if !errors.Is(err, storage.ErrCorrupt) && !errors.Is(err, storage.ErrTooLarge) {
					t.Errorf("Get: %v wraps neither ErrCorrupt nor ErrTooLarge", err)
				}
				if !strings.Contains(err.Error(), c.Secret) {
					t.Errorf("Get: %q does not name Secret %s", err, c.Secret)
				}
				mustNotLeak(t, "Get's error", err.Error())
				t.Logf("Get: %v", err)
			}

			// List and Query skip what they cannot read, and never fetch outside a key.
			rec.Reset()
			all, err := d.List(func(*release.Release) bool { return true })
			if err != nil {
				t.Errorf("List: %v", err)
			}
			victimReads := 0
			for _, call := range rec.Calls() {
				if strings.HasPrefix(call, "get "+storage.RecordKey(badinput.Victim, 1)) {
					victimReads++
				}
			}
			for _, r := range all {
				if r.Name == c.Name && !c.Readable {
					t.Errorf("List returned the broken release")
				}
				if r.Name == badinput.Victim {
					victimReads-- // each of the victim's own chunks, once
				}
			}
			if c.WithVictim {
				vd := storage.NewDriver(secrets, badinput.Owner, storage.ChunkedSecretsConfig{})
				idx, err := vd.ReadIndex(ctx, storage.RecordKey(badinput.Victim, 1))
				if err != nil {
					t.Fatal(err)
				}
				names, _ := storage.ParseExtraChunks(idx.Name, idx.Data[storage.DataExtraChunks])
				if victimReads+1 != len(names) {
					t.Errorf("List read the victim's chunks %d times more than decoding it takes", victimReads+1-len(names))
				}
			}
			q, err := d.Query(map[string]string{"name": c.Name, "owner": "helm"})
			switch {
			case c.Name == "missing-labels":
				// Without a name label the server-side selector cannot find it.
			case c.Readable && (err != nil || len(q) != 1):
				t.Errorf("Query: %d releases, %v", len(q), err)
			case !c.Readable && err != driver.ErrReleaseNotFound:
				t.Errorf("Query of a broken record: %d releases, %v; want ErrReleaseNotFound", len(q), err)
			}

			// Inspect always yields a layout.
			rec.Reset()
			l, err := d.Inspect(ctx, c.Key())
			if err != nil {
				if !(c.Unlisted && errors.Is(err, driver.ErrReleaseNotFound)) {
					t.Errorf("Inspect: %v", err)
				}
			} else {
				if l.Broken() == c.Readable {
					t.Errorf("Inspect: broken %v (%s), want %v", l.Broken(), l.DecodeError, !c.Readable)
				}
				mustNotLeak(t, "Inspect's decode error", l.DecodeError)
			}
			mustStayInKey(t, rec.Calls(), c.Key())

			// Verify reports the case's problem, with and without decoding.
			for _, decode := range []bool{false, true} {
				want := c.Quick
				if decode {
					want = c.Problem
				}
				rep, err := storage.Verify(ctx, secrets, badinput.Owner, storage.VerifyOptions{Decode: decode, MinAge: time.Nanosecond})
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				var kinds []string
				found := false
				for _, p := range rep.Problems {
					kinds = append(kinds, fmt.Sprintf("%s(%s)", p.Kind, p.Secret))
					if p.Kind == want && p.Secret == c.Secret {
						found = true
					}
					mustNotLeak(t, "a verify detail", p.Detail)
				}
				if want != "" && !found {
					t.Errorf("verify (decode %v) found %v, want %s on %s", decode, kinds, want, c.Secret)
				}
				if want == "" && len(kinds) > 0 {
					t.Errorf("verify (decode %v) found %v, want nothing", decode, kinds)
				}
				if decode {
					t.Logf("verify --decode: %v", kinds)
					// gc removes leftovers only: never a Secret that is not a chunk.
					n, err := storage.RemoveLeftovers(ctx, secrets, rep.Leftovers)
					if err != nil || n != 0 {
						t.Errorf("gc removed %d Secrets of the corpus: %v", n, err)
					}
				}
			}
			if _, err := secrets.Get(ctx, c.Secret, metav1.GetOptions{}); err != nil {
				t.Errorf("the Secret at fault is gone: %v", err)
			}
			mustNotLeak(t, "the driver's log", logs.String())
		})
	}
}

// TestDriverLogKeepsPayloadOut writes, reads, lists, queries, updates and deletes a
// release carrying the planted secret, and fails if any log line or error repeats
// it. Errors include those of a write refused by MaxWriteChunks and of a read of a
// damaged record.
func TestDriverLogKeepsPayloadOut(t *testing.T) {
	_, secrets := newNamespace(t)
	var logs logRecorder
	d := storage.NewDriver(secrets, badinput.Owner, storage.ChunkedSecretsConfig{ChunkSize: 256, Log: logs.Log})
	var rls release.Release
	if err := json.Unmarshal(mustJSON(t, badinput.Release("planted")), &rls); err != nil {
		t.Fatal(err)
	}
	k := storage.RecordKey("planted", 1)
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	check(d.Create(k, &rls))
	_, err := d.Get(k)
	check(err)
	_, err = d.List(nil)
	check(err)
	_, err = d.Query(map[string]string{"name": "planted", "owner": "helm"})
	check(err)
	rls.Info.Status = release.StatusSuperseded
	check(d.Update(k, &rls))
	if len(errs) > 0 {
		t.Fatalf("round trip: %v", errs)
	}
	tight := storage.NewDriver(secrets, badinput.Owner, storage.ChunkedSecretsConfig{ChunkSize: 256, MaxWriteChunks: 1, Log: logs.Log})
	if err := tight.Update(k, &rls); err == nil {
		t.Fatal("an update over MaxWriteChunks succeeded")
	} else {
		mustNotLeak(t, "a refused update's error", err.Error())
	}
	// Damage a chunk and read again.
	idx, err := d.ReadIndex(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := storage.ParseExtraChunks(k, idx.Data[storage.DataExtraChunks])
	if err := secrets.Delete(context.Background(), names[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = d.Get(k)
	if err == nil {
		t.Fatal("a record with a missing chunk read")
	}
	mustNotLeak(t, "a damaged record's error", err.Error())
	if err := d.ForceDelete(k); err != nil {
		t.Fatal(err)
	}
	mustNotLeak(t, "the driver's log", logs.String())
	if !strings.Contains(logs.String(), k) {
		t.Errorf("the log does not even name the key: %s", logs.String())
	}
}
