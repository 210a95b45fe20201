package helm4

import (
	"encoding/json"
	"io"

	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage/chunked"
)

// codec is the chunked.Codec of Helm 4's release type: its JSON as Helm 4 encodes
// it, with the format's "labels" after it. Every field Helm 4 writes (apply_method,
// info.rollback_revision, the chart's, its files' and templates' modtime,
// schemamodtime) is a field of rspb.Release, so it survives a write and a read as
// Helm 4 itself encodes it.
type codec struct{}

var _ chunked.Codec[rspb.Release] = codec{}

// payload is the JSON document of the format: Helm 4's release, whose Labels
// Helm does not serialize, and the custom labels under "labels".
type payload struct {
	rspb.Release
	Labels map[string]string `json:"labels"`
}

func (codec) EncodeJSON(w io.Writer, rls *rspb.Release) error {
	return json.NewEncoder(w).Encode(&payload{Release: *rls, Labels: rls.Labels})
}

func (codec) DecodeJSON(js []byte) (*rspb.Release, map[string]string, error) {
	var p payload
	if err := chunked.UnmarshalJSON(js, &p); err != nil {
		return nil, nil, err
	}
	return &p.Release, p.Labels, nil
}

func (codec) SetLabels(rls *rspb.Release, labels map[string]string) { rls.Labels = labels }

func (codec) NotFound() error { return driver.ErrReleaseNotFound }
func (codec) Exists() error   { return driver.ErrReleaseExists }

func (codec) Fields(rls *rspb.Release) chunked.Fields {
	f := chunked.Fields{Name: rls.Name, Version: rls.Version, Labels: rls.Labels}
	f.Summary.Namespace = rls.Namespace
	if rls.Chart != nil && rls.Chart.Metadata != nil {
		f.Summary.Chart = rls.Chart.Metadata.Name
		f.Summary.ChartVersion = rls.Chart.Metadata.Version
		f.Summary.AppVersion = rls.Chart.Metadata.AppVersion
	}
	if rls.Info != nil {
		f.HasInfo, f.Status = true, rls.Info.Status.String()
		f.Summary.Description = rls.Info.Description
		f.Summary.LastDeployed = rls.Info.LastDeployed
	}
	return f
}
