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
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

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
