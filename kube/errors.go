package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/chunkview/chunkview/storage"
)

// Sentinel errors that Explain wraps, so callers can pick an exit code or a message.
var (
	ErrForbidden    = errors.New("forbidden")
	ErrUnauthorized = errors.New("credentials rejected")
	ErrUnreachable  = errors.New("API server unreachable")
	ErrTimeout      = errors.New("request timed out")
	ErrReadOnly     = errors.New("read-only mode")
	// ErrNoKubeconfig is returned when no kubeconfig file names a cluster to
	// reach: client-go would otherwise try localhost:8080 and report that
	// unreachable.
	ErrNoKubeconfig = errors.New("no kubeconfig found (KUBECONFIG, ~/.kube/config); try --demo")
)

// ErrNotFound is wrapped by errors about a release or revision that has no record.
var ErrNotFound = errors.New("not found")

// ErrPartial is wrapped by the error of a listing across all namespaces that could
// read only some of them; the rows that come with it are those of the namespaces it
// could read.
var ErrPartial = errors.New("only some namespaces could be read")

// ErrInProgress is wrapped by the error of an operation refused because another one
// is running on the release.
var ErrInProgress = errors.New("another operation is in progress on the release")

// ErrAmbiguous is wrapped by the error of a command naming a release that more
// than one store holds: it says which, and that --driver picks one.
var ErrAmbiguous = errors.New("release held by more than one store")

// forbiddenRE finds, in the message of a Forbidden answer from the API server's
// authorizer, the verb, resource, API group and namespace ("" at the cluster
// scope) refused.
var forbiddenRE = regexp.MustCompile(`cannot (\S+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)`)

// Explain turns an error from the API server or the connection into one that says
// what failed and what to do. verb, resource and namespace describe the request.
func Explain(err error, verb, resource, namespace string) error {
	if err == nil {
		return nil
	}
	where := "in namespace " + namespace
	if namespace == "" {
		where = "across all namespaces"
	}
	var ue *url.Error
	var rte *RequestTimeoutError
	switch {
	case errors.Is(err, ErrReadOnly):
		return err
	case errors.As(err, &rte):
		return fmt.Errorf("%w: %v while trying to %s %s %s. It may be overloaded, or a proxy or VPN on the way may hold the connection: retry, or raise --request-timeout",
			ErrTimeout, rte, verb, resource, where)
	case apierrors.IsForbidden(err):
		// The request refused may not be the one the caller named: an operation
		// makes several, and Helm's make requests on the release's resources too.
		// The server's message says which.
		if m := forbiddenRE.FindStringSubmatch(err.Error()); m != nil {
			verb, resource = m[1], m[2]
			if m[3] != "" {
				resource += "." + m[3]
			}
			if m[4] == "" && namespace != "" {
				// The caller named a namespace, the server refused a request at the
				// cluster scope (Helm's, on a cluster-scoped resource).
				return fmt.Errorf("%w: your credentials may not %s %s at the cluster scope. Ask for a ClusterRole granting %q on %q (kubectl auth can-i %s %s). Server said: %v",
					ErrForbidden, verb, resource, verb, resource, verb, resource, err)
			}
			if m[4] != "" {
				namespace, where = m[4], "in namespace "+m[4]
			}
		}
		return fmt.Errorf("%w: your credentials may not %s %s %s. Ask for a Role granting %q on %q (kubectl auth can-i %s %s -n %s). Server said: %v",
			ErrForbidden, verb, resource, where, verb, resource, verb, resource, orAll(namespace), err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w: the API server refused your credentials (expired token or certificate?). Log in again or refresh the kubeconfig entry, then retry: %v", ErrUnauthorized, err)
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || isNetTimeout(err):
		return fmt.Errorf("%w while trying to %s %s %s; the server may be overloaded or far away: retry, or raise --request-timeout: %v", ErrTimeout, verb, resource, where, err)
	case errors.Is(err, syscall.ECONNREFUSED) || isDNS(err) || errors.As(err, &ue) && isConnErr(ue.Err):
		return fmt.Errorf("%w: %v. Check --context/--kubeconfig and that the cluster (or VPN) is up, then retry", ErrUnreachable, err)
	case apierrors.IsTooManyRequests(err):
		return fmt.Errorf("the API server is throttling requests and refused to %s %s %s: wait a moment and retry: %w", verb, resource, where, err)
	case isServerError(err):
		return fmt.Errorf("the API server failed to %s %s %s: retry in a moment; if it keeps failing, check the API server's health: %w", verb, resource, where, err)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("%w: the connection broke while trying to %s %s %s: retry: %w", ErrUnreachable, verb, resource, where, err)
	}
	return err
}

// isServerError reports whether the API server answered with a 5xx status: the
// request may or may not have been applied, and trying again later may work.
func isServerError(err error) bool {
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Code >= 500 {
		return true
	}
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err)
}

func orAll(ns string) string {
	if ns == "" {
		return "<namespace> (or -A)"
	}
	return ns
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isDNS(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de)
}

func isConnErr(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "no such host") || strings.Contains(s, "connection reset")
}

// ErrChanged is wrapped by the error of an operation refused or stopped because the
// release changed after its plan was made: a revision was added, deleted or
// rewritten by another writer. It wraps storage.ErrConflict. Read the release again
// before deciding anew; never retry blindly.
var ErrChanged error = errChanged{}

type errChanged struct{}

func (errChanged) Error() string { return "the release changed while you were looking" }

func (errChanged) Unwrap() error { return storage.ErrConflict }

// RequestTimeoutError is the error of a request that the API server did not
// answer within the request timeout. Explain words it for the user; it names
// the server and the timeout, so a message read alone says where to look.
type RequestTimeoutError struct {
	// Server is the API server's address, as the kubeconfig gives it.
	Server string
	// After is the request timeout that ran out.
	After time.Duration
}

// Error names the server, the timeout and the flag that sets it.
func (e *RequestTimeoutError) Error() string {
	return fmt.Sprintf("the API server %s did not answer within %s (--request-timeout)", e.Server, e.After)
}

// Is makes a RequestTimeoutError an ErrTimeout. It has no Timeout method on
// purpose: client-go retries a watch whose error reads as a network timeout, up
// to ten times, which would multiply the wait the user asked for.
func (e *RequestTimeoutError) Is(target error) bool { return target == ErrTimeout }
