package kube

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// readOnlyTransport refuses every request that could change the cluster before it
// leaves the process. Being on the connection, below every operation, no code path
// can bypass it.
type readOnlyTransport struct{ next http.RoundTripper }

func (t readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return t.next.RoundTrip(req)
	}
	return nil, fmt.Errorf("%w: refused %s %s", ErrReadOnly, req.Method, req.URL.Path)
}

// ReadOnly makes cfg's connections refuse every mutating request.
func ReadOnly(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnlyTransport{rt} })
}

// Stats counts what crosses a connection: requests by method and bytes received.
// Safe for concurrent use.
type Stats struct {
	mu       sync.Mutex
	byMethod map[string]int
	calls    []string
	received atomic.Int64
}

// maxCalls bounds the requests Calls keeps.
const maxCalls = 10_000

// Calls returns the requests sent, in order, as "GET /api/v1/...?query", with
// " (metadata)" after those that asked for metadata only: what a test or a
// benchmark reads to count the requests of one kind. It keeps the first maxCalls.
func (s *Stats) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Requests returns the number of requests sent, by HTTP method.
func (s *Stats) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.byMethod))
	for k, v := range s.byMethod {
		out[k] = v
	}
	return out
}

// Total returns the number of requests sent.
func (s *Stats) Total() int {
	n := 0
	for _, v := range s.Requests() {
		n += v
	}
	return n
}

// Mutating returns the number of requests sent that could change the cluster.
func (s *Stats) Mutating() int {
	n := 0
	for m, v := range s.Requests() {
		if m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions {
			n += v
		}
	}
	return n
}

// BytesReceived returns the response body bytes received.
func (s *Stats) BytesReceived() int64 { return s.received.Load() }

// Count makes cfg's connections report to s. Apply it before ReadOnly: wrappers
// applied later sit further from the wire, so requests that ReadOnly refuses never
// reach the counter, just as they never reach the server.
func (s *Stats) Count(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, s: s} })
}

type countingTransport struct {
	next http.RoundTripper
	s    *Stats
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.s.mu.Lock()
	if t.s.byMethod == nil {
		t.s.byMethod = map[string]int{}
	}
	t.s.byMethod[req.Method]++
	if len(t.s.calls) < maxCalls {
		call := req.Method + " " + req.URL.Path + "?" + req.URL.RawQuery
		if strings.Contains(req.Header.Get("Accept"), "PartialObjectMetadata") {
			call += " (metadata)"
		}
		t.s.calls = append(t.s.calls, call)
	}
	t.s.mu.Unlock()
	resp, err := t.next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.s.received}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
