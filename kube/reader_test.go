package kube

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
)

// slowStore decodes a revision once gate opens, counting its reads.
type slowStore struct {
	store
	gate    chan struct{}
	started chan struct{} // gets a value as each read starts
	reads   atomic.Int32
}

func (s *slowStore) details(ctx context.Context, row RevisionRow) (*Details, bool, error) {
	s.reads.Add(1)
	s.started <- struct{}{}
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	d := &Details{Row: row, Release: &release.Release{Name: row.Name, Version: row.Revision}}
	d.Row.Known = true
	return d, true, nil
}

func newSlowStore() *slowStore {
	return &slowStore{gate: make(chan struct{}), started: make(chan struct{}, 8)}
}

var slowRow = RevisionRow{Name: "web", Revision: 4, Key: "sh.helm.release.v1.web.v4", StorageNamespace: "default", ResourceVersion: "42"}

// waitStarted fails the test if no read starts; a guard against a hang, not a
// measure.
func waitStarted(t *testing.T, s *slowStore) {
	t.Helper()
	select {
	case <-s.started:
	case <-time.After(20 * time.Second):
		t.Fatal("no read started")
	}
}

// A caller of a record being read waits for that read: the record is read once.
func TestReaderSharesReadUnderWay(t *testing.T) {
	rd := &reader{cache: newDetailsCache(DefaultDetailsCacheBytes)}
	s := newSlowStore()
	var wg sync.WaitGroup
	var first, second *Details
	wg.Go(func() { first, _ = rd.details(context.Background(), s, slowRow) })
	waitStarted(t, s)
	wg.Go(func() { second, _ = rd.details(context.Background(), s, slowRow) })
	close(s.gate)
	wg.Wait()
	if n := s.reads.Load(); n != 1 {
		t.Errorf("the record was read %d times, want once", n)
	}
	if first == nil || first != second {
		t.Errorf("the two callers got %p and %p, want the same decode", first, second)
	}
}

// A caller waiting on a read whose own caller gave up (a prefetch cancelled)
// reads the record itself.
func TestReaderReadsWhenOtherCancelled(t *testing.T) {
	rd := &reader{cache: newDetailsCache(DefaultDetailsCacheBytes)}
	s := newSlowStore()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var leadErr, err error
	var got *Details
	wg.Go(func() { _, leadErr = rd.details(ctx, s, slowRow) })
	waitStarted(t, s)
	wg.Go(func() { got, err = rd.details(context.Background(), s, slowRow) })
	cancel()
	waitStarted(t, s) // the waiter's own read
	close(s.gate)
	wg.Wait()
	if leadErr == nil {
		t.Error("the cancelled read succeeded")
	}
	if err != nil || got == nil || got.Release.Version != 4 {
		t.Errorf("the waiter got %v, %v; want revision 4 read on its own", got, err)
	}
	if n := s.reads.Load(); n != 2 {
		t.Errorf("%d reads, want 2 (the cancelled one, then the waiter's)", n)
	}
}
