package chunked

import (
	"bytes"
	"context"
	"io"
	"reflect"

	kgzip "github.com/klauspost/compress/gzip"
	corev1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// The format's encoding, decoding and listing, for the Helm adapters over the core
// and for tools that read the records of Helm's own drivers with the same bounds.

// EncodeJSON returns the JSON document codec stores for rls, as json.Encoder
// writes it (with a trailing newline).
func EncodeJSON[T any](codec Codec[T], rls *T) ([]byte, error) { return encodeJSON(codec, rls) }

// Compress writes the gzip stream of js into w at best compression, as the
// format's reference driver does (and Helm's own drivers).
func Compress(w io.Writer, js []byte) error { return gzipInto(w, js) }

// DecodePayload decodes a payload (the whole gzip stream of a record) with codec,
// its decompressed JSON bounded by maxDecoded (DefaultMaxDecodedBytes when zero)
// and its first buffer sized by sizeHint, a claim of the JSON's length believed
// only as far as a record's annotation is. It fails with ErrTooLarge past the
// bound and ErrCorrupt for what does not decode.
func DecodePayload[T any](codec Codec[T], r io.Reader, maxDecoded, sizeHint int64) (*T, error) {
	if maxDecoded <= 0 {
		maxDecoded = DefaultMaxDecodedBytes
	}
	rls, _, _, err := decodePayloadInfo(codec, r, maxDecoded, fixedSize(sizeHint), nil)
	return rls, err
}

// Inflate inflates the whole gzip stream gz, checking its trailer, into at most
// limit bytes, under the guards a payload's decode has: ErrTooLarge once past the
// bound or the inflate ratio, the first buffer sized from the stream's length.
// Other errors are the gzip reader's (not a gzip stream, truncated, a failed
// check).
func Inflate(gz []byte, limit int64) ([]byte, error) {
	in := &countingReader{r: bytes.NewReader(gz)}
	zr, err := kgzip.NewReader(in)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	// One byte over the limit tells a stream of exactly limit bytes from a longer
	// one. Deflate inflates at most about 1032:1, which sizes the first buffer.
	return readAll(&limitedReader{r: zr, n: limit, in: in}, min(int64(len(gz))*4, hintCap), nil, limit+1)
}

// UnknownFields walks js, the JSON of a release that json.Unmarshal accepts into
// root (a Helm's release type, or a payload's), and returns the paths of the
// object keys root has no field for, sorted, and the top-level apply_method: what
// a Helm reading js into root would drop.
func UnknownFields(js []byte, root reflect.Type) (paths []string, applyMethod string, err error) {
	return unknownFields(js, root)
}

// DecodeWalk is Decode that also walks the payload against walk, the type a Helm
// decodes it into, and returns what that type drops (see DecodeInfo), the length
// of the gzip stream, and the index it finally decoded (a write in progress may
// have replaced the one given).
func (c *Core[T]) DecodeWalk(ctx context.Context, index *corev1.Secret, walk reflect.Type) (*T, int64, *corev1.Secret, DecodeInfo, error) {
	cp := *c
	cp.walk = walk
	var info DecodeInfo
	rls, n, _, idx, err := cp.decodeSettledChunks(ctx, index, cp.readDeadline(), &info)
	return rls, n, idx, info, err
}

// ListPage is the page size of the core's lists of index Secrets, which carry each
// record's first slice: it bounds the memory a page holds.
const ListPage = listPage

// ListSecrets calls fn for every Secret of client that sel selects, a page of
// limit at a time, as the core's own lists read: a list whose continue token has
// expired starts over (items handed to fn are not handed again).
func ListSecrets(ctx context.Context, client corev1client.SecretInterface, sel string, limit int64, fn func(*corev1.Secret) error) error {
	return listAll(ctx, sel, limit, secretLister(client), fn)
}

// SecretRef names s for messages, as the core's errors do: "namespace/name".
func SecretRef(s *corev1.Secret) string { return secretRef(s) }
