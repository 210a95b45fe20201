package common

import (
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
)

// TestClockIsTheClients: without a clock of its own the view reads its
// client's (the demo's starts at its snapshot's moment), and follows the
// client when the view switches contexts; a clock given stays.
func TestClockIsTheClients(t *testing.T) {
	at := func(t time.Time) func() time.Time { return func() time.Time { return t } }
	t1, t2 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 6, 7, 8, 9, 10, 0, time.UTC)
	c := New(t.Context(), kube.New(nil, nil, nil, kube.Config{Now: at(t1)}), nil)
	if got := c.Now(); !got.Equal(t1) {
		t.Errorf("view clock %v, want the client's %v", got, t1)
	}
	c.SetClient(kube.New(nil, nil, nil, kube.Config{Now: at(t2)}))
	if got := c.Now(); !got.Equal(t2) {
		t.Errorf("after the switch: %v, want the new client's %v", got, t2)
	}
	fixed := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	c = New(t.Context(), kube.New(nil, nil, nil, kube.Config{Now: at(t1)}), at(fixed))
	c.SetClient(kube.New(nil, nil, nil, kube.Config{Now: at(t2)}))
	if got := c.Now(); !got.Equal(fixed) {
		t.Errorf("a clock given: %v, want %v", got, fixed)
	}
}
