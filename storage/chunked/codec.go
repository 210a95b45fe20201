package chunked

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"reflect"
	"strings"
	"sync"

	kgzip "github.com/klauspost/compress/gzip"
)

// hashEncoding is the base32 alphabet of chunk names: lowercase letters and digits
// valid in a Secret name and a label value.
var hashEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz123456").WithPadding(base32.NoPadding)

// hashLen is the length of an encoded FNV-1a 64 sum: ceil(64/5).
const hashLen = 13

// SliceHash returns the hash that names the chunk Secret holding b: FNV-1a 64,
// big-endian, base32 with the format's alphabet and no padding.
func SliceHash(b []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(b)
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], h.Sum64())
	return hashEncoding.EncodeToString(sum[:])
}

// ChunkName returns the name of the chunk Secret that holds slice b of key.
func ChunkName(key string, b []byte) string { return key + "-" + SliceHash(b) }

// gzipInto writes the gzip stream of js, at best compression as the format's
// reference does, into w.
func gzipInto(w io.Writer, js []byte) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(js); err != nil {
		return err
	}
	return zw.Close()
}

// encodeJSON returns the JSON document codec stores for rls, as json.Encoder
// writes it (with a trailing newline).
func encodeJSON[T any](codec Codec[T], rls *T) ([]byte, error) {
	if rls == nil {
		return nil, errors.New("encode: nil release")
	}
	var js bytes.Buffer
	if err := codec.EncodeJSON(&js, rls); err != nil {
		return nil, fmt.Errorf("encode release %q as JSON: %w", codec.Fields(rls).Name, err)
	}
	return js.Bytes(), nil
}

func (c *Core[T]) encodeJSON(rls *T) ([]byte, error) { return encodeJSON(c.codec, rls) }

// Split cuts data into consecutive slices of at most size bytes. The slices share
// data's backing array.
func Split(data []byte, size int) [][]byte {
	if size <= 0 {
		panic("storage.Split: size must be positive")
	}
	out := make([][]byte, 0, (len(data)+size-1)/size)
	for len(data) > 0 {
		n := min(size, len(data))
		out = append(out, data[:n:n])
		data = data[n:]
	}
	return out
}

// ErrTooLarge is wrapped by errors about a release that exceeds a configured bound:
// MaxWriteChunks, MaxReadChunks, the decompressed size bound or the Secret size limit.
var ErrTooLarge = errors.New("release too large")

// ErrCorrupt is wrapped by every error about stored data that cannot be decoded or
// does not check: a missing or malformed field, a hash mismatch, a truncated stream.
var ErrCorrupt = errors.New("corrupt release record")

// ErrChunkMissing is wrapped by the error about a chunk Secret the index names but the
// server does not have. It also wraps ErrCorrupt.
var ErrChunkMissing = fmt.Errorf("%w: chunk missing", ErrCorrupt)

// ErrChunkMismatch is wrapped by the error about a chunk Secret whose content does
// not match its name (wrong type, no data, a hash that differs). It also wraps
// ErrCorrupt.
var ErrChunkMismatch = fmt.Errorf("%w: chunk does not match its name", ErrCorrupt)

// maxExtraChunksBytes bounds the extraChunks list that is parsed. An index Secret
// cannot hold more than 1 MiB anyway; this keeps a hostile list from costing more than
// a small, fixed amount before it is rejected.
const maxExtraChunksBytes = 256 << 10

// ParseExtraChunks parses an index's extraChunks list and checks that every name is
// a chunk name of key: key, a dash and a 13-character hash. A reader therefore never
// follows a name that points outside its own release record.
func ParseExtraChunks(key string, data []byte) ([]string, error) {
	if data == nil {
		return nil, fmt.Errorf("%w: data.extraChunks is missing", ErrCorrupt)
	}
	if len(data) > maxExtraChunksBytes {
		return nil, fmt.Errorf("%w: data.extraChunks is %d bytes, over the %d-byte bound", ErrCorrupt, len(data), maxExtraChunksBytes)
	}
	var names []string
	if err := json.Unmarshal(data, &names); err != nil {
		return nil, fmt.Errorf("%w: data.extraChunks is not a JSON array of names: %v", ErrCorrupt, err)
	}
	for i, n := range names {
		if err := checkChunkName(key, n); err != nil {
			return nil, fmt.Errorf("%w: data.extraChunks[%d]: %v", ErrCorrupt, i, err)
		}
	}
	return names, nil
}

func checkChunkName(key, name string) error {
	hash, ok := strings.CutPrefix(name, key+"-")
	if !ok {
		return fmt.Errorf("chunk name %q does not belong to key %q", name, key)
	}
	if len(hash) != hashLen {
		return fmt.Errorf("chunk name %q: hash %q is not %d characters", name, hash, hashLen)
	}
	if _, err := hashEncoding.DecodeString(hash); err != nil {
		return fmt.Errorf("chunk name %q: hash %q is not base32 of the format's alphabet", name, hash)
	}
	return nil
}

// HashOfChunkName returns the hash part of a chunk name of key, or "" if name is not
// a valid chunk name of key.
func HashOfChunkName(key, name string) string {
	if checkChunkName(key, name) != nil {
		return ""
	}
	return name[len(key)+1:]
}

// DefaultMaxDecodedBytes bounds the JSON a payload may decompress to when the
// configuration does not set a bound. Real releases stay far below it; a gzip bomb
// stops there.
const DefaultMaxDecodedBytes = 128 << 20

// maxRatio bounds how many times its compressed size a payload may decompress to,
// once it is past ratioFloor bytes. Helm releases (YAML and JSON text, base64 blobs)
// compress by far less; deflate's limit, about 1032:1, is reached only by long runs
// of one byte: a gzip bomb. Stopping there keeps the memory a bomb costs to a few
// MiB, where the absolute bound alone (DefaultMaxDecodedBytes) would let it fill a
// 128 MiB buffer first.
const (
	maxRatio   = 256
	ratioFloor = 8 << 20
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// limitedReader returns ErrTooLarge once more than n bytes have been read, or, when
// in counts the compressed bytes behind it, once the output is past ratioFloor and
// more than maxRatio times the input.
type limitedReader struct {
	r   io.Reader
	n   int64
	in  *countingReader
	out int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, fmt.Errorf("%w: payload decompresses past the bound", ErrTooLarge)
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	l.out += int64(n)
	if l.n < 0 {
		return n, fmt.Errorf("%w: payload decompresses to more than the bound (%d bytes)", ErrTooLarge, l.out-1)
	}
	if l.in != nil && l.out > ratioFloor && l.out > maxRatio*l.in.n {
		return n, fmt.Errorf("%w: payload decompresses to more than %d times its %d stored bytes (a gzip bomb?)", ErrTooLarge, maxRatio, l.in.n)
	}
	return n, err
}

// hintCap is the most a size hint from an annotation makes a decode allocate
// before the data has shown it true. Past it, the buffer grows as the data comes.
const hintCap = 16 << 20

// hintRatio bounds a size hint by the stored bytes: a hint that claims a payload
// decompresses more than this many times its stored size is not believed up front.
const hintRatio = 32

// trustedHint returns how much of an annotation's size hint (the JSON length a
// record claims) a decode may believe, given the bytes the record stores. Even
// then, decodePayload allocates at most hintCap before the data shows the hint true.
func trustedHint(hint, stored int64) int64 {
	return max(0, min(hint, hintRatio*stored))
}

// segmentSize is the size of the pieces a payload of unknown length is read into
// once it is past what its hint (or hintCap) covered.
const segmentSize = 4 << 20

// readAll reads r to its end. It reads into one buffer of capacity initial, grown
// as needed up to the hint (or hintCap): when the hint says how much is coming,
// growth goes there directly, at most to hintCap or four times the buffer in one
// step. hint is asked again at each growth, since a claim may arrive while the
// data does (a gzip trailer in the last chunk); nil or 0 means unknown. Past that,
// the length is unknown and the payload may be a bomb, so it reads into fixed
// segments, never past limit bytes in all, and joins them only at the end: a reader
// that yields more than limit fails (limitedReader does) having cost about limit,
// where doubling one buffer would cost half as much again.
//
// Unlike bytes.Buffer.Grow, which clears the memory it adds in one step the
// garbage collector cannot interrupt, make leaves fresh memory from the OS as it
// is, already zero: for a payload of tens of MB that clearing took a quarter of a
// Get's CPU, and stalled the collector besides.
func readAll(r io.Reader, initial int64, hint func() int64, limit int64) ([]byte, error) {
	b := jsonBuf(min(max(initial, 512), limit), limit)
	for {
		if len(b) == cap(b) {
			var h int64
			if hint != nil {
				h = hint()
			}
			growTo := min(max(h, hintCap), limit)
			if int64(cap(b)) >= growTo {
				break
			}
			next := 2 * int64(cap(b))
			if h > int64(cap(b)) {
				next = min(h, max(hintCap, 4*int64(cap(b))))
			}
			nb := make([]byte, len(b), min(next, growTo))
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	segs := [][]byte{b}
	total := int64(len(b))
	for {
		room := min(segmentSize, limit-total)
		if room <= 0 {
			return nil, fmt.Errorf("%w: payload decompresses past the bound (%d bytes)", ErrTooLarge, limit-1)
		}
		seg := make([]byte, 0, room)
		var err error
		for len(seg) < cap(seg) && err == nil {
			var n int
			n, err = r.Read(seg[len(seg):cap(seg)])
			seg = seg[:len(seg)+n]
		}
		segs = append(segs, seg)
		total += int64(len(seg))
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, total)
	for i, seg := range segs {
		out = append(out, seg...)
		segs[i] = nil
	}
	return out, nil
}

// jsonBufs holds buffers that decodes inflated JSON into and are done with, for
// the next decode to inflate into: a Get of a large release otherwise allocates
// as much again as its JSON, which the collector then clears and collects, each
// time. Buffers over hintCap are left to the collector.
var jsonBufs sync.Pool

// jsonBuf returns an empty buffer of capacity at least n and at most limit.
func jsonBuf(n, limit int64) []byte {
	if p, ok := jsonBufs.Get().(*[]byte); ok && int64(cap(*p)) >= n && int64(cap(*p)) <= limit {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// recycleJSON gives back a buffer readAll returned, once nothing refers to it:
// unmarshalJSON copies what it keeps.
func recycleJSON(b []byte) {
	if cap(b) > 0 && cap(b) <= hintCap {
		b = b[:0]
		jsonBufs.Put(&b)
	}
}

// A sizeClaim returns the length a record claims for its JSON, bounded by
// trustedHint, or 0 or less while the length is not known; it may become known
// while the data arrives (a gzip trailer in the last chunk). The whole JSON is
// decompressed into one buffer and parsed there: with the length known in time,
// a buffer of the right size, where a streaming decoder would double its buffer as
// it fills, copying and clearing about as many bytes again as the payload holds.
// A claim is not trusted: the bound applies all the same, and a claim that proves
// wrong costs a copy, not a failure. Nil: no claim.
type sizeClaim func() int64

func fixedSize(n int64) sizeClaim { return func() int64 { return n } }

// decodePayloadInfo decompresses and decodes a payload read from r with codec,
// reading at most maxDecoded bytes of JSON (DefaultMaxDecodedBytes when
// maxDecoded <= 0), told how long the JSON should be by claimed (nil: unknown).
// It returns the release with its custom labels, system labels removed, and what
// the format records of it. With walk, the payload type of a Helm, it also walks
// the JSON for the fields that type drops (unknownFields). The walk reads the
// buffer the JSON was parsed from, in place, so a decode that walks holds no more
// memory than one that does not; it is left to the reads that show a record
// (DecodeStats), where Helm's own reads through the driver need none of it.
func decodePayloadInfo[T any](codec Codec[T], r io.Reader, maxDecoded int64, claimed sizeClaim, walk reflect.Type) (*T, Fields, DecodeInfo, error) {
	var info DecodeInfo
	if maxDecoded <= 0 {
		maxDecoded = DefaultMaxDecodedBytes
	}
	in := &countingReader{r: r}
	// klauspost/compress inflates the same streams as compress/gzip about a fifth
	// faster (BenchmarkDecodePayload); writing stays with compress/gzip, whose output
	// the original driver's matches byte for byte.
	zr, err := kgzip.NewReader(in)
	if err != nil {
		return nil, Fields{}, info, fmt.Errorf("%w: not a gzip stream: %v", ErrCorrupt, err)
	}
	defer zr.Close()
	// The buffer holds the JSON plus one byte, which tells a payload of exactly
	// maxDecoded bytes from a longer one; a read that would go past fails. A
	// claimed length gets MinRead bytes more, so that the read that meets the end
	// of the stream finds room without a growth.
	hint := func() int64 {
		if claimed == nil {
			return 0
		}
		if n := claimed(); n > 0 && n <= maxDecoded {
			return n + bytes.MinRead
		}
		return 0
	}
	initial := min(hint(), hintCap)
	// Reading to the end also checks the gzip trailer's CRC of the whole stream, so
	// a truncated or altered stream is caught even where the JSON would parse.
	js, err := readAll(&limitedReader{r: zr, n: maxDecoded, in: in}, initial, hint, maxDecoded+1)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, Fields{}, info, err
		}
		return nil, Fields{}, info, fmt.Errorf("%w: gzip stream is truncated or does not check: %v", ErrCorrupt, err)
	}
	defer recycleJSON(js)
	rls, labels, err := codec.DecodeJSON(js)
	if err != nil {
		return nil, Fields{}, info, fmt.Errorf("%w: payload does not decode: %v", ErrCorrupt, err)
	}
	codec.SetLabels(rls, customLabels(labels))
	f := codec.Fields(rls)
	if !f.HasInfo {
		return nil, Fields{}, info, fmt.Errorf("%w: payload has no release info", ErrCorrupt)
	}
	if walk != nil {
		// Against the payload's type, so that the format's own "labels" is known.
		if info.UnknownFields, info.ApplyMethod, err = unknownFields(js, walk); err != nil {
			return nil, Fields{}, DecodeInfo{}, fmt.Errorf("%w: payload does not decode: %v", ErrCorrupt, err)
		}
	}
	return rls, f, info, nil
}
