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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// answerOrder is a Secret client that decides the order in which a record's
// chunks answer a decode's fetches (their first read, at resourceVersion "0").
// A decode's phase is how many times the record's index has been read so far;
// in phase p, the chunks orders[p] names answer one after another in that order,
// and the others are held until the fetch gives up (the decode stops at the
// missing chunk and cancels the rest). A phase orders does not name, a chunk
// asked for again in the same phase (a ride-out looking for it), and every other
// request go through as they come.
type answerOrder struct {
	corev1client.SecretInterface
	key    string
	orders map[int][]string

	mu         sync.Mutex
	indexReads int
	turns      map[int][]chan struct{}
	// asked are the chunks each phase asked for; answered, those it answered,
	// in order.
	asked    map[int]map[string]bool
	answered map[int][]string
}

func newAnswerOrder(inner corev1client.SecretInterface, key string, orders map[int][]string) *answerOrder {
	a := &answerOrder{SecretInterface: inner, key: key, orders: orders,
		turns: map[int][]chan struct{}{}, asked: map[int]map[string]bool{}, answered: map[int][]string{}}
	for p, o := range orders {
		for range o {
			a.turns[p] = append(a.turns[p], make(chan struct{}))
		}
	}
	return a
}

func (a *answerOrder) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	a.mu.Lock()
	if name == a.key {
		a.indexReads++
	}
	phase := a.indexReads
	order, ordered := a.orders[phase]
	again := a.asked[phase][name]
	if !again && name != a.key {
		if a.asked[phase] == nil {
			a.asked[phase] = map[string]bool{}
		}
		a.asked[phase][name] = true
	}
	a.mu.Unlock()
	if name == a.key || !strings.HasPrefix(name, a.key+"-") || opts.ResourceVersion != "0" || !ordered || again {
		return a.SecretInterface.Get(ctx, name, opts)
	}
	turn := slices.Index(order, name)
	if turn < 0 {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	if turn > 0 {
		<-a.turns[phase][turn-1]
	}
	s, err := a.SecretInterface.Get(ctx, name, opts)
	a.note(phase, name)
	close(a.turns[phase][turn])
	return s, err
}

func (a *answerOrder) note(phase int, name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answered[phase] = append(a.answered[phase], name)
}

// TestRestingDamageWhateverAnswersFirst: a record at rest that lost a chunk is
// reported after exactly one second look, whichever of its chunks answer its
// two decodes before the missing one does: all of them, then none; none, then
// one; one, then another. How much a decode had fetched when it met the missing
// chunk is the fetches' timing, not the record's state (issue 28, item 9: under
// load a Get read the damaged index 76 times, riding out ReadRetry, where the
// first decode had fetched two chunks and the second one). Get reads the index
// twice (its read and the second look), List once (the second look).
func TestRestingDamageWhateverAnswersFirst(t *testing.T) {
	_, secrets := newNamespace(t)
	cv := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, cv, releaseOfChunks(t, "gapped", 1, release.StatusDeployed, 5, faultChunkSize, 4))
	mustCreate(t, cv, releaseOfChunks(t, "whole", 1, release.StatusDeployed, 2, faultChunkSize, 5))
	k := key("gapped", 1)
	idx, err := secrets.Get(t.Context(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The chunks past the index, in the stream's order: the decode needs the
	// first before any other, and it is the one missing, so that any of the
	// others may have answered before it.
	names, err := storage.ParseExtraChunks(k, idx.Data[storage.DataExtraChunks])
	if err != nil || len(names) != 4 {
		t.Fatalf("record %s names chunks %v (%v), want 4 past the index", k, names, err)
	}
	gone, n1, n2, n3 := names[0], names[1], names[2], names[3]
	if err := secrets.Delete(t.Context(), gone, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		first, second []string
	}{
		{"all then none", []string{n1, n2, n3, gone}, []string{gone}},
		{"none then the second", []string{gone}, []string{n1, gone}},
		{"the second then the third", []string{n1, gone}, []string{n2, gone}},
		{"the third then the last", []string{n2, gone}, []string{n3, gone}},
		{"the last then all backwards", []string{n3, gone}, []string{n3, n2, n1, gone}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Get reads the index before its first decode: phases 1 and 2.
			ao := newAnswerOrder(secrets, k, map[int][]string{1: c.first, 2: c.second})
			fc := newFaultClient(ao)
			_, err := readerFor(fc).Get(k)
			if !errors.Is(err, storage.ErrChunkMissing) {
				t.Fatalf("Get: %v, want ErrChunkMissing", err)
			}
			if n := countCalls(fc, "get", k); n != 2 {
				t.Errorf("Get read the index %d times, want 2 (its read and one second look)", n)
			}
			ao.mustHaveAnswered(t, 1, c.first)
			ao.mustHaveAnswered(t, 2, c.second)

			// List reads the index only for the second look: phases 0 and 1.
			ao = newAnswerOrder(secrets, k, map[int][]string{0: c.first, 1: c.second})
			fc = newFaultClient(ao)
			var logs logRecorder
			d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: 5 * time.Second, Log: logs.Log})
			storage.SetClock(d, later)
			got, err := d.List(nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Name != "whole" {
				t.Errorf("List: %d releases, want whole alone", len(got))
			}
			if n := countCalls(fc, "get", k); n != 1 {
				t.Errorf("List read the damaged index %d times, want once (the second look)", n)
			}
			if !strings.Contains(logs.String(), "skipping") {
				t.Errorf("List did not report the damaged record as skipped: %s", logs.String())
			}
			ao.mustHaveAnswered(t, 0, c.first)
			ao.mustHaveAnswered(t, 1, c.second)
		})
	}
}

// readerFor is a driver over fc that reads by a clock ten minutes ahead and
// would ride a write out for 5 s: a read that did would show in its index reads.
func readerFor(fc *faultClient) *storage.ChunkedSecrets {
	d := storage.NewDriver(fc, testOwner, storage.ChunkedSecretsConfig{ReadRetry: 5 * time.Second})
	storage.SetClock(d, later)
	return d
}

// mustHaveAnswered fails unless, in phase p, the chunks order names answered in
// that order: the order the case is about took place. (The others cannot have
// answered: they are held until their fetch gives up.)
func (a *answerOrder) mustHaveAnswered(t *testing.T, p int, order []string) {
	t.Helper()
	a.mu.Lock()
	answered := slices.Clone(a.answered[p])
	a.mu.Unlock()
	if !slices.Equal(answered, order) {
		t.Errorf("phase %d: chunks answered %v, want %v", p, answered, order)
	}
}
