package chunked

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations chunkview writes on the index Secrets it creates. The format ignores
// them; they let a listing show a release without fetching or decoding its payload.
//
// The summary travels as one JSON annotation, AnnotationSummary, rather than one
// annotation per field: every annotation key is paid for twice in each listing, once
// in metadata.annotations and once in the managedFields entry that records who set
// it, and a listing of index Secrets is mostly that metadata. AnnotationChunks and
// AnnotationPayloadSHA256 stay apart, so that a reader can check a record without
// parsing the summary.
const (
	AnnotationPrefix        = "chunkview.io/"
	AnnotationSummary       = AnnotationPrefix + "summary"
	AnnotationChunks        = AnnotationPrefix + "chunks"
	AnnotationPayloadSHA256 = AnnotationPrefix + "payload-sha256"
	// AnnotationChunkHashes lists the hashes of the index's extra chunks, in
	// order, comma-separated: with the key, their Secrets' names. A listing can
	// then check from metadata alone that each chunk the index names exists,
	// where a count of the Secrets labelled with the key would take a leftover
	// for a missing one.
	AnnotationChunkHashes = AnnotationPrefix + "chunk-hashes"
)

// Annotations of the first layout, one per field, which SummaryFromMeta still reads.
const (
	AnnotationChart        = AnnotationPrefix + "chart"
	AnnotationChartVersion = AnnotationPrefix + "chart-version"
	AnnotationAppVersion   = AnnotationPrefix + "app-version"
	AnnotationNamespace    = AnnotationPrefix + "release-namespace"
	AnnotationDescription  = AnnotationPrefix + "description"
	AnnotationLastDeployed = AnnotationPrefix + "last-deployed"
	AnnotationStoredBytes  = AnnotationPrefix + "stored-bytes"
	AnnotationDecodedBytes = AnnotationPrefix + "decoded-bytes"
)

// maxDescription bounds the description copied into an annotation.
const maxDescription = 256

// Summary is what a listing shows of one revision without its payload. Written by
// chunkview into index annotations, or derived from a decoded release.
type Summary struct {
	Chart        string    `json:"chart,omitempty"`
	ChartVersion string    `json:"chartVersion,omitempty"`
	AppVersion   string    `json:"appVersion,omitempty"`
	Namespace    string    `json:"namespace,omitempty"`
	Description  string    `json:"description,omitempty"`
	LastDeployed time.Time `json:"lastDeployed,omitzero"`
	StoredBytes  int64     `json:"storedBytes,omitempty"`
	DecodedBytes int64     `json:"decodedBytes,omitempty"`
	Chunks       int       `json:"chunks,omitempty"`
	// PayloadSHA256 is the hex SHA-256 of the whole gzip stream, when known.
	PayloadSHA256 string `json:"payloadSHA256,omitempty"`
}

// Annotations returns s as index Secret annotations.
func (s Summary) Annotations() map[string]string {
	a := map[string]string{AnnotationChunks: strconv.Itoa(s.Chunks)}
	if s.PayloadSHA256 != "" {
		a[AnnotationPayloadSHA256] = s.PayloadSHA256
	}
	rest := s
	rest.Chunks, rest.PayloadSHA256 = 0, ""
	if len(rest.Description) > maxDescription {
		rest.Description = rest.Description[:maxDescription]
	}
	if !rest.LastDeployed.IsZero() {
		rest.LastDeployed = rest.LastDeployed.UTC()
	}
	if b, err := json.Marshal(rest); err == nil {
		a[AnnotationSummary] = string(b)
	}
	return a
}

// SummaryFromMeta reads the summary chunkview recorded on an index Secret. ok is false
// when the Secret carries none (it was written by another implementation, or updated
// by one since, which drops the annotations).
func SummaryFromMeta(meta metav1.Object) (s Summary, ok bool) {
	a := meta.GetAnnotations()
	chunks, err := strconv.Atoi(a[AnnotationChunks])
	if err != nil || chunks < 1 {
		return Summary{}, false
	}
	if js, found := a[AnnotationSummary]; found {
		if err := json.Unmarshal([]byte(js), &s); err != nil {
			return Summary{}, false
		}
	} else {
		s.Chart = a[AnnotationChart]
		s.ChartVersion = a[AnnotationChartVersion]
		s.AppVersion = a[AnnotationAppVersion]
		s.Namespace = a[AnnotationNamespace]
		s.Description = a[AnnotationDescription]
		s.StoredBytes, _ = strconv.ParseInt(a[AnnotationStoredBytes], 10, 64)
		s.DecodedBytes, _ = strconv.ParseInt(a[AnnotationDecodedBytes], 10, 64)
		if t, err := time.Parse(time.RFC3339, a[AnnotationLastDeployed]); err == nil {
			s.LastDeployed = t
		}
	}
	s.Chunks = chunks
	s.PayloadSHA256 = a[AnnotationPayloadSHA256]
	return s, true
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ChunkNamesFromMeta returns the names of the extra chunks an index written by
// chunkview names, in order, from its metadata alone (AnnotationChunkHashes). ok is
// false when the index does not record them, or records them wrongly.
func ChunkNamesFromMeta(meta metav1.Object) (names []string, ok bool) {
	a := meta.GetAnnotations()
	chunks, err := strconv.Atoi(a[AnnotationChunks])
	if err != nil || chunks < 1 {
		return nil, false
	}
	if chunks == 1 {
		return []string{}, true
	}
	list, found := a[AnnotationChunkHashes]
	if !found {
		return nil, false
	}
	for _, h := range strings.Split(list, ",") {
		n := meta.GetName() + "-" + h
		if HashOfChunkName(meta.GetName(), n) == "" {
			return nil, false
		}
		names = append(names, n)
	}
	if len(names) != chunks-1 {
		return nil, false
	}
	return names, true
}
