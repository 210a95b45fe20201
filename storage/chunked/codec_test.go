package chunked

import (
	"encoding/json"
	"errors"
	"io"
)

// The package's own tests decode into testRelease, a release type of a few of
// Helm's fields, through testCodec: the core is generic over the release type,
// and the Helm adapters test it with their Helm's types.

type testRelease struct {
	Name     string            `json:"name"`
	Version  int               `json:"version"`
	Manifest string            `json:"manifest,omitempty"`
	Info     *testInfo         `json:"info,omitempty"`
	Config   map[string]any    `json:"config,omitempty"`
	Labels   map[string]string `json:"-"`
}

type testInfo struct {
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
}

type testPayload struct {
	testRelease
	Labels map[string]string `json:"labels"`
}

var (
	errTestNotFound = errors.New("release: not found")
	errTestExists   = errors.New("release: already exists")
)

type testCodec struct{}

func (testCodec) EncodeJSON(w io.Writer, r *testRelease) error {
	return json.NewEncoder(w).Encode(&testPayload{testRelease: *r, Labels: r.Labels})
}

func (testCodec) DecodeJSON(js []byte) (*testRelease, map[string]string, error) {
	var p testPayload
	if err := unmarshalJSON(js, &p); err != nil {
		return nil, nil, err
	}
	return &p.testRelease, p.Labels, nil
}

func (testCodec) SetLabels(r *testRelease, labels map[string]string) { r.Labels = labels }
func (testCodec) NotFound() error                                    { return errTestNotFound }
func (testCodec) Exists() error                                      { return errTestExists }

func (testCodec) Fields(r *testRelease) Fields {
	f := Fields{Name: r.Name, Version: r.Version, Labels: r.Labels}
	if r.Info != nil {
		f.HasInfo, f.Status = true, r.Info.Status
	}
	return f
}

// decodePayload decodes a payload into a testRelease under the bounds given.
func decodePayload(r io.Reader, maxDecoded, sizeHint int64) (*testRelease, error) {
	rls, _, _, err := decodePayloadInfo[testRelease](testCodec{}, r, maxDecoded, fixedSize(sizeHint), nil)
	return rls, err
}
