package faultproxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// How the proxy serves a request: it logs it, decides its fault, and forwards it,
// breaks it or cuts its answer.

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
