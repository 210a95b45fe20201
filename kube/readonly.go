package kube

import (
	"fmt"
)

// checkWritable refuses what under --read-only.
func (cfg Config) checkWritable(what string) error {
	if cfg.ReadOnly {
		return ReadOnlyError(what)
	}
	return nil
}

// ReadOnlyError is the refusal of what (an operation's verb) on a connection
// started with --read-only; it wraps ErrReadOnly.
func ReadOnlyError(what string) error {
	return fmt.Errorf("%w: %s is disabled (started with --read-only)", ErrReadOnly, what)
}
