package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	kgzip "github.com/klauspost/compress/gzip"
	corev1 "k8s.io/api/core/v1"

	"helm.sh/helm/v3/pkg/release"
)

// peekLimit bounds the JSON PeekSummary inflates: the fields it looks for come
// first in Helm's encoding of a release, before its chart's templates and files.
const peekLimit = 4 << 20

// PeekSummary reads a listing row's summary from an index Secret alone, without
// fetching a chunk: the release's name, status, description, deploy time and its
// chart's name, version and app version. Helm encodes a release's fields in a fixed
// order — name, info, then the chart with its metadata first — so they sit at the
// front of the gzip stream, in the index's own slice: it inflates only that slice,
// and only until the chart's metadata has been read. ok is false when the slice
// ends (or peekLimit is reached) before that, or the stream is not such a release;
// the caller then decodes the record in full. Sizes and the release namespace,
// which come later in the stream, are not filled; Chunks is.
func PeekSummary(idx *corev1.Secret) (s Summary, ok bool) {
	first := idx.Data[DataChunk]
	if len(first) == 0 {
		return Summary{}, false
	}
	zr, err := kgzip.NewReader(bytes.NewReader(first))
	if err != nil {
		return Summary{}, false
	}
	defer zr.Close()
	dec := json.NewDecoder(io.LimitReader(zr, peekLimit))
	var info *release.Info
	gotChart := false
	err = walkObject(dec, func(key string) error {
		switch key {
		case "info":
			return dec.Decode(&info)
		case "chart":
			return walkObject(dec, func(key string) error {
				if key != "metadata" {
					return skipValue(dec)
				}
				if err := decodeChartMeta(dec, &s); err != nil {
					return err
				}
				gotChart = true
				return errPeekDone
			})
		default:
			return skipValue(dec)
		}
	})
	if !errors.Is(err, errPeekDone) || !gotChart || info == nil {
		return Summary{}, false
	}
	s.Description = info.Description
	s.LastDeployed = info.LastDeployed.Time
	if names, err := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks]); err == nil {
		s.Chunks = 1 + len(names)
	}
	return s, true
}

// decodeChartMeta reads a chart's metadata object from dec into s: the fields
// a listing row shows, and no more.
func decodeChartMeta(dec *json.Decoder, s *Summary) error {
	var meta struct {
		Name       string `json:"name"`
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	if err := dec.Decode(&meta); err != nil {
		return err
	}
	s.Chart, s.ChartVersion, s.AppVersion = meta.Name, meta.Version, meta.AppVersion
	return nil
}

// errPeekDone stops a walk once what it looks for has been read.
var errPeekDone = errors.New("peek: done")

// walkObject reads a JSON object from dec, calling fn with each key; fn must read
// the key's value. It stops at the first error fn returns.
func walkObject(dec *json.Decoder, fn func(key string) error) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return errors.New("peek: not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := t.(string)
		if !ok {
			return errors.New("peek: not a key")
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// skipValue reads past one JSON value without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
