package faultproxy

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
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
