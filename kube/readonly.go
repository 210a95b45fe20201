package kube

import (
	"fmt"
	"strings"
)

// checkWritable refuses what under --read-only.
func (c *Client) checkWritable(what string) error {
	if c.cfg.ReadOnly {
		return ReadOnlyError(what)
	}
	return nil
}

// ReadOnlyError is the refusal of what (an operation's verb) on a connection
// started with --read-only; it wraps ErrReadOnly.
func ReadOnlyError(what string) error {
	return fmt.Errorf("%w: %s is disabled (started with --read-only)", ErrReadOnly, what)
}

// firstLine returns s up to its first newline, at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
