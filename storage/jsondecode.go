package storage

import (
	"encoding/json"
	"fmt"

	gojson "github.com/goccy/go-json"
)

// unmarshalJSON decodes a release's JSON into v, as encoding/json would.
//
// It tries github.com/goccy/go-json first. A release's JSON is nearly all long
// strings (the manifest, base64 chart files), which go-json decodes in a fraction
// of encoding/json's time (BenchmarkUnmarshalRelease); with encoding/json that
// decode was a third of a Get's time on the client. JSON go-json refuses, or a
// panic in it, goes to encoding/json, which decides and words the error: no record
// reads worse than Helm reads it. The tests hold the two decoders to the same
// result on the releases of the fixtures, on JSON that tells decoders apart, and
// on fuzzed JSON (FuzzUnmarshalRelease).
//
// go-json copies every string it decodes, as encoding/json does (its option to
// refer to the input instead is not used): js, a pooled buffer, may be reused once
// this returns, and a string kept from v keeps nothing else alive.
func unmarshalJSON[T any](js []byte, v *T) error {
	if fastUnmarshal(js, v) == nil {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(js, v)
}

// fastUnmarshal is go-json's Unmarshal, with a panic turned into an error.
func fastUnmarshal[T any](js []byte, v *T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("go-json panicked: %v", r)
		}
	}()
	return gojson.Unmarshal(js, v)
}
