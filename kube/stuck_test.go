package kube_test

import (
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
)

// TestStuck: a revision in flight for the bound or longer is stuck, for less
// it is in progress; any other status is neither, however old.
func TestStuck(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	after := 10 * time.Minute
	for _, tc := range []struct {
		status          string
		age             time.Duration
		stuck, progress bool
	}{
		{"pending-upgrade", after, true, false},
		{"pending-install", time.Hour, true, false},
		{"uninstalling", after + time.Second, true, false},
		{"pending-rollback", after - time.Second, false, true},
		{"pending-upgrade", 0, false, true},
		{"deployed", time.Hour, false, false},
		{"failed", 0, false, false},
	} {
		r := kube.RevisionRow{Status: tc.status, Updated: now.Add(-tc.age)}
		stuck, progress := kube.Stuck(r, now, after)
		if stuck != tc.stuck || progress != tc.progress {
			t.Errorf("%s for %s: stuck %v, in progress %v; want %v, %v", tc.status, tc.age, stuck, progress, tc.stuck, tc.progress)
		}
	}
}
