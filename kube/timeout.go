package kube

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// DefaultRequestTimeout is how long one read waits for the API server's answer
// when --request-timeout is not given, in the CLI and the TUI alike.
const DefaultRequestTimeout = 10 * time.Second

// timeoutTransport gives up on a request the server does not answer within
// after. client-go's own Timeout (rest.Config.Timeout, what kubectl's
// --request-timeout sets) bounds a request to its last byte, so it cuts every
// watch after that time; here a watch is bounded until its response starts, and
// any other request until its body is read.
type timeoutTransport struct {
	next   http.RoundTripper
	after  time.Duration
	server string
	// writes bounds mutating requests too. Without it they wait: one cut short
	// may still be applied by the server, and an operation's next step would not
	// know.
	writes bool
}

// withRequestTimeout makes rc's connections give up on a request after d (none
// when d is 0); writes says whether mutating requests are bounded too. It
// replaces rc.Timeout, which would cut watches.
func withRequestTimeout(rc *rest.Config, d time.Duration, writes bool) {
	rc.Timeout = 0
	if d <= 0 {
		return
	}
	server := rc.Host
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &timeoutTransport{next: rt, after: d, server: server, writes: writes}
	})
}

// RoundTrip sends req under the timer, when it is one the timeout bounds.
func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.writes && !isRead(req.Method) {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	timer := &requestTimer{}
	timer.t = time.AfterFunc(t.after, func() {
		timer.mu.Lock()
		timer.fired = true
		timer.mu.Unlock()
		cancel()
	})
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.stop()
		cancel()
		if timer.hasFired() {
			return nil, t.timeoutError()
		}
		return nil, err
	}
	if isWatchRequest(req) {
		// The watch is open: from now on it lasts as long as the caller's
		// context, and its health is the watch's to judge.
		if !timer.stop() {
			resp.Body.Close()
			cancel()
			return nil, t.timeoutError()
		}
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, timer: timer, cancel: cancel, err: t.timeoutError}
	return resp, nil
}

func (t *timeoutTransport) timeoutError() error {
	return &RequestTimeoutError{Server: t.server, After: t.after}
}

// requestTimer is the timer of one request and whether it ran out.
type requestTimer struct {
	t     *time.Timer
	mu    sync.Mutex
	fired bool
}

// stop stops the timer and reports whether it stopped before running out.
func (r *requestTimer) stop() bool { return r.t.Stop() }

func (r *requestTimer) hasFired() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fired
}

// timedBody is the body of a request still under its timer: a read cut by the
// timer fails with the timeout's error, and Close ends the timer.
type timedBody struct {
	io.ReadCloser
	timer  *requestTimer
	cancel context.CancelFunc
	err    func() error
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.timer.hasFired() {
		return n, b.err()
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.timer.stop()
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// cancelOnClose releases a watch's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// isRead reports whether an HTTP method cannot change the cluster.
func isRead(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// isWatchRequest reports whether req opens a watch, whose response streams for
// as long as the watch lasts.
func isWatchRequest(req *http.Request) bool {
	switch req.URL.Query().Get("watch") {
	case "true", "1":
		return true
	}
	return false
}
