package chunked

import (
	"bytes"
	"encoding/json"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// UnmarshalJSON decodes a release's JSON into v as encoding/json does, in about
// half its time on JSON of long strings (manifests, chart files), which is most
// releases. It keeps nothing of js. It is the decoder the Helm 3 driver reads
// with, for a Codec of another Helm to read with too.
func UnmarshalJSON[V any](js []byte, v *V) error { return unmarshalJSON(js, v) }

// unmarshalJSON decodes a release's JSON into v, as encoding/json would.
//
// A JSON whose bytes are mostly in long strings (the manifest, base64 chart files:
// most releases) goes first to github.com/go-json-experiment/json/v1, which is
// encoding/json as Go 1.27 implements it, on top of encoding/json/v2; its module
// mirrors the standard library's code. It decodes such JSON in 0.35x-0.5x
// encoding/json's time, for the same allocations (BenchmarkUnmarshalRelease), and
// that decode was about a third of a Get's client time. On JSON of many short
// strings (a values map of thousands of keys) it is the slower, up to 1.3x, so such
// JSON goes to encoding/json (stringHeavy).
//
// JSON json/v1 refuses, or a panic in it, goes to encoding/json too, which
// decides and words the error, so no record reads worse than Helm reads it. The
// tests hold the two decoders to the same result on the releases of the
// fixtures, on JSON that tells decoders apart, and on fuzzed JSON
// (FuzzUnmarshalRelease).
//
// Both copy every string they decode: js, a pooled buffer, may be reused once
// this returns, and a string kept from v keeps nothing else alive. Once the
// project builds with Go 1.27, encoding/json is json/v1's code and the module
// can go.
func unmarshalJSON[T any](js []byte, v *T) error {
	if stringHeavy(js) && fastUnmarshal(js, v) == nil {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(js, v)
}

// maxQuotesPerKiB is the density of '"' in a JSON document past which json/v1
// stops being the faster decoder: the two take the same time at about 45 to 50
// quotes per KiB (a manifest has about 1, a values map of short strings 60 to
// 130).
const maxQuotesPerKiB = 40

// stringHeavy reports whether js has fewer than maxQuotesPerKiB quotes per KiB:
// few strings, long ones. Counting them takes a few percent of a decode.
func stringHeavy(js []byte) bool {
	return bytes.Count(js, []byte{'"'})*1024 < maxQuotesPerKiB*len(js)
}

// fastUnmarshal is json/v1's Unmarshal, with a panic turned into an error.
func fastUnmarshal[T any](js []byte, v *T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("json/v1 panicked: %v", r)
		}
	}()
	return jsonv1.Unmarshal(js, v)
}
