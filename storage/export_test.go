package storage

import "time"

// SetClock makes c take the time of its writes from now, so that tests can pin the
// createdAt and modifiedAt labels.
func SetClock(c *ChunkedSecrets, now func() time.Time) { c.now = now }
