package kube

import (
	"fmt"
)

// ReadOnlyError is the refusal of what (an operation's verb) on a connection
// started with --read-only; it wraps ErrReadOnly.
func ReadOnlyError(what string) error {
	return fmt.Errorf("%w: %s is disabled (started with --read-only)", ErrReadOnly, what)
}
