package chunked

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// lateClaim is a reader whose claim of its length (claim) becomes known only once
// after bytes have been read from it, as a gzip trailer does when the last chunk
// arrives.
type lateClaim struct {
	r      io.Reader
	read   int
	after  int
	length int64
}

func (l *lateClaim) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.read += n
	return n, err
}

func (l *lateClaim) claim() int64 {
	if l.read < l.after {
		return 0
	}
	return l.length
}

// TestReadAllLateClaim: a length claimed while the data arrives sizes the next
// growth: a true claim makes the buffer exactly that long, where doubling would
// overshoot; a claim too short or too long still reads back every byte, and one
// past the limit is not believed.
func TestReadAllLateClaim(t *testing.T) {
	const n = 3<<20 + 12345
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*13 + i>>9)
	}
	for _, c := range []struct {
		name     string
		claim    int64
		limit    int64
		wantCap  int64 // 0: not checked
		wantFail bool
	}{
		{"true", n + 512, 2 * n, n + 512, false},
		{"true, at the limit", n + 512, n + 1, n + 1, false},
		{"short", n / 2, n + 1, 0, false},
		{"long", 2 * n, 4 * n, 2 * n, false},
		{"past the limit", 64 * n, 4 * n, 0, false},
		{"true, data over the limit", n + 512, n, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A buffer an earlier decode gave back would start the read with
			// room to spare and hide the growth under test.
			jsonBufs = sync.Pool{}
			src := &lateClaim{r: bytes.NewReader(data), after: 2 << 20, length: c.claim}
			got, err := readAll(&limitedReader{r: src, n: c.limit - 1}, 2<<20, src.claim, c.limit)
			if c.wantFail {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("got %v, want ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes, not the %d written", len(got), n)
			}
			if c.wantCap != 0 && int64(cap(got)) != c.wantCap {
				t.Fatalf("buffer of %d bytes for a claim of %d", cap(got), c.claim)
			}
			if int64(cap(got)) > c.limit {
				t.Fatalf("buffer of %d bytes past the limit of %d", cap(got), c.limit)
			}
		})
	}
}

// TestChunkStreamLastFirst: the stream asks for the last chunk among the first,
// even when the record has more chunks than it fetches at once, so it learns the
// length the gzip trailer claims while the others are still on their way; it
// still yields the slices in order.
func TestChunkStreamLastFirst(t *testing.T) {
	slices := [][]byte{[]byte("first-")}
	var names []string
	for i := range fetchWindow + 2 {
		names = append(names, fmt.Sprintf("c%d", i))
		slices = append(slices, []byte(fmt.Sprintf("slice%d-", i)))
	}
	slices[len(slices)-1] = []byte("last\x10\x27\x00\x00")
	release := make(chan struct{})
	fetch := func(ctx context.Context, i int, name string) ([]byte, error) {
		if i != len(names)-1 {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return slices[i+1], nil
	}
	cs := newChunkStream(context.Background(), slices[0], names, fetch)
	defer cs.Close()
	// The other chunks wait for release: only the last can have arrived.
	for deadline := time.Now().Add(10 * time.Second); cs.trailerSize() < 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the trailer is unknown while the chunks before the last are outstanding: the last chunk was not asked for among the first %d", fetchWindow)
		}
	}
	if got := cs.trailerSize(); got != 10000 {
		t.Fatalf("trailerSize = %d, want the 10000 the last four bytes say", got)
	}
	close(release)
	got, err := io.ReadAll(cs)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Join(slices, nil); !bytes.Equal(got, want) {
		t.Fatalf("stream yields %q, want %q", got, want)
	}

	one := newChunkStream(context.Background(), binary.LittleEndian.AppendUint32([]byte("only"), 7), nil, fetch)
	defer one.Close()
	if got := one.trailerSize(); got != 7 {
		t.Fatalf("one-slice stream: trailerSize = %d, want 7", got)
	}
	short := newChunkStream(context.Background(), []byte("abc"), nil, fetch)
	defer short.Close()
	if got := short.trailerSize(); got != -1 {
		t.Fatalf("stream shorter than a trailer: trailerSize = %d, want -1 (unknown)", got)
	}
}
