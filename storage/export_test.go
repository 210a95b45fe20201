package storage

import (
	"io"
	"reflect"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage/chunked"
)

// SetClock makes c take the time of its writes from now, so that tests can pin the
// createdAt and modifiedAt labels.
func SetClock(c *ChunkedSecrets, now func() time.Time) { chunked.HooksOf(c.Core).SetClock(now) }

// SetCoreClock is SetClock for the core under any adapter.
func SetCoreClock[T any](c *Core[T], now func() time.Time) { chunked.HooksOf(c).SetClock(now) }

// CheckCoreFirst is CheckFirst for the core under any adapter.
func CheckCoreFirst[T any](c *Core[T]) { chunked.HooksOf(c).CheckFirst() }

// CorePayload is EncodePayload for the core under any adapter: the gzip stream
// c stores for rls.
func CorePayload[T any](c *Core[T], rls *T) ([]byte, error) { return chunked.HooksOf(c).Payload(rls) }

// NoChunkReuse makes a read of c that starts over fetch every chunk again, as it
// did before verifiedSlices.
func NoChunkReuse(c *ChunkedSecrets) { chunked.HooksOf(c.Core).NoChunkReuse() }

// CheckFirst makes c's creates compress the whole record before their first write,
// as they do when the record could outgrow MaxWriteChunks, instead of writing
// chunks as their slices are compressed.
func CheckFirst(c *ChunkedSecrets) { chunked.HooksOf(c.Core).CheckFirst() }

// UnknownFieldsOfPayload is the walk a chunked decode makes, over a payload's JSON.
func UnknownFieldsOfPayload(js []byte) ([]string, string, error) {
	return chunked.UnknownFields(js, payloadType)
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
	return chunked.HookDecodePayloadInfo[release.Release](helm3Codec{}, r, wt)
}

// RecordSlices returns the slices and chunk names c's writes store for rls under
// key, cut as the stream is compressed.
func RecordSlices(c *ChunkedSecrets, key string, rls *release.Release) ([][]byte, []string, error) {
	return chunked.HooksOf(c.Core).Record(key, rls)
}

// Streamable reports whether c writes a record of jsonLen bytes of JSON under key
// while compressing it.
func Streamable(c *ChunkedSecrets, key string, jsonLen int) bool {
	return chunked.HooksOf(c.Core).Streamable(key, jsonLen)
}

// GzipBound is the most bytes a create assumes gzip can make of n bytes.
func GzipBound(n int) int { return chunked.HookGzipBound(n) }

// Payload is the JSON document a chunked record stores: Helm 3's release and the
// format's "labels".
type Payload = payload

// UnmarshalPayloadJSON decodes a payload's JSON as the reads do.
func UnmarshalPayloadJSON(js []byte, p *Payload) error { return chunked.UnmarshalJSON(js, p) }

// FastUnmarshalPayloadJSON is json/v1's decode alone, without the fall back to
// encoding/json.
func FastUnmarshalPayloadJSON(js []byte, p *Payload) error { return chunked.HookFastUnmarshal(js, p) }

// StringHeavy reports whether the reads decode js with json/v1 first.
func StringHeavy(js []byte) bool { return chunked.HookStringHeavy(js) }

// WrapCacheWatch makes the informers rc starts from now on list and watch through
// wrap, so that a test can hold back their events.
func WrapCacheWatch(rc *ReleaseCache, wrap func(toolscache.ListerWatcher) toolscache.ListerWatcher) {
	chunked.HookWrapCacheWatch(rc, wrap)
}

// DeepCopy is the copy the release cache hands out.
func DeepCopy[T any](v *T) *T { return chunked.HookDeepCopy(v) }

// HeapSize is the estimate of memory the release cache bounds its releases by.
func HeapSize[T any](v *T) int64 { return chunked.HookHeapSize(v) }
