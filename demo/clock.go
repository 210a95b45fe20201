package demo

import "time"

// Clock is a demo's clock: the moment its samples lead up to (the Now they were
// seeded with), moved on by the time since the demo started. A demo read back
// from a snapshot (Snapshots.Start) shows what a freshly seeded one shows, the
// same ages, leases and "in flight" windows, but for the absolute dates, which
// are the snapshot's. Everything the demo dates or measures an age with must
// read it: the cluster's creationTimestamps, the chunked driver's labels and
// lease, the client's and the CLI's Now, the view's, the operator's releases.
type Clock struct {
	made, start time.Time
	base        func() time.Time
}

// NewClock returns a clock that reads made now and moves on as base does;
// a nil base is time.Now. Tests give a fixed base, which stops the clock at
// made.
func NewClock(made time.Time, base func() time.Time) *Clock {
	if base == nil {
		base = time.Now
	}
	return &Clock{made: made, start: base(), base: base}
}

// Now is made plus the time base has moved on since NewClock.
func (c *Clock) Now() time.Time { return c.made.Add(c.base().Sub(c.start)) }

// Made is the moment the samples lead up to.
func (c *Clock) Made() time.Time { return c.made }
