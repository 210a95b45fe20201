package kubetest

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is a bytes.Buffer safe to read while other goroutines write it: a
// command run in the background, or a log stream's goroutines.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits until the buffer holds want, and fails t after 20 seconds.
func (s *SyncBuffer) WaitFor(t testing.TB, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for %q; written: %q", want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
