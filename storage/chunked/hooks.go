package chunked

import (
	"bytes"
	"io"
	"reflect"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
)

// TestHooks reach into a Core and the package's internals for the tests and
// benchmarks of the Helm adapters (storage, storage/helm4), which live in other
// modules. Nothing calls them in a driver at work; they are not a stable API.
type TestHooks[T any] struct{ c *Core[T] }

// HooksOf returns the test hooks of c. Use them before c is used by more than one
// goroutine.
func HooksOf[T any](c *Core[T]) TestHooks[T] { return TestHooks[T]{c} }

// SetClock makes the core take the time of its writes from now, so that tests can
// pin the createdAt and modifiedAt labels.
func (h TestHooks[T]) SetClock(now func() time.Time) { h.c.now = now }

// CheckFirst makes the core's creates compress the whole record before their first
// write, as they do when the record could outgrow MaxWriteChunks, instead of
// writing chunks as their slices are compressed.
func (h TestHooks[T]) CheckFirst() { h.c.checkFirst = true }

// NoChunkReuse makes a read that starts over fetch every chunk again, as reads did
// before they kept the slices they had verified.
func (h TestHooks[T]) NoChunkReuse() { h.c.noReuse = true }

// Record returns the slices and chunk names the core's writes store for rls under
// key, cut as the stream is compressed.
func (h TestHooks[T]) Record(key string, rls *T) ([][]byte, []string, error) {
	rec, err := h.c.encode(key, rls)
	if err != nil {
		return nil, nil, err
	}
	return rec.slices, rec.names, nil
}

// Streamable reports whether the core writes a record of jsonLen bytes of JSON
// under key while compressing it.
func (h TestHooks[T]) Streamable(key string, jsonLen int) bool { return h.c.streamable(key, jsonLen) }

// HookGzipBound is the most bytes a create assumes gzip can make of n bytes.
func HookGzipBound(n int) int { return gzipBound(n) }

// HookDecodePayloadInfo is DecodePayload that also walks the payload against walk
// (when not nil), as DecodeWalk does, and returns what it found.
func HookDecodePayloadInfo[T any](codec Codec[T], r io.Reader, walk reflect.Type) (*T, DecodeInfo, error) {
	rls, _, info, err := decodePayloadInfo(codec, r, 0, nil, walk)
	return rls, info, err
}

// HookFastUnmarshal is json/v1's decode alone, without the fall back to
// encoding/json that UnmarshalJSON makes.
func HookFastUnmarshal[V any](js []byte, v *V) error { return fastUnmarshal(js, v) }

// HookStringHeavy reports whether UnmarshalJSON decodes js with json/v1 first.
func HookStringHeavy(js []byte) bool { return stringHeavy(js) }

// HookWrapCacheWatch makes the informers rc starts from now on list and watch
// through wrap, so that a test can hold back their events.
func HookWrapCacheWatch(rc *ReleaseCache, wrap func(toolscache.ListerWatcher) toolscache.ListerWatcher) {
	rc.wrapWatch = wrap
}

// HookDeepCopy is the copy the release cache hands out.
func HookDeepCopy[T any](v *T) *T { return deepCopy(v) }

// HookHeapSize is the estimate of memory the release cache bounds its releases by.
func HookHeapSize[T any](v *T) int64 { return heapSize(v) }

// Payload returns the gzip stream the core stores for rls: its codec's JSON,
// compressed as the format compresses it.
func (h TestHooks[T]) Payload(rls *T) ([]byte, error) {
	js, err := h.c.encodeJSON(rls)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := gzipInto(&buf, js); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
