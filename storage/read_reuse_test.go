package storage_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// onRestart is a driver log that runs a step when a read says it reads again:
// between its attempts, before it waits for the next one.
type onRestart struct {
	logRecorder
	// fn runs at restart n (from 1) when it has an entry for n.
	fn map[int]func()

	mu       sync.Mutex
	restarts int
}

func (o *onRestart) Log(format string, args ...interface{}) {
	o.logRecorder.Log(format, args...)
	if strings.Contains(format, "reading again") {
		o.mu.Lock()
		o.restarts++
		fn := o.fn[o.restarts]
		o.mu.Unlock()
		if fn != nil {
			fn()
		}
	}
}

// attemptsOf cuts a read's Gets into its attempts: each starts with a Get of the
// index. It returns, for each, the chunks it asked the API server's cache for:
// each chunk fetch starts so (a second Get, from etcd, follows when that one fails
// or does not match), and so does each look for a missing chunk while the read
// waits for its next attempt.
func attemptsOf(gets []getCall) [][]string {
	var out [][]string
	for _, g := range gets {
		if g.chunks != nil {
			out = append(out, []string{})
			continue
		}
		if g.cached && len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], g.name)
		}
	}
	return out
}

// foundInCache counts, by chunk name, the Gets from the API server's cache that
// found the chunk.
func foundInCache(gets []getCall) map[string]int {
	out := map[string]int{}
	for _, g := range gets {
		if g.chunks == nil && g.cached && g.found {
			out[g.name]++
		}
	}
	return out
}

// mustNotAskAgain fails if an attempt after the first asked for one of the chunks
// head, which the first verified.
func mustNotAskAgain(t *testing.T, attempts [][]string, head []string) {
	t.Helper()
	for i, a := range attempts[1:] {
		for _, n := range a {
			if slices.Contains(head, n) {
				t.Errorf("attempt %d asked for chunk %s again, which the first attempt verified (it asked for %v)", i+2, n, a)
			}
		}
	}
}

// busyRecord has helm-operator-plugins v0.9.1's driver store a 12-chunk record of
// k and returns the driver, the release and the chunk names.
func busyRecord(t testing.TB, secrets corev1client.SecretInterface, k string) (driverUpdater, *release.Release, []string) {
	t.Helper()
	name, rev, _ := storage.ParseKey(k)
	rls := releaseOfChunks(t, name, rev, release.StatusDeployed, rewriteChunks, rewriteChunkSize, 43)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: rewriteChunkSize})
	if err := orig.Create(k, rls); err != nil {
		t.Fatal(err)
	}
	_, names := recordChunks(t, secrets, k)
	if len(names) != rewriteChunks-1 {
		t.Fatalf("the record takes %d chunks, want %d", len(names)+1, rewriteChunks)
	}
	return orig, rls, names
}

type driverUpdater interface {
	Update(string, *release.Release) error
}

// TestRestartedReadFetchesOnlyWhatItHasNotVerified: the last chunk of a record
// helm-operator-plugins' driver wrote is missing, and before the read tries again
// that driver rewrites the record with the same content (every chunk Secret
// deleted and created again, under the same names). The first attempt asks for
// every chunk, the last one in vain; the read then looks for the last one only,
// and finds it once: the ten it verified in its first attempt are taken as they
// were. A Delete that read so removes every chunk Secret of the record,
// although those it reused were recreated since it read them.
func TestRestartedReadFetchesOnlyWhatItHasNotVerified(t *testing.T) {
	for _, op := range []string{"get", "delete"} {
		t.Run(op, func(t *testing.T) {
			_, secrets := newNamespace(t)
			k := key("reuse-"+op, 1)
			orig, rls, names := busyRecord(t, secrets, k)
			last := names[len(names)-1]
			if err := secrets.Delete(context.Background(), last, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			logs := &onRestart{fn: map[int]func(){1: func() {
				if err := orig.Update(k, rls); err != nil {
					t.Errorf("the original driver's rewrite: %v", err)
				}
			}}}
			gl := &getLog{SecretInterface: secrets, key: k}
			d := storage.NewDriver(gl, testOwner, storage.ChunkedSecretsConfig{Log: logs.Log})
			var got *release.Release
			var err error
			if op == "get" {
				got, err = d.Get(k)
			} else {
				got, err = d.Delete(k)
			}
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			mustEqualRelease(t, rls, got)
			gets := gl.take()
			attempts := attemptsOf(gets)
			if len(attempts) != 2 {
				t.Fatalf("the read made %d attempts, want 2 (logs:\n%s)", len(attempts), logs.String())
			}
			for _, n := range names {
				if !slices.Contains(attempts[0], n) {
					t.Errorf("the first attempt did not ask for chunk %s: %v", n, attempts[0])
				}
			}
			head := names[:len(names)-1]
			mustNotAskAgain(t, attempts, head)
			found := foundInCache(gets)
			for _, n := range names {
				if found[n] != 1 {
					t.Errorf("the read found chunk %s %d times, want once", n, found[n])
				}
			}
			if op == "delete" {
				left, err := secrets.List(context.Background(), metav1.ListOptions{LabelSelector: "key=" + k})
				if err != nil {
					t.Fatal(err)
				}
				var leftNames []string
				for _, s := range left.Items {
					leftNames = append(leftNames, s.Name)
				}
				if len(leftNames) > 0 {
					t.Errorf("the delete left %d Secrets of the record: %v (logs:\n%s)", len(leftNames), leftNames, logs.String())
				}
			}
		})
	}
}

// TestRestartedReadFetchesAgainAChunkThatFailedItsCheck: the last chunk Secret of
// a record holds other bytes under its name (not its slice) until, between two
// attempts of a read, the right slice is put back under the same name. The read
// keeps nothing of the wrong bytes: it asks for that chunk again, checks it and
// returns the release, taking the other ten chunks from its first attempt. In
// "fetched" the wrong bytes are there from the start; in "looked for" the chunk
// is missing at first and comes back with the wrong bytes while the read looks
// for it. A read that kept what it fetched or found unchecked would hand the
// wrong bytes to the decode again and fail.
func TestRestartedReadFetchesAgainAChunkThatFailedItsCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts int
	}{{"fetched", 2}, {"looked for", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			_, secrets := newNamespace(t)
			k := key("mismatch", 1)
			_, rls, names := busyRecord(t, secrets, k)
			last := names[len(names)-1]
			ctx := context.Background()
			good, err := secrets.Get(ctx, last, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			replace := func(data []byte) {
				if err := secrets.Delete(ctx, last, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
				if data == nil {
					return
				}
				s := &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Name: last, Labels: good.Labels, OwnerReferences: good.OwnerReferences},
					Type:       good.Type,
					Immutable:  good.Immutable,
					Data:       map[string][]byte{storage.DataChunk: data},
				}
				if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
					t.Error(err)
				}
			}
			bad := slices.Clone(good.Data[storage.DataChunk])
			bad[len(bad)/2] ^= 0xff
			restore := func() { replace(good.Data[storage.DataChunk]) }
			logs := &onRestart{fn: map[int]func(){1: restore}}
			if tc.name == "looked for" {
				replace(nil)
				logs.fn = map[int]func(){1: func() { replace(bad) }, 2: restore}
			} else {
				replace(bad)
			}
			gl := &getLog{SecretInterface: secrets, key: k}
			d := storage.NewDriver(gl, testOwner, storage.ChunkedSecretsConfig{Log: logs.Log})
			got, err := d.Get(k)
			if err != nil {
				t.Fatalf("get: %v (logs:\n%s)", err, logs.String())
			}
			mustEqualRelease(t, rls, got)
			if !strings.Contains(logs.String(), "does not match") {
				t.Errorf("no attempt found the chunk does not match its name; logs:\n%s", logs.String())
			}
			attempts := attemptsOf(gl.take())
			if len(attempts) != tc.attempts {
				t.Fatalf("the read made %d attempts, want %d (logs:\n%s)", len(attempts), tc.attempts, logs.String())
			}
			mustNotAskAgain(t, attempts, names[:len(names)-1])
			if a := attempts[len(attempts)-1]; !slices.Contains(a, last) {
				t.Errorf("the last attempt did not ask for the chunk that failed its check, %s: %v", last, a)
			}
		})
	}
}

// TestReadOfAChunkThatNeverMatchesFails: a chunk that never matches its name is
// fetched on every attempt, never taken from an earlier one, and the read fails
// with ErrChunkMismatch once ReadRetry is over.
func TestReadOfAChunkThatNeverMatchesFails(t *testing.T) {
	_, secrets := newNamespace(t)
	k := key("never", 1)
	_, _, names := busyRecord(t, secrets, k)
	last := names[len(names)-1]
	ctx := context.Background()
	s, err := secrets.Get(ctx, last, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, last, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.ObjectMeta = metav1.ObjectMeta{Name: last, Labels: s.Labels, OwnerReferences: s.OwnerReferences}
	s.Data[storage.DataChunk] = append(slices.Clone(s.Data[storage.DataChunk]), 'x')
	if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	logs := &onRestart{}
	gl := &getLog{SecretInterface: secrets, key: k}
	d := storage.NewDriver(gl, testOwner, storage.ChunkedSecretsConfig{Log: logs.Log, ReadRetry: 500 * time.Millisecond})
	if _, err := d.Get(k); !errors.Is(err, storage.ErrChunkMismatch) {
		t.Fatalf("get: %v, want ErrChunkMismatch", err)
	}
	attempts := attemptsOf(gl.take())
	if len(attempts) < 3 {
		t.Fatalf("the read made %d attempts in 500ms, want 3 or more", len(attempts))
	}
	for i, a := range attempts {
		if !slices.Contains(a, last) {
			t.Errorf("attempt %d did not fetch the chunk that does not match: %v", i+1, a)
		}
		if i > 0 && len(a) != 1 {
			t.Errorf("attempt %d fetched %v, want the chunk that does not match only", i+1, a)
		}
	}
}
