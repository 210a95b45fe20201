package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/storage/chunked"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
)

var _ driver.Driver = (*ChunkedSecrets)(nil)

// ChunkedSecrets is the chunked Secret release driver for Helm 3: Helm 3's
// driver.Driver over the Core every Helm shares. See the package documentation
// for the format and its guarantees. It is safe for concurrent use; the versions
// it has read (see Expect) are shared by the copies WithContext makes.
type ChunkedSecrets struct {
	*chunked.Core[release.Release]
}

// ChunkedSecretsConfig configures a ChunkedSecrets driver, with the fields of
// helm-operator-plugins' configuration of the same name and chunkview's own: it
// is storage/chunked's Config, which Helm 4's driver (storage/helm4) takes too.
type ChunkedSecretsConfig = chunked.Config

// NewChunkedSecrets returns a chunked release driver that stores releases of owner
// through client. It is a drop-in for helm-operator-plugins' storage.NewChunkedSecrets.
func NewChunkedSecrets(client corev1client.SecretInterface, owner string, cfg ChunkedSecretsConfig) driver.Driver {
	return NewDriver(client, owner, cfg)
}

// NewDriver is NewChunkedSecrets returning the concrete type, for callers that also
// use its inspection and repair methods.
func NewDriver(client corev1client.SecretInterface, owner string, cfg ChunkedSecretsConfig) *ChunkedSecrets {
	return &ChunkedSecrets{Core: chunked.NewCore[release.Release](client, owner, cfg, helm3Codec{})}
}

// WithContext returns a copy of c whose calls run under ctx, so that a caller can
// cancel them. Driver methods have no context argument of their own.
func (c *ChunkedSecrets) WithContext(ctx context.Context) *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.WithContext(ctx)}
}

// Expect returns a copy of c whose reads and writes hold release's records to the
// given resourceVersions (key -> index resourceVersion); see Core.Expect.
func (c *ChunkedSecrets) Expect(release string, records map[string]string) *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.Expect(release, records)}
}

// Fresh returns a copy of c that has read nothing yet: its writes take their
// preconditions from the record as they find it.
func (c *ChunkedSecrets) Fresh() *ChunkedSecrets {
	return &ChunkedSecrets{Core: c.Core.Fresh()}
}

// DecodeStats is Decode that also returns the record's summary (the release's chart
// and versions, its stored (gzip) size and its chunk count) and what the payload
// holds that Helm 3's release type does not: a record a newer Helm wrote decodes
// without error, but Helm 3 would drop those fields when it writes the release
// back. Finding them takes a second pass over the JSON, which Get, List and Query,
// Helm's reads, do not make.
func (c *ChunkedSecrets) DecodeStats(ctx context.Context, index *corev1.Secret) (*release.Release, Summary, DecodeInfo, error) {
	rls, stored, idx, info, err := c.DecodeWalk(ctx, index, payloadType)
	if err != nil {
		return nil, Summary{}, DecodeInfo{}, err
	}
	sum := SummaryOf(rls)
	sum.StoredBytes = stored
	names, _ := ParseExtraChunks(idx.Name, idx.Data[DataExtraChunks])
	sum.Chunks = 1 + len(names)
	return rls, sum, info, nil
}

// helm3Codec is the Codec of Helm 3's release type.
type helm3Codec struct{}

// payload is the JSON document stored by the format: a Helm release plus its custom
// labels, which release.Release itself does not serialize.
type payload struct {
	release.Release
	Labels map[string]string `json:"labels"`
}

// payloadType is the type whose JSON fields a chunked payload is compared with:
// Helm 3's release plus the format's "labels".
var payloadType = reflect.TypeFor[payload]()

func (helm3Codec) EncodeJSON(w io.Writer, rls *release.Release) error {
	return json.NewEncoder(w).Encode(&payload{Release: *rls, Labels: rls.Labels})
}

func (helm3Codec) DecodeJSON(js []byte) (*release.Release, map[string]string, error) {
	var p payload
	if err := chunked.UnmarshalJSON(js, &p); err != nil {
		return nil, nil, err
	}
	return &p.Release, p.Labels, nil
}

func (helm3Codec) SetLabels(rls *release.Release, labels map[string]string) { rls.Labels = labels }

func (helm3Codec) NotFound() error { return driver.ErrReleaseNotFound }
func (helm3Codec) Exists() error   { return driver.ErrReleaseExists }

func (helm3Codec) Fields(rls *release.Release) Fields {
	f := Fields{Name: rls.Name, Version: rls.Version, Labels: rls.Labels, Summary: SummaryOf(rls)}
	if rls.Info != nil {
		f.HasInfo, f.Status = true, rls.Info.Status.String()
	}
	return f
}

// EncodePayload returns the gzip stream stored for rls and the length of the JSON it
// compresses.
func EncodePayload(rls *release.Release) (gz []byte, jsonLen int, err error) {
	if rls == nil {
		return nil, 0, errors.New("encode: nil release")
	}
	js, err := chunked.EncodeJSON[release.Release](helm3Codec{}, rls)
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	buf.Grow(len(js) / 4)
	if err := chunked.Compress(&buf, js); err != nil {
		return nil, 0, fmt.Errorf("compress release %q: %w", rls.Name, err)
	}
	return buf.Bytes(), len(js), nil
}

// payloadJSONLen is the length of the JSON that EncodePayload compresses,
// without compressing it.
func payloadJSONLen(rls *release.Release) (int, error) {
	var cw countWriter
	if err := (helm3Codec{}).EncodeJSON(&cw, rls); err != nil {
		return 0, err
	}
	return cw.n, nil
}

// DecodePayload decompresses and decodes a payload read from r. It reads at most
// maxDecoded bytes of JSON (DefaultMaxDecodedBytes when maxDecoded <= 0) and returns
// the release with its custom labels, system labels removed.
func DecodePayload(r io.Reader, maxDecoded int64) (*release.Release, error) {
	return decodePayload(r, maxDecoded, 0)
}

// decodePayload is DecodePayload told how long the JSON should be (sizeHint, from
// the index's summary; 0 when unknown).
func decodePayload(r io.Reader, maxDecoded, sizeHint int64) (*release.Release, error) {
	return chunked.DecodePayload[release.Release](helm3Codec{}, r, maxDecoded, sizeHint)
}
