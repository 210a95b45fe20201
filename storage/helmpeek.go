package storage

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"

	kgzip "github.com/klauspost/compress/gzip"

	"helm.sh/helm/v3/pkg/release"
)

// PeekHelmSummary reads a listing row's summary from data["release"] of a Helm
// record without decoding it all: it streams base64, gzip and JSON and stops as soon
// as it has read the release's info (description, deploy time) and its chart's
// metadata (name, version, app version). Helm encodes a release's fields in the
// order of release.Release — name, info, chart (metadata first), config, manifest,
// hooks, version, namespace, and Helm 4's apply_method last — so it reads the front
// of the stream only, however large the chart's templates and files that follow; it
// inflates at most 4 MiB of JSON in any case.
//
// Namespace and applyMethod are filled only when they come before it stops, which
// they never do in a record Helm wrote: Helm keeps a release's record in the
// release's namespace, so the caller takes the object's, and a Helm 4 release's apply
// method takes a full DecodeHelmRecord. The release's name, revision and status are
// the object's labels. StoredBytes is len(data). ok is false when the record is not
// such a release, or the info or chart metadata is missing or not within the bound;
// the caller then decodes the record in full.
func PeekHelmSummary(data []byte) (s Summary, applyMethod string, ok bool) {
	s, applyMethod, ok, _ = peekHelm(data)
	return s, applyMethod, ok
}

// peekHelm is PeekHelmSummary that also tells how many bytes of data it read,
// read-ahead of its buffers included.
func peekHelm(data []byte) (s Summary, applyMethod string, ok bool, consumed int64) {
	in := bytes.NewReader(data)
	defer func() { consumed = int64(len(data) - in.Len()) }()
	br := bufio.NewReaderSize(base64.NewDecoder(base64.StdEncoding, in), 512)
	var r io.Reader = br
	if head, err := br.Peek(len(magicGzip) + 1); err == nil && bytes.Equal(head[:len(magicGzip)], magicGzip) {
		zr, err := kgzip.NewReader(br)
		if err != nil {
			return Summary{}, "", false, 0
		}
		defer zr.Close()
		r = zr
	}
	dec := json.NewDecoder(io.LimitReader(r, peekLimit))
	var info *release.Info
	gotMeta := false
	done := func() error {
		if info != nil && gotMeta {
			return errPeekDone
		}
		return nil
	}
	err := walkObject(dec, func(key string) error {
		switch key {
		case "info":
			if err := dec.Decode(&info); err != nil {
				return err
			}
			return done()
		case "chart":
			return walkObject(dec, func(key string) error {
				if key != "metadata" || gotMeta {
					return skipValue(dec)
				}
				if err := decodeChartMeta(dec, &s); err != nil {
					return err
				}
				gotMeta = true
				return done()
			})
		case "namespace":
			return dec.Decode(&s.Namespace)
		case "apply_method":
			return dec.Decode(&applyMethod)
		default:
			return skipValue(dec)
		}
	})
	// A record that ends without the stop, having had info and chart metadata all
	// the same (a writer that put them last), is as good.
	if err != nil && !errors.Is(err, errPeekDone) || info == nil || !gotMeta {
		return Summary{}, "", false, 0
	}
	s.Description = info.Description
	s.LastDeployed = info.LastDeployed.Time
	s.StoredBytes = int64(len(data))
	return s, applyMethod, true, 0
}
