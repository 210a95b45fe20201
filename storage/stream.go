package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
)

func newSHA256() hash.Hash      { return sha256.New() }
func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

type fetchResult struct {
	data []byte
	err  error
}

// chunkStream reads a record's slices in order while fetching at most fetchWindow
// chunks ahead. Close stops the fetches; no goroutine outlives it for long, since
// every result channel has room for its one value.
type chunkStream struct {
	cancel context.CancelFunc
	cur    []byte
	slots  []chan fetchResult
	sem    chan struct{}
	next   int
	err    error // the fetch error that ended the stream, if any
	n      int64 // bytes read so far
}

func newChunkStream(ctx context.Context, first []byte, names []string, fetch func(context.Context, int, string) ([]byte, error)) *chunkStream {
	ctx, cancel := context.WithCancel(ctx)
	cs := &chunkStream{
		cancel: cancel,
		cur:    first,
		slots:  make([]chan fetchResult, len(names)),
		sem:    make(chan struct{}, fetchWindow),
	}
	for i := range cs.slots {
		cs.slots[i] = make(chan fetchResult, 1)
	}
	if len(names) > 0 {
		go func() {
			for i, name := range names {
				select {
				case cs.sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				go func() {
					data, err := fetch(ctx, i, name)
					cs.slots[i] <- fetchResult{data, err}
				}()
			}
		}()
	}
	return cs
}

func (cs *chunkStream) Read(p []byte) (int, error) {
	for len(cs.cur) == 0 {
		if cs.err != nil {
			return 0, cs.err
		}
		if cs.next >= len(cs.slots) {
			return 0, io.EOF
		}
		r := <-cs.slots[cs.next]
		<-cs.sem
		cs.next++
		if r.err != nil {
			cs.err = r.err
			return 0, r.err
		}
		cs.cur = r.data
	}
	n := copy(p, cs.cur)
	cs.cur = cs.cur[n:]
	cs.n += int64(n)
	return n, nil
}

// Close stops fetching.
func (cs *chunkStream) Close() error {
	cs.cancel()
	return nil
}
