package chunked

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// repeatedBlockPayload is a JSON document that starts like a release and goes on
// with one random block of blockLen bytes repeated until the JSON is total bytes
// long: random, so that no run of one byte trips the ratio guard, and repeated, so
// that it gzips to a fraction (a 1 KiB block: about 200:1).
func repeatedBlockPayload(total, blockLen int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	block := make([]byte, blockLen)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i := range block {
		block[i] = letters[rng.IntN(len(letters))]
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	head := `{"name":"bomb","version":1,"info":{"status":"deployed"},"manifest":"`
	_, _ = zw.Write([]byte(head))
	for n := len(head); n < total; n += blockLen {
		_, _ = zw.Write(block)
	}
	_, _ = zw.Write([]byte(`"}`))
	_ = zw.Close()
	return buf.Bytes()
}

// textPayload is like repeatedBlockPayload but of words drawn at random from a
// vocabulary of 32: text-like, about 10:1.
func textPayload(total int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	vocab := make([][]byte, 32)
	for i := range vocab {
		w := make([]byte, 11)
		for j := range 10 {
			w[j] = byte('a' + rng.IntN(26))
		}
		w[10] = ' '
		vocab[i] = w
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	head := `{"name":"bomb","version":1,"info":{"status":"deployed"},"manifest":"`
	_, _ = zw.Write([]byte(head))
	for n := len(head); n < total; n += 11 {
		_, _ = zw.Write(vocab[rng.IntN(len(vocab))])
	}
	_, _ = zw.Write([]byte(`"}`))
	_ = zw.Close()
	return buf.Bytes()
}

// allocated returns the bytes fn allocated.
func allocated(fn func()) int64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestDecodeBoundedWhateverTheRatio: a payload over MaxDecodedBytes is refused
// having allocated about the bound, at a ratio the ratio guard lets through. Before,
// the buffer doubled past the bound: about four times the bound allocated.
func TestDecodeBoundedWhateverTheRatio(t *testing.T) {
	const bound = 64 << 20
	gz := repeatedBlockPayload(3*bound, 1<<10)
	t.Logf("%d MiB of JSON gzip to %d KiB (%d:1)", 3*bound>>20, len(gz)>>10, 3*bound/len(gz))
	var err error
	got := allocated(func() { _, err = decodePayload(bytes.NewReader(gz), bound, 0) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("decode of a payload three times the bound: %v, want ErrTooLarge", err)
	}
	t.Logf("refused having allocated %d MiB for a %d MiB bound", got>>20, bound>>20)
	if got > bound*3/2 {
		t.Fatalf("refusing allocated %d MiB, more than 1.5 times the %d MiB bound", got>>20, bound>>20)
	}
}

// TestSizeHintCapped: a summary annotation that claims a huge payload makes a decode
// allocate no more than hintCap before the data shows the claim true, and a claim
// out of proportion to the stored bytes is not believed at all.
func TestSizeHintCapped(t *testing.T) {
	for _, c := range []struct{ hint, stored, want int64 }{
		{134217728, 1000, 32000},
		{5000, 1000, 5000},
		{-1, 1000, 0},
		{1 << 30, 8 << 20, 256 << 20},
	} {
		if got := trustedHint(c.hint, c.stored); got != c.want {
			t.Errorf("trustedHint(%d, %d) = %d, want %d", c.hint, c.stored, got, c.want)
		}
	}
	gz := repeatedBlockPayload(4<<10, 1<<10)
	var err error
	got := allocated(func() { _, err = decodePayload(bytes.NewReader(gz), DefaultMaxDecodedBytes, DefaultMaxDecodedBytes) })
	if err != nil {
		t.Fatal(err)
	}
	// The README's 16 MiB, written out rather than taken from hintCap, and
	// 2 MiB of slack for the rest of the decode.
	if got > 16<<20+2<<20 {
		t.Fatalf("a 4 KiB payload with a 128 MiB hint allocated %d MiB, want at most 16 MiB (the cap on a hint) and the decode's own", got>>20)
	}
}

// TestReadAll: every length around the buffer's and the segments' edges, with and
// without a hint (right, short, long), reads back exactly; one byte past the limit
// fails.
func TestReadAll(t *testing.T) {
	lengths := []int{0, 1, 511, 512, 513, hintCap - 1, hintCap, hintCap + 1, hintCap + 3*segmentSize + 7}
	data := make([]byte, lengths[len(lengths)-1])
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	for _, n := range lengths {
		for _, hint := range []int64{0, int64(n), int64(n) / 2, 2*int64(n) + 1} {
			limit := int64(n) + 1
			got, err := readAll(&limitedReader{r: bytes.NewReader(data[:n]), n: int64(n)}, min(hint, hintCap), fixedSize(hint), limit)
			if err != nil {
				t.Fatalf("length %d, hint %d: %v", n, hint, err)
			}
			if !bytes.Equal(got, data[:n]) {
				t.Fatalf("length %d, hint %d: read back %d different bytes", n, hint, len(got))
			}
			if n > 0 {
				_, err = readAll(&limitedReader{r: bytes.NewReader(data[:n]), n: int64(n - 1)}, 0, fixedSize(hint), int64(n))
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("length %d over a bound of %d: %v, want ErrTooLarge", n, n-1, err)
				}
			}
		}
	}
}

// peakHeap samples the live heap while fn runs and returns its peak above the
// heap before.
func peakHeap(fn func()) int64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	base := read()
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if v := read() - base; v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	if v := read() - base; v > peak.Load() {
		peak.Store(v)
	}
	return peak.Load()
}

// BenchmarkRefuseOverBound measures the memory a decode costs to refuse a payload
// over DefaultMaxDecodedBytes, at three compression ratios: text-like (about
// 10:1), a random block repeated (about 200:1, under the ratio guard) and one byte
// repeated (about 1000:1, a gzip bomb the ratio guard stops early).
func BenchmarkRefuseOverBound(b *testing.B) {
	const over = DefaultMaxDecodedBytes + DefaultMaxDecodedBytes/4
	payloads := []struct {
		name string
		gz   func() []byte
	}{
		{"10to1", func() []byte { return textPayload(over) }},
		{"200to1", func() []byte { return repeatedBlockPayload(over, 1<<10) }},
		{"1000to1", func() []byte { return repeatedBlockPayload(over, 1) }},
	}
	for _, p := range payloads {
		gz := p.gz()
		b.Run(p.name, func(b *testing.B) {
			var peak, alloc int64
			for b.Loop() {
				var err error
				pk := peakHeap(func() {
					alloc += allocated(func() { _, err = decodePayload(bytes.NewReader(gz), 0, 0) })
				})
				if !errors.Is(err, ErrTooLarge) {
					b.Fatalf("not refused: %v", err)
				}
				peak = max(peak, pk)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(alloc)/float64(b.N)/(1<<20), "alloc-MiB/op")
			b.ReportMetric(float64(DefaultMaxDecodedBytes>>20), "bound-MiB")
			b.ReportMetric(float64(over)/float64(len(gz)), "ratio")
		})
	}
}
