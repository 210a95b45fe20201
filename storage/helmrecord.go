package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"

	"github.com/chunkview/chunkview/storage/chunked"

	"helm.sh/helm/v3/pkg/release"
)

// Helm's own drivers, the Secrets driver and the ConfigMaps driver, store one
// revision per object, named after the key (sh.helm.release.v1.<name>.v<revision>)
// and labelled name, owner=helm, status, version, plus createdAt or modifiedAt and the
// release's custom labels. Both keep the record in data["release"]: base64 (standard
// alphabet, padded) of the gzip stream (best compression) of the release's JSON. The
// Secrets driver stores that base64 text as the Secret's data bytes — so the text,
// not the gzip stream, is what the API server counts and what a client reads back
// from Secret.Data — and the ConfigMaps driver stores it as the ConfigMap's data
// string. Records written before Helm compressed them hold base64 of the JSON itself;
// Helm tells the two apart by the gzip magic bytes.
const (
	// HelmDataKey is the data key of a Helm record in its Secret or ConfigMap.
	HelmDataKey = "release"
	// SecretTypeHelm is the type of the Secrets Helm's Secrets driver writes.
	SecretTypeHelm = corev1.SecretType("helm.sh/release.v1")
	// HelmOwner is the owner label value of the records Helm's drivers write.
	HelmOwner = "helm"
)

// releaseType is the type whose JSON fields a Helm record is compared with.
var releaseType = reflect.TypeFor[release.Release]()

// HelmRecordLimit is the most bytes data["release"] of a Helm record can hold: the
// API server refuses a Secret, and a ConfigMap, whose data values (keys not counted;
// a ConfigMap's binaryData included) add up to more than 1 MiB (MaxSecretSize in
// k8s.io/api/core/v1; ValidateSecret and ValidateConfigMap check both kinds against
// it). Helm's record is the only value, and it is base64 text, so the limit applies
// to the length of that text: the gzip stream inside can be at most 3/4 of it
// (MaxHelmSecretGzipBytes).
const HelmRecordLimit = MaxSecretDataBytes

// magicGzip starts every gzip stream; Helm inflates a record only when it finds it.
var magicGzip = []byte{0x1f, 0x8b, 0x08}

// HelmRecord is a release decoded from a Helm record, with what Helm 3's types could
// not hold.
type HelmRecord struct {
	// Release is the release as Helm 3 decodes it. Its Labels are nil: Helm's drivers
	// keep custom labels on the object, not in the record.
	Release *release.Release
	// ApplyMethod is the record's apply_method, which Helm 4 writes ("ssa" for
	// server-side apply, "csa" for client-side) and Helm 3 drops; "" when absent,
	// which Helm 4 reads as client-side apply.
	ApplyMethod string
	// UnknownFields are the JSON paths, sorted, of the record's fields that Helm 3's
	// types have no place for, such as "apply_method", "info.rollback_revision" or
	// "chart.templates[].modtime": Helm 3 drops them when it reads the record and
	// when it writes it back. Array elements show as "[]" and map values as "*". The
	// list stops at 64 paths.
	UnknownFields []string
	// GzipBytes is the length of the gzip stream the record holds; 0 when it holds
	// uncompressed JSON.
	GzipBytes int
	// DecodedBytes is the length of the release's JSON.
	DecodedBytes int
}

// DecodeHelmRecord decodes data["release"] of a Helm record, from either of Helm's
// drivers: base64, then gzip when the gzip magic bytes are there, then JSON. It
// inflates at most maxDecoded bytes of JSON (DefaultMaxDecodedBytes when
// maxDecoded <= 0), and refuses, as the chunked format's decode does, a stream
// that inflates past 8 MiB to more than 256 times its size (a gzip bomb); either
// error wraps ErrTooLarge. Data that is
// not base64, gzip or a release's JSON is refused with an error that wraps
// ErrCorrupt, as is a release without info.
func DecodeHelmRecord(data []byte, maxDecoded int64) (*HelmRecord, error) {
	if maxDecoded <= 0 {
		maxDecoded = DefaultMaxDecodedBytes
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: data.%s is empty", ErrCorrupt, HelmDataKey)
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	n, err := base64.StdEncoding.Decode(raw, data)
	if err != nil {
		return nil, fmt.Errorf("%w: data.%s is not base64: %v", ErrCorrupt, HelmDataKey, err)
	}
	raw = raw[:n]
	rec := &HelmRecord{}
	js := raw
	if len(raw) > len(magicGzip) && bytes.Equal(raw[:len(magicGzip)], magicGzip) {
		rec.GzipBytes = len(raw)
		if js, err = inflateBounded(raw, maxDecoded); err != nil {
			return nil, err
		}
	} else if int64(len(js)) > maxDecoded {
		return nil, fmt.Errorf("%w: uncompressed release JSON is %d bytes, over the %d-byte bound", ErrTooLarge, len(js), maxDecoded)
	}
	rec.DecodedBytes = len(js)
	var rls release.Release
	if err := chunked.UnmarshalJSON(js, &rls); err != nil {
		return nil, fmt.Errorf("%w: release JSON does not decode: %v", ErrCorrupt, err)
	}
	if rls.Info == nil {
		return nil, fmt.Errorf("%w: release JSON has no info", ErrCorrupt)
	}
	rec.Release = &rls
	if rec.UnknownFields, rec.ApplyMethod, err = chunked.UnknownFields(js, releaseType); err != nil {
		return nil, fmt.Errorf("%w: release JSON does not decode: %v", ErrCorrupt, err)
	}
	return rec, nil
}

// inflateBounded inflates the whole gzip stream gz, checking its trailer, into at
// most limit bytes.
func inflateBounded(gz []byte, limit int64) ([]byte, error) {
	if !bytes.HasPrefix(gz, magicGzip[:2]) {
		return nil, fmt.Errorf("%w: data.%s is not a gzip stream", ErrCorrupt, HelmDataKey)
	}
	js, err := chunked.Inflate(gz, limit)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: data.%s: gzip stream is truncated or does not check: %v", ErrCorrupt, HelmDataKey, err)
	}
	return js, nil
}

// EncodeHelmRecord returns data["release"] as Helm 3's drivers write it for rls:
// base64 (standard alphabet) of the gzip stream, at best compression, of the
// release's JSON, byte for byte what encodeRelease in Helm's
// pkg/storage/driver/util.go returns. A Secret stores these bytes; a ConfigMap
// stores them as its string.
func EncodeHelmRecord(rls *release.Release) ([]byte, error) {
	if rls == nil {
		return nil, errors.New("encode helm record: nil release")
	}
	js, err := json.Marshal(rls)
	if err != nil {
		return nil, fmt.Errorf("encode release %q as JSON: %w", rls.Name, err)
	}
	var buf bytes.Buffer
	if err := chunked.Compress(&buf, js); err != nil {
		return nil, fmt.Errorf("compress release %q: %w", rls.Name, err)
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(buf.Len()))
	base64.StdEncoding.Encode(out, buf.Bytes())
	return out, nil
}
