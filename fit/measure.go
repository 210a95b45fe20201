package fit

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// Settings are the chunked store's settings in use (--chunk-size,
// --max-write-chunks, --max-read-chunks, --profile).
type Settings struct {
	// ChunkSize is the largest slice per Secret; 0 means
	// storage.DefaultChunkSize.
	ChunkSize int
	// MaxWriteChunks refuses a record of more chunks; 0 means no limit.
	MaxWriteChunks int
	// MaxReadChunks refuses to read a record of more chunks; 0 means no limit.
	MaxReadChunks int
}

func (s Settings) chunkSize() int {
	if s.ChunkSize <= 0 {
		return storage.DefaultChunkSize
	}
	return s.ChunkSize
}

// Store is how one store would hold a record.
type Store struct {
	// Driver is kube.DriverChunked, kube.DriverSecret or kube.DriverConfigMap.
	Driver string `json:"driver"`
	// StoredBytes is what the store counts for the record: the gzip stream of
	// every slice (chunked), or data.release, base64 text (Helm's drivers), as
	// ls and history report it.
	StoredBytes int64 `json:"storedBytes"`
	// LimitBytes is the most one revision may take in the store with the
	// settings in use: 1 MiB of data for Helm's drivers, MaxWriteChunks ×
	// ChunkSize for chunked; 0 when no chunk count limit is set (each Secret
	// must still fit).
	LimitBytes int64 `json:"limitBytes"`
	// Fits reports whether the store would accept the record; Reason says why
	// not.
	Fits   bool   `json:"fits"`
	Reason string `json:"reason,omitempty"`
	// Objects is the number of Secrets or ConfigMaps written: 1 for Helm's
	// drivers; the index and each distinct chunk for chunked.
	Objects int `json:"objects"`
	// Chunks is the number of slices of a chunked record (the index's
	// included), as MaxWriteChunks counts them.
	Chunks int `json:"chunks,omitempty"`
	// LargestObjectBytes is the data of the largest object written, which the
	// API server refuses over 1 MiB: for chunked, the index (its slice and its
	// extraChunks list) or a chunk.
	LargestObjectBytes int64 `json:"largestObjectBytes"`
	// Growth is where the size heads at the release's recent growth per
	// revision, for an upgrade (see Forecast): its RevisionsLeft counts from
	// this revision to the first that will not fit (1: the next one; 0: this
	// one does not; -1: none in sight).
	Growth *Growth `json:"growth,omitempty"`
}

// Measurement is a record encoded for every store asked for.
type Measurement struct {
	// JSONBytes is the length of the release's JSON, as Helm's drivers encode
	// it.
	JSONBytes int `json:"jsonBytes"`
	// Stores are in the order of kube.AllDrivers.
	Stores []Store `json:"stores"`
}

// Fits reports whether every store measured accepts the record.
func (m *Measurement) Fits() bool {
	for _, s := range m.Stores {
		if !s.Fits {
			return false
		}
	}
	return len(m.Stores) > 0
}

// Store returns the measurement of driver d, or nil.
func (m *Measurement) Store(d string) *Store {
	for i := range m.Stores {
		if m.Stores[i].Driver == d {
			return &m.Stores[i]
		}
	}
	return nil
}

// Measure encodes rls as each of drivers (kube.DriverX values; none means
// every store) would store it, and says whether it fits. Helm's two drivers
// store the same bytes, encoded once; the chunked payload, which adds the
// release's labels, is encoded beside it.
func Measure(rls *release.Release, drivers []string, s Settings) (*Measurement, error) {
	if rls == nil {
		return nil, fmt.Errorf("measure: no release")
	}
	return measure(record{
		name: rls.Name, version: rls.Version,
		json: func() ([]byte, error) { return json.Marshal(rls) },
		payload: func() ([]byte, error) {
			gz, _, err := storage.EncodePayload(rls)
			return gz, err
		},
	}, drivers, s)
}

// record is one release record to measure, whichever Helm's types hold it: json
// is the release's JSON as that Helm's drivers marshal it, payload the chunked
// format's gzip stream of it.
type record struct {
	name          string
	version       int
	json, payload func() ([]byte, error)
}

func measure(rec record, drivers []string, s Settings) (*Measurement, error) {
	if len(drivers) == 0 {
		drivers = kube.AllDrivers
	}
	want := func(d string) bool { return slices.Contains(drivers, d) }
	var (
		g       errgroup.Group
		helmLen int
		jsonLen int
		chunked Store
	)
	g.Go(func() error {
		js, err := rec.json()
		if err != nil {
			return fmt.Errorf("encode release %q as JSON: %w", rec.name, err)
		}
		jsonLen = len(js)
		if want(kube.DriverSecret) || want(kube.DriverConfigMap) {
			if helmLen, err = helmRecordBytes(js); err != nil {
				return fmt.Errorf("encode release %q as Helm's drivers do: %w", rec.name, err)
			}
		}
		return nil
	})
	if want(kube.DriverChunked) {
		g.Go(func() error {
			gz, err := rec.payload()
			if err != nil {
				return err
			}
			chunked, err = measureChunked(rec.name, rec.version, gz, s)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m := &Measurement{JSONBytes: jsonLen}
	for _, d := range kube.AllDrivers {
		switch {
		case !want(d):
		case d == kube.DriverChunked:
			m.Stores = append(m.Stores, chunked)
		default:
			m.Stores = append(m.Stores, helmStore(d, int64(helmLen)))
		}
	}
	return m, nil
}

// helmRecordBytes is the length of data.release that Helm's Secrets and
// ConfigMaps drivers (of either Helm: their encodeRelease is the same) store for
// a release of JSON js: base64 of the gzip stream, at best compression.
func helmRecordBytes(js []byte) (int, error) {
	var cw countWriter
	zw, err := gzip.NewWriterLevel(&cw, gzip.BestCompression)
	if err != nil {
		return 0, err
	}
	if _, err := zw.Write(js); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return base64.StdEncoding.EncodedLen(cw.n), nil
}

// helmStore is the measurement of a record of n bytes of data.release in one of
// Helm's drivers: one object, whose data the API server caps at 1 MiB.
func helmStore(d string, n int64) Store {
	st := Store{Driver: d, StoredBytes: n, LimitBytes: storage.HelmRecordLimit, Objects: 1, LargestObjectBytes: n}
	st.Fits = n <= storage.HelmRecordLimit
	if !st.Fits {
		noun := map[string]string{kube.DriverSecret: "Secret", kube.DriverConfigMap: "ConfigMap"}[d]
		st.Reason = fmt.Sprintf("data.release would be %d bytes of base64: the API server refuses a %s of more than %d bytes of data (\"Too long\")", n, noun, storage.HelmRecordLimit)
	}
	return st
}

// measureChunked lays out the gzip stream gz of revision version of release name
// as the chunked format stores it: cut into slices of the chunk size, the first
// in the index Secret beside the JSON list of the other slices' Secret names.
func measureChunked(name string, version int, gz []byte, s Settings) (Store, error) {
	size := s.chunkSize()
	key := storage.RecordKey(name, version)
	parts := storage.Split(gz, size)
	names := make([]string, 0, max(len(parts)-1, 0))
	distinct := map[string]bool{}
	var largest int
	for _, p := range parts[1:] {
		n := storage.ChunkName(key, p)
		names = append(names, n)
		distinct[n] = true
		largest = max(largest, len(p))
	}
	extra, err := json.Marshal(names)
	if err != nil {
		return Store{}, err
	}
	index := len(extra)
	if len(parts) > 0 {
		index += len(parts[0])
	}
	st := Store{
		Driver: kube.DriverChunked, StoredBytes: int64(len(gz)), Chunks: len(parts), Objects: 1 + len(distinct),
		LargestObjectBytes: int64(max(index, largest)),
		LimitBytes:         int64(s.MaxWriteChunks) * int64(size),
	}
	switch {
	case s.MaxWriteChunks > 0 && len(parts) > s.MaxWriteChunks:
		st.Reason = fmt.Sprintf("%d chunks of %d bytes, over the write limit of %d (--max-write-chunks): the driver refuses to write it", len(parts), size, s.MaxWriteChunks)
	case index > storage.MaxSecretDataBytes:
		st.Reason = fmt.Sprintf("the index Secret would hold %d bytes (its slice and a list of %d chunk names), over the API server's %d: lower --chunk-size", index, len(names), storage.MaxSecretDataBytes)
	case s.MaxReadChunks > 0 && len(parts) > s.MaxReadChunks:
		st.Reason = fmt.Sprintf("%d chunks, over the read limit of %d (--max-read-chunks): readers with that setting refuse it", len(parts), s.MaxReadChunks)
	default:
		st.Fits = true
	}
	return st, nil
}

// Report is a record measured for the stores asked for, and what takes its room.
type Report struct {
	*Measurement
	Breakdown Breakdown `json:"breakdown"`
}

// Examine measures rls for drivers (see Measure) and breaks it down (see Break),
// side by side: each compresses the whole record once.
func Examine(rls *release.Release, drivers []string, s Settings) (*Report, error) {
	var (
		g  errgroup.Group
		m  *Measurement
		bd Breakdown
	)
	g.Go(func() error {
		var err error
		m, err = Measure(rls, drivers, s)
		return err
	})
	g.Go(func() error {
		bd = Break(rls)
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return &Report{Measurement: m, Breakdown: bd}, nil
}
