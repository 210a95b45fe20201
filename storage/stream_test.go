package storage_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// cancelAfterFetches cancels a context once the first `window` chunk reads have all
// been answered by the server, and only then hands their answers to the driver: the
// read-ahead window is full of fetched chunks when the context ends.
type cancelAfterFetches struct {
	corev1client.SecretInterface
	index  string
	window int
	cancel context.CancelFunc

	n       atomic.Int32
	arrived sync.WaitGroup
}

func (c *cancelAfterFetches) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	s, err := c.SecretInterface.Get(ctx, name, opts)
	if name != c.index && int(c.n.Add(1)) <= c.window {
		c.arrived.Done()
		c.arrived.Wait()
		c.cancel()
		// Let the fetch scheduler see the cancellation before the reader consumes
		// anything and frees a slot.
		time.Sleep(50 * time.Millisecond)
	}
	return s, err
}

// TestDecodeEndsWithItsContext: a read whose context ends while fetched chunks wait
// to be consumed returns the context's error instead of waiting forever for a chunk
// that will never be fetched.
func TestDecodeEndsWithItsContext(t *testing.T) {
	const chunkSize = 1 << 10
	_, secrets := newNamespace(t)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: chunkSize}
	k := key("cancel", 1)
	rls := releaseOfChunks(t, "cancel", 1, release.StatusDeployed, 11, chunkSize, 1)
	mustCreate(t, storage.NewDriver(secrets, testOwner, cfg), rls)

	for round := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		c := &cancelAfterFetches{SecretInterface: secrets, index: k, window: 4, cancel: cancel}
		c.arrived.Add(c.window)
		d := storage.NewDriver(c, testOwner, cfg).WithContext(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := d.Get(k)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("round %d: Get under a cancelled context: got %v, want context.Canceled", round, err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("round %d: Get did not return after its context was cancelled: the chunk reader is stuck", round)
		}
		cancel()
	}
}

// settledGoroutines waits until the number of goroutines is at most want, and
// returns the last count seen.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// goroutineStacks returns the stacks of the goroutines in the storage package, for a
// failure message.
func goroutineStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "chunkview/storage.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
