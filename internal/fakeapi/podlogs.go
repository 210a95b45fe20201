package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	restclient "k8s.io/client-go/rest"
	fakerest "k8s.io/client-go/rest/fake"
)

// pods is the Pods client with GetLogs served from the cluster's logs (see
// SetLog): client-go's fake answers every log request with "fake logs" and
// does not tell its reactors which Pod was asked for.
type pods struct {
	corev1client.PodInterface
	cluster *Cluster
	ns      string
}

// Pods returns the Pods client for namespace, its logs served by the cluster.
func (c coreV1) Pods(namespace string) corev1client.PodInterface {
	return pods{PodInterface: c.CoreV1Interface.Pods(namespace), cluster: c.cluster, ns: namespace}
}

// GetLogs returns a request that reads the log as the API server serves it: the
// text, or on failure the server's Status with its code, which client-go turns
// into the same error as from a real server.
func (p pods) GetLogs(name string, opts *corev1.PodLogOptions) *restclient.Request {
	if opts == nil {
		opts = &corev1.PodLogOptions{}
	}
	client := &fakerest.RESTClient{
		Client: fakerest.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			if err := live(req.Context(), VerbGet, "pods/log"); err != nil {
				return nil, err
			}
			b, err := p.log(req.Context(), name, opts)
			if err != nil {
				return statusResponse(err)
			}
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/plain"}}, Body: io.NopCloser(bytes.NewReader(b))}, nil
		}),
		NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
		GroupVersion:         corev1.SchemeGroupVersion,
		VersionedAPIPath:     fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/log", p.ns, name),
	}
	return client.Request()
}

// log counts, authorizes and serves one log request.
func (p pods) log(_ context.Context, name string, opts *corev1.PodLogOptions) ([]byte, error) {
	if err := p.cluster.begin(VerbGet); err != nil {
		return nil, err
	}
	if err := p.cluster.authorize(p.ns, VerbGet, corev1.SchemeGroupVersion.WithResource("pods/log").GroupResource(), name); err != nil {
		return nil, err
	}
	return p.cluster.podLog(p.ns, name, opts)
}

// statusResponse is err as the API server answers it: its Status, as JSON,
// with its code.
func statusResponse(err error) (*http.Response, error) {
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		st = apierrors.NewInternalError(err)
	}
	s := st.Status()
	s.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	b, jerr := json.Marshal(s)
	if jerr != nil {
		return nil, jerr
	}
	return &http.Response{StatusCode: int(s.Code), Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b))}, nil
}
