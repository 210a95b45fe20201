package fit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"

	"golang.org/x/sync/errgroup"
	release4 "helm.sh/helm/v4/pkg/release/v1"
)

// Measure4 is Measure for a record as Helm 4 stores it: Helm 4's drivers marshal
// its release type, and chunkview's Helm 4 chunked driver (storage/helm4) writes
// that JSON with the format's "labels" after it, as json.Encoder writes it.
func Measure4(rls *release4.Release, drivers []string, s Settings) (*Measurement, error) {
	if rls == nil {
		return nil, fmt.Errorf("measure: no release")
	}
	return measure(record{
		name: rls.Name, version: rls.Version,
		json:    func() ([]byte, error) { return json.Marshal(rls) },
		payload: func() ([]byte, error) { return payload4(rls) },
	}, drivers, s)
}

// payload4 is the chunked format's gzip stream of a Helm 4 release: what
// storage/helm4's codec encodes, compressed at best compression as the driver
// compresses it.
func payload4(rls *release4.Release) ([]byte, error) {
	var js bytes.Buffer
	err := json.NewEncoder(&js).Encode(&struct {
		release4.Release
		Labels map[string]string `json:"labels"`
	}{*rls, rls.Labels})
	if err != nil {
		return nil, fmt.Errorf("encode release %q as JSON: %w", rls.Name, err)
	}
	var gz bytes.Buffer
	gz.Grow(js.Len() / 4)
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(js.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// Examine measures the record rd holds, as the Helm that rendered it stores it,
// for drivers (see Measure), and breaks it down (see Break), side by side.
func (rd *Rendered) Examine(drivers []string, s Settings) (*Report, error) {
	if rd.Release4 == nil {
		return Examine(rd.Release, drivers, s)
	}
	var (
		g  errgroup.Group
		m  *Measurement
		bd Breakdown
	)
	g.Go(func() error {
		var err error
		m, err = Measure4(rd.Release4, drivers, s)
		return err
	})
	g.Go(func() error {
		bd = Break(rd.Release)
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return &Report{Measurement: m, Breakdown: bd}, nil
}
