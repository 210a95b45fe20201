package faultproxy_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/internal/faultproxy"
)

// upstream is a stand-in API server that answers every request with its method and
// counts what reached it.
func upstream(t *testing.T) (*rest.Config, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat(r.Method+" "+r.URL.Path+"\n", 100))
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}, &n
}

func get(t *testing.T, c *http.Client, method, url string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestFaults(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		name := "http"
		if useTLS {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) {
			up, reached := upstream(t)
			p, err := faultproxy.New(up, faultproxy.Options{TLS: useTLS})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			rt, err := rest.TransportFor(p.Config())
			if err != nil {
				t.Fatal(err)
			}
			c := &http.Client{Transport: rt, Timeout: 2 * time.Second}
			u := p.URL() + "/api/v1/namespaces/x/secrets"

			// The 2nd mutating request gets a 500, and never reaches the server.
			p.SetRule(faultproxy.Rule{Kind: faultproxy.Status500, K: 2, MutatingOnly: true})
			for i, want := range []int{200, 200, 200, 500, 200} {
				method := []string{"POST", "GET", "GET", "PUT", "DELETE"}[i]
				code, _, err := get(t, c, method, u)
				if err != nil || code != want {
					t.Fatalf("request %d (%s): %d, %v; want %d", i+1, method, code, err, want)
				}
			}
			if reached.Load() != 4 || p.Fired() != 1 || len(p.Mutating()) != 3 || len(p.ForwardedMutating()) != 2 {
				t.Errorf("reached %d, fired %d, log %v", reached.Load(), p.Fired(), p.Requests())
			}

			p.SetRule(faultproxy.Rule{Kind: faultproxy.Status429, K: 1, RetryAfter: 1})
			if code, _, err := get(t, c, "GET", u); code != 429 || err != nil {
				t.Errorf("429: %d, %v", code, err)
			}

			// Cut mid-response: the server applied it, the client sees a broken body.
			reached.Store(0)
			p.SetRule(faultproxy.Rule{Kind: faultproxy.CloseMidResponse, K: 1})
			_, body, err := get(t, c, "POST", u)
			if !errors.Is(err, io.ErrUnexpectedEOF) || reached.Load() != 1 {
				t.Errorf("cut: err %v, %d bytes, reached %d", err, len(body), reached.Load())
			}

			// Held past the client's timeout: applied, but the client gives up.
			reached.Store(0)
			p.SetRule(faultproxy.Rule{Kind: faultproxy.Delay, K: 1, Delay: 10 * time.Second})
			// The client gives up at its own timeout (2 s), not when the proxy
			// answers (10 s): the error says it timed out.
			var timeout net.Error
			if _, _, err := get(t, c, "DELETE", u); !errors.As(err, &timeout) || !timeout.Timeout() || reached.Load() != 1 {
				t.Errorf("delay: err %v, want the client's timeout; reached %d", err, reached.Load())
			}

			// A status of choice, never forwarded.
			reached.Store(0)
			p.SetRule(faultproxy.Rule{Kind: faultproxy.Status, Code: http.StatusMethodNotAllowed, Match: func(r *http.Request) bool { return r.URL.Query().Get("watch") == "true" }})
			code, body, err := get(t, c, "GET", u+"?watch=true")
			if err != nil || code != http.StatusMethodNotAllowed || !strings.Contains(body, `"reason":"MethodNotAllowed"`) || reached.Load() != 0 || p.Fired() != 1 {
				t.Errorf("status: %d %q, %v, reached %d, fired %d", code, body, err, reached.Load(), p.Fired())
			}
			if code, _, err := get(t, c, "GET", u); err != nil || code != 200 || reached.Load() != 1 || p.Fired() != 1 {
				t.Errorf("status, unmatched request: %d, %v, reached %d, fired %d", code, err, reached.Load(), p.Fired())
			}

			// A watch expired as the API server expires one, never forwarded.
			reached.Store(0)
			p.SetRule(faultproxy.Rule{Kind: faultproxy.ExpireWatch, K: 1})
			code, body, err = get(t, c, "GET", u+"?watch=true&resourceVersion=7")
			if err != nil || code != 200 || !strings.Contains(body, `"type":"ERROR"`) || !strings.Contains(body, `"code":410`) ||
				!strings.Contains(body, "too old resource version: 7") || reached.Load() != 0 || p.Fired() != 1 {
				t.Errorf("expire watch: %d %q, %v, reached %d, fired %d", code, body, err, reached.Load(), p.Fired())
			}

			// Refused: this request and the next fail to connect; Reopen restores.
			p.SetRule(faultproxy.Rule{Kind: faultproxy.Refuse, K: 1})
			if _, _, err := get(t, c, "PATCH", u); err == nil {
				t.Error("refused request succeeded")
			}
			c2, _ := rest.TransportFor(p.Config())
			if _, _, err := get(t, &http.Client{Transport: c2, Timeout: 2 * time.Second}, "GET", u); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("after refuse: %v, want connection refused", err)
			}
			if err := p.Reopen(); err != nil {
				t.Fatal(err)
			}
			p.Reset()
			if code, _, err := get(t, c, "GET", u); code != 200 || err != nil {
				t.Errorf("after reopen: %d, %v", code, err)
			}
		})
	}
}
