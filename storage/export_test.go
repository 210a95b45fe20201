package storage

import (
	"io"
	"time"

	"helm.sh/helm/v3/pkg/release"
)

// SetClock makes c take the time of its writes from now, so that tests can pin the
// createdAt and modifiedAt labels.
func SetClock(c *ChunkedSecrets, now func() time.Time) { c.now = now }

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
	return decodePayloadInfo(r, 0, nil, walk)
}
