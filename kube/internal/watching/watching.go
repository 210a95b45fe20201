// Package watching holds what kube's watches of release records and
// kube/live's watches of release objects share: the backoff of a watch that
// keeps breaking, the wait between tries, and the errors that mean the server
// will not serve a watch at all.
package watching

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Backoff of a watch that keeps breaking.
const (
	BackoffMin = 500 * time.Millisecond
	BackoffMax = 30 * time.Second
)

// Refused reports whether the server will not serve the watch at all.
func Refused(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) ||
		apierrors.ReasonForError(err) == metav1.StatusReasonMethodNotAllowed ||
		statusCode(err) == http.StatusMethodNotAllowed
}

func statusCode(err error) int32 {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Code
	}
	return 0
}

// ShortReason is the status code and reason of err, or its text.
func ShortReason(err error) string {
	if st := statusCode(err); st != 0 {
		return fmt.Sprintf("%d %s", st, apierrors.ReasonForError(err))
	}
	return err.Error()
}

// Sleep waits d, or until ctx is done; it reports whether the wait ended by time.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
