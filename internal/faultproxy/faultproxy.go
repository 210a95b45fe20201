// Package faultproxy is a loopback reverse proxy that sits between chunkview and a
// test API server and breaks chosen requests the way real networks and servers do:
// an error status, a connection cut mid-response, a response held past the client's
// timeout, or a server that stops accepting connections. Tests point a kubeconfig (or
// a rest.Config) at it and count what reached the server.
//
// The proxy serves plain HTTP/1.1 on 127.0.0.1 (or TLS with a throwaway certificate)
// and forwards with a transport built from the upstream rest.Config, so it
// authenticates as whoever that config is; clients need no credentials of their own.
package faultproxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kind is what a fault does to the request it hits.
type Kind int

// The faults.
const (
	// None forwards the request untouched.
	None Kind = iota
	// Status500 answers 500 Internal Server Error without forwarding: the server
	// never sees the request.
	Status500
	// Status429 answers 429 Too Many Requests without forwarding (with a
	// Retry-After header when Rule.RetryAfter is set, which makes client-go retry).
	Status429
	// CloseMidResponse forwards the request, so the server applies it, then writes
	// the status line, the headers and half the body, and closes the connection.
	CloseMidResponse
	// Delay forwards the request, so the server applies it, then holds the response
	// for Rule.Delay (or until the client gives up) before writing it.
	Delay
	// Refuse closes the listener and every open connection when the request
	// arrives, without answering it: this request and every later one fail to
	// connect, until Reopen.
	Refuse
	// Status answers Rule.Code (405 from a proxy that does not serve watch, 410
	// Gone, ...) with a Status body, without forwarding.
	Status
	// ExpireWatch answers a watch, without forwarding it, as the API server
	// answers one from a resourceVersion it has compacted away: 200, then an
	// ERROR event carrying 410 Expired ("too old resource version"), and the end
	// of the stream.
	ExpireWatch
)

var kindNames = map[Kind]string{None: "none", Status500: "500", Status429: "429", CloseMidResponse: "close-mid-response", Delay: "delay", Refuse: "refuse", Status: "status", ExpireWatch: "expire-watch"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Rule says which request to break and how.
type Rule struct {
	Kind Kind
	// K is the 1-based number of the request to break, counted among the requests
	// the rule matches (all, or only mutating ones) since SetRule. Zero breaks
	// every matching request.
	K int
	// MutatingOnly counts and breaks only requests that can change the cluster
	// (any method but GET, HEAD and OPTIONS).
	MutatingOnly bool
	// Match, when set, further limits the requests counted and broken.
	Match func(*http.Request) bool
	// Delay is how long Delay holds a response.
	Delay time.Duration
	// RetryAfter, for Status429, is the Retry-After header in seconds; 0 sends none.
	RetryAfter int
	// Code is the status Status answers.
	Code int
}

func (r Rule) String() string {
	s := r.Kind.String()
	if r.MutatingOnly {
		s += " on mutating request"
	} else {
		s += " on request"
	}
	if r.K == 0 {
		s += " (every one)"
	} else {
		s = fmt.Sprintf("%s #%d", s, r.K)
	}
	if r.Kind == Status429 && r.RetryAfter > 0 {
		s += fmt.Sprintf(" with Retry-After %ds", r.RetryAfter)
	}
	if r.Kind == Status {
		s += fmt.Sprintf(" answering %d", r.Code)
	}
	return s
}

// Request is one request as it reached the proxy.
type Request struct {
	Method string
	Path   string
	Query  string
	// Fault is the fault applied to it (None when it was forwarded untouched).
	Fault Kind
	// Forwarded tells whether the request was passed to the server.
	Forwarded bool
	// UserAgent is the request's User-Agent header, which the proxy passes on
	// as it came: what an audit log records of the client.
	UserAgent string
}

func (r Request) String() string {
	s := r.Method + " " + r.Path
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Fault != None {
		s += " [" + r.Fault.String() + "]"
	}
	return s
}

// Mutating reports whether r could change the cluster.
func (r Request) Mutating() bool { return IsMutating(r.Method) }

// IsMutating reports whether an HTTP method can change the cluster.
func IsMutating(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// Options configure a Proxy.
type Options struct {
	// TLS serves HTTPS with a throwaway certificate instead of plain HTTP.
	TLS bool
}

// Proxy is a running fault proxy. Its methods are safe for concurrent use.
type Proxy struct {
	upstream *url.URL
	rt       http.RoundTripper
	tls      bool
	server   *httptest.Server
	addr     string

	mu      sync.Mutex
	rule    Rule
	matched int
	fired   int
	reqs    []Request
	conns   map[net.Conn]bool
	closed  bool
	refused bool
}

// New starts a proxy in front of the API server upstream describes, forwarding as
// upstream's user. Close it when done.
func New(upstream *rest.Config, opts Options) (*Proxy, error) {
	rc := rest.CopyConfig(upstream)
	// The proxy forwards every request once; client-go's own rate limit would only
	// slow the tests that count.
	rc.QPS, rc.Burst = 10000, 20000
	rt, err := rest.TransportFor(rc)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: transport for %s: %w", upstream.Host, err)
	}
	host := upstream.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream host %q: %w", upstream.Host, err)
	}
	p := &Proxy{upstream: u, rt: rt, tls: opts.TLS, conns: map[net.Conn]bool{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	srv.Config.ConnState = p.track
	// HTTP/1.1 only: a connection can be hijacked and cut.
	srv.Config.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	srv.EnableHTTP2 = false
	if opts.TLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	p.server = srv
	p.addr = srv.Listener.Addr().String()
	return p, nil
}

// URL returns the proxy's base URL.
func (p *Proxy) URL() string {
	if p.tls {
		return "https://" + p.addr
	}
	return "http://" + p.addr
}

// Config returns a REST config that reaches the server through the proxy, with no
// credentials of its own.
func (p *Proxy) Config() *rest.Config {
	rc := &rest.Config{Host: p.URL(), QPS: 1000, Burst: 2000}
	if p.tls {
		rc.TLSClientConfig.Insecure = true
	}
	return rc
}

// WriteKubeconfig writes a kubeconfig whose only context reaches the server through
// the proxy, with namespace as its namespace, into dir, and returns its path.
func (p *Proxy) WriteKubeconfig(dir, namespace string) (string, error) {
	kc := clientcmdapi.NewConfig()
	cl := &clientcmdapi.Cluster{Server: p.URL()}
	if p.tls {
		cl.InsecureSkipTLSVerify = true
	}
	kc.Clusters["faultproxy"] = cl
	kc.AuthInfos["faultproxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["faultproxy"] = &clientcmdapi.Context{Cluster: "faultproxy", AuthInfo: "faultproxy", Namespace: namespace}
	kc.CurrentContext = "faultproxy"
	path := filepath.Join(dir, "kubeconfig-faultproxy")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return "", fmt.Errorf("faultproxy: write kubeconfig: %w", err)
	}
	return path, nil
}

// SetRule replaces the rule and resets the request count the rule's K refers to,
// and the log. Reopen first if an earlier Refuse closed the listener.
func (p *Proxy) SetRule(r Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rule, p.matched, p.fired, p.reqs = r, 0, 0, nil
}

// Reset removes the rule and clears the log.
func (p *Proxy) Reset() { p.SetRule(Rule{}) }

// Fired returns how many requests the rule has broken since SetRule.
func (p *Proxy) Fired() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired
}

// Requests returns the requests seen since SetRule, in arrival order.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.reqs...)
}

// Count returns the number of requests seen since SetRule.
func (p *Proxy) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}

// Mutating returns the requests seen since SetRule that could change the cluster.
func (p *Proxy) Mutating() []Request {
	var out []Request
	for _, r := range p.Requests() {
		if r.Mutating() {
			out = append(out, r)
		}
	}
	return out
}

// ForwardedMutating returns the mutating requests that reached the server.
func (p *Proxy) ForwardedMutating() []Request {
	var out []Request
	for _, r := range p.Mutating() {
		if r.Forwarded {
			out = append(out, r)
		}
	}
	return out
}

// Refused reports whether a Refuse fault has closed the listener.
func (p *Proxy) Refused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Reopen listens again on the same address after a Refuse fault.
func (p *Proxy) Reopen() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.refused || p.closed {
		// Closed: Close reads the listener without the lock; leave it be.
		return nil
	}
	var (
		l   net.Listener
		err error
	)
	// The port was just released; another process could take it, but on loopback
	// in a test that does not happen. Retry briefly while the old socket closes.
	for i := 0; i < 50; i++ {
		if l, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("faultproxy: listen again on %s: %w", p.addr, err)
	}
	if p.tls {
		l = tls.NewListener(l, p.server.TLS)
	}
	p.refused = false
	p.server.Listener = l
	go func() { _ = p.server.Config.Serve(l) }()
	return nil
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.server.CloseClientConnections()
	p.server.Close()
}

func (p *Proxy) track(c net.Conn, st http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st {
	case http.StateNew:
		if p.refused {
			_ = c.Close()
			return
		}
		p.conns[c] = true
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

// decide logs r and returns the fault to apply to it.
func (p *Proxy) decide(r *http.Request) (Kind, Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rule := p.rule
	kind := None
	if rule.Kind != None && (!rule.MutatingOnly || IsMutating(r.Method)) && (rule.Match == nil || rule.Match(r)) {
		p.matched++
		if rule.K == 0 || p.matched == rule.K {
			kind = rule.Kind
			p.fired++
		}
	}
	p.reqs = append(p.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Fault: kind, Forwarded: kind != Status500 && kind != Status429 && kind != Refuse && kind != Status && kind != ExpireWatch,
		UserAgent: r.UserAgent()})
	return kind, rule
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	kind, rule := p.decide(r)
	switch kind {
	case Status500:
		writeStatus(w, http.StatusInternalServerError, "InternalError", "faultproxy: injected internal error", 0)
		return
	case Status429:
		writeStatus(w, http.StatusTooManyRequests, "TooManyRequests", "faultproxy: injected too many requests", rule.RetryAfter)
		return
	case Refuse:
		p.refuse()
		hijackAndClose(w)
		return
	case Status:
		writeStatus(w, rule.Code, statusReason(rule.Code), fmt.Sprintf("faultproxy: injected %d", rule.Code), 0)
		return
	case ExpireWatch:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":"Expired","code":410}}`+"\n",
			"too old resource version: "+r.URL.Query().Get("resourceVersion")+" (faultproxy)")
		return
	}

	resp, err := p.forward(r, kind == Delay || kind == CloseMidResponse)
	if err != nil {
		writeStatus(w, http.StatusBadGateway, "InternalError", "faultproxy: upstream: "+err.Error(), 0)
		return
	}
	defer resp.Body.Close()

	switch kind {
	case Delay:
		t := time.NewTimer(rule.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	case CloseMidResponse:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		p.cut(w, resp, body)
		return
	}
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	// As the API server does: a watch's headers go out before its first event,
	// which may be a minute away.
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	flushCopy(w, resp.Body)
}

// forward sends r to the server. detached requests run on a context of their own,
// so that a client giving up (as a delayed one does) does not stop the server from
// applying them.
func (p *Proxy) forward(r *http.Request, detached bool) (*http.Response, error) {
	u := *p.upstream
	u.Path = r.URL.Path
	u.RawPath = r.URL.RawPath
	u.RawQuery = r.URL.RawQuery
	var body io.Reader
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	parent := r.Context()
	if detached {
		parent = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithTimeout(parent, 60*time.Second)
	out, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		cancel()
		return nil, err
	}
	copyHeader(out.Header, r.Header)
	out.Header.Del("Authorization")
	out.Header.Del("Connection")
	// Leave compression to the transport, which then also decompresses.
	out.Header.Del("Accept-Encoding")
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody releases a forwarded request's context once its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// cut writes resp's status line, headers and half of body straight onto the
// client's connection, and closes it.
func (p *Proxy) cut(w http.ResponseWriter, resp *http.Response, body []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faultproxy: connection cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	h := resp.Header.Clone()
	h.Del("Transfer-Encoding")
	h.Del("Content-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_ = h.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:len(body)/2])
	_ = buf.Flush()
}

// refuse closes the listener and every connection.
func (p *Proxy) refuse() {
	p.mu.Lock()
	if p.refused || p.closed {
		p.mu.Unlock()
		return
	}
	p.refused = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	// Reopen replaces the listener under the lock: take this one under it too.
	l := p.server.Listener
	p.mu.Unlock()
	_ = l.Close()
	for _, c := range conns {
		_ = c.Close()
	}
}

func hijackAndClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

// statusReason is the reason the API server gives with code.
func statusReason(code int) string {
	switch code {
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowed"
	case http.StatusGone:
		return "Expired"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	}
	return "InternalError"
}

func writeStatus(w http.ResponseWriter, code int, reason, msg string, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Content-Length": true,
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		if hopHeaders[http.CanonicalHeaderKey(k)] {
			continue
		}
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

// flushCopy copies a response body, flushing as it goes, so watches stream.
func flushCopy(w http.ResponseWriter, r io.Reader) {
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
