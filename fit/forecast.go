package fit

import (
	"math"
)

// Forecast sets the Growth of every store in m, for the upgrade to revision rev
// of a release whose revisions took history in the store that holds it (oldest
// first, its latest last), and which would take ownBytes there.
//
// The growth is the history's, fitted as the history screen fits it
// (ProjectGrowth), with the upgrade as its newest point. Another store
// encodes the same records at another ratio (base64 of the gzip stream, or the
// stream alone): the history is scaled to it by the ratio of the upgrade's sizes
// in the two stores.
func Forecast(m *Measurement, ownBytes int64, history []SizePoint, rev int) {
	for i := range m.Stores {
		s := &m.Stores[i]
		ratio := 1.0
		if ownBytes > 0 {
			ratio = float64(s.StoredBytes) / float64(ownBytes)
		}
		points := make([]SizePoint, 0, len(history)+1)
		for _, p := range history {
			if p.Revision < rev && p.Bytes > 0 {
				points = append(points, SizePoint{Revision: p.Revision, Bytes: int64(math.Round(float64(p.Bytes) * ratio))})
			}
		}
		points = append(points, SizePoint{Revision: rev, Bytes: s.StoredBytes})
		g := ProjectGrowth(points, s.LimitBytes)
		if !s.Fits && g.RevisionsLeft != 0 {
			// Refused for a reason other than its size against the limit
			// (the index's room, the read limit): nothing after it fits.
			g.RevisionsLeft, g.FailsAt = 0, rev
		}
		s.Growth = &g
	}
}
