package chunked

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"sync/atomic"
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
	ctx    context.Context
	cancel context.CancelFunc
	cur    []byte
	slots  []chan fetchResult
	sem    chan struct{}
	next   int
	err    error // the fetch error that ended the stream, if any
	n      int64 // bytes read so far
	// trailer is the length the gzip trailer (its last four bytes) claims for the
	// stream's content, plus one; 0 until the last slice has arrived, checked.
	trailer atomic.Int64
}

func newChunkStream(ctx context.Context, first []byte, names []string, fetch func(context.Context, int, string) ([]byte, error)) *chunkStream {
	ctx, cancel := context.WithCancel(ctx)
	cs := &chunkStream{
		ctx:    ctx,
		cancel: cancel,
		cur:    first,
		slots:  make([]chan fetchResult, len(names)),
		sem:    make(chan struct{}, fetchWindow),
	}
	for i := range cs.slots {
		cs.slots[i] = make(chan fetchResult, 1)
	}
	if len(names) == 0 {
		cs.noteTrailer(first)
	}
	if len(names) > 0 {
		go func() {
			// The last chunk goes first: its gzip trailer tells the decode how long
			// the JSON is before it has grown a buffer for it (trailerSize). It
			// holds its place in the window until the reader gets to it.
			order := make([]int, 0, len(names))
			order = append(order, len(names)-1)
			for i := range len(names) - 1 {
				order = append(order, i)
			}
			for _, i := range order {
				select {
				case cs.sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				go func() {
					data, err := fetch(ctx, i, names[i])
					if err == nil && i == len(names)-1 {
						cs.noteTrailer(data)
					}
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
		// The scheduler stops launching fetches when ctx ends, so a slot may never
		// be filled: wait for the context too.
		var r fetchResult
		select {
		case r = <-cs.slots[cs.next]:
		case <-cs.ctx.Done():
			cs.err = fmt.Errorf("read chunk %d of %d: %w", cs.next+2, len(cs.slots)+1, context.Cause(cs.ctx))
			return 0, cs.err
		}
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

// noteTrailer records the content length the gzip trailer at the end of last, the
// stream's last slice, claims. A last slice shorter than the four bytes it would
// take (the trailer split across two slices) leaves the length unknown.
func (cs *chunkStream) noteTrailer(last []byte) {
	if len(last) >= 4 {
		cs.trailer.Store(int64(binary.LittleEndian.Uint32(last[len(last)-4:])) + 1)
	}
}

// trailerSize returns the length the stream's gzip trailer claims for its content,
// modulo 2^32 as gzip records it, once the last slice has arrived; -1 before. It
// is a claim, not a fact: only a read to the end checks it.
func (cs *chunkStream) trailerSize() int64 { return cs.trailer.Load() - 1 }

// Close stops fetching.
func (cs *chunkStream) Close() error {
	cs.cancel()
	return nil
}
