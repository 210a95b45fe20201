package storage

import (
	"encoding/json"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// unmarshalJSON decodes a release's JSON into v, as encoding/json would.
//
// It tries github.com/go-json-experiment/json/v1 first: encoding/json as Go 1.27
// implements it, on top of encoding/json/v2, whose module mirrors the standard
// library's code. On a release's JSON, nearly all long strings (the manifest,
// base64 chart files), it takes half of Go 1.26's encoding/json time for the same
// allocations (BenchmarkUnmarshalRelease); that decode was about a third of a Get's
// client time. JSON it refuses, or a panic in it, goes to encoding/json, which
// decides and words the error, so no record reads worse than Helm reads it. The
// tests hold the two decoders to the same result on the releases of the fixtures,
// on JSON that tells decoders apart, and on fuzzed JSON (FuzzUnmarshalRelease).
//
// Both copy every string they decode: js, a pooled buffer, may be reused once
// this returns, and a string kept from v keeps nothing else alive. Once the
// project builds with Go 1.27, encoding/json is this same code and the module can
// go.
func unmarshalJSON[T any](js []byte, v *T) error {
	if fastUnmarshal(js, v) == nil {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(js, v)
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
