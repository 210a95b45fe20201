package storage

import (
	"bytes"
	"io"
	"reflect"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"helm.sh/helm/v3/pkg/release"
)

// SetClock makes c take the time of its writes from now, so that tests can pin the
// createdAt and modifiedAt labels.
func SetClock(c *ChunkedSecrets, now func() time.Time) { c.now = now }

// SetCoreClock is SetClock for the core under any adapter.
func SetCoreClock[T any](c *Core[T], now func() time.Time) { c.now = now }

// CheckCoreFirst is CheckFirst for the core under any adapter.
func CheckCoreFirst[T any](c *Core[T]) { c.checkFirst = true }

// CorePayload is EncodePayload for the core under any adapter: the gzip stream
// c stores for rls.
func CorePayload[T any](c *Core[T], rls *T) ([]byte, error) {
	js, err := c.encodeJSON(rls)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := gzipInto(&buf, js); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// NoChunkReuse makes a read of c that starts over fetch every chunk again, as it
// did before verifiedSlices.
func NoChunkReuse(c *ChunkedSecrets) { c.noReuse = true }

// CheckFirst makes c's creates compress the whole record before their first write,
// as they do when the record could outgrow MaxWriteChunks, instead of writing
// chunks as their slices are compressed.
func CheckFirst(c *ChunkedSecrets) { c.checkFirst = true }

// UnknownFieldsOfPayload is the walk a chunked decode makes, over a payload's JSON.
func UnknownFieldsOfPayload(js []byte) ([]string, string, error) {
	return unknownFields(js, payloadType)
}

// UnknownFieldsOfPayloadDecoder is the walk UnknownFieldsOfPayload replaced: the
// reference it is checked and measured against.
func UnknownFieldsOfPayloadDecoder(js []byte) ([]string, string, error) {
	return unknownFieldsDecoder(js, payloadType)
}

// DecodePayloadInfo is DecodePayload that walks as DecodeStats does (walk) or not.
func DecodePayloadInfo(r io.Reader, walk bool) (*release.Release, DecodeInfo, error) {
	var wt reflect.Type
	if walk {
		wt = payloadType
	}
	rls, _, info, err := decodePayloadInfo[release.Release](helm3Codec{}, r, 0, nil, wt)
	return rls, info, err
}

// RecordSlices returns the slices and chunk names c's writes store for rls under
// key, cut as the stream is compressed.
func RecordSlices(c *ChunkedSecrets, key string, rls *release.Release) ([][]byte, []string, error) {
	rec, err := c.encode(key, rls)
	if err != nil {
		return nil, nil, err
	}
	return rec.slices, rec.names, nil
}

// Streamable reports whether c writes a record of jsonLen bytes of JSON under key
// while compressing it.
func Streamable(c *ChunkedSecrets, key string, jsonLen int) bool { return c.streamable(key, jsonLen) }

// GzipBound is the most bytes a create assumes gzip can make of n bytes.
func GzipBound(n int) int { return gzipBound(n) }

// Payload is the JSON document a chunked record stores: Helm 3's release and the
// format's "labels".
type Payload = payload

// UnmarshalPayloadJSON decodes a payload's JSON as the reads do.
func UnmarshalPayloadJSON(js []byte, p *Payload) error { return unmarshalJSON(js, p) }

// FastUnmarshalPayloadJSON is json/v1's decode alone, without the fall back to
// encoding/json.
func FastUnmarshalPayloadJSON(js []byte, p *Payload) error { return fastUnmarshal(js, p) }

// StringHeavy reports whether the reads decode js with json/v1 first.
func StringHeavy(js []byte) bool { return stringHeavy(js) }

// WrapCacheWatch makes the informers rc starts from now on list and watch through
// wrap, so that a test can hold back their events.
func WrapCacheWatch(rc *ReleaseCache, wrap func(toolscache.ListerWatcher) toolscache.ListerWatcher) {
	rc.wrapWatch = wrap
}

// DeepCopy is the copy the release cache hands out.
func DeepCopy[T any](v *T) *T { return deepCopy(v) }

// HeapSize is the estimate of memory the release cache bounds its releases by.
func HeapSize[T any](v *T) int64 { return heapSize(v) }
