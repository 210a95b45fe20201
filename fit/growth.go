package fit

import (
	"fmt"
	"math"

	"github.com/chunkview/chunkview/kube"
)

// SizePoint is the stored size of one revision.
type SizePoint struct {
	Revision int
	Bytes    int64
}

// Growth is where a release's stored size is heading, against its store's limit.
type Growth struct {
	// PerRevision is the growth per revision, fitted over the recent revisions.
	PerRevision float64 `json:"perRevision"`
	// Last is the latest known size, Limit the most its store holds for one
	// revision (0: none).
	Last  int64 `json:"last"`
	Limit int64 `json:"limit"`
	// RevisionsLeft counts the revisions from the latest to the first one over
	// Limit at this rate (1: the next one); 0 when the latest is already over it,
	// -1 when there is no limit or no growth.
	RevisionsLeft int `json:"revisionsLeft"`
	// FailsAt is the first revision that will not fit at this rate (0: none in
	// sight).
	FailsAt int `json:"failsAt,omitempty"`
}

// TrendWindow is how many recent revisions the growth is fitted over.
const TrendWindow = 5

// WarnWithin is how close the limit must be, in revisions, to warn.
const WarnWithin = 5

// ProjectGrowth fits a line through the last TrendWindow sizes (least squares over
// revision numbers, which may have gaps) and extrapolates it to limit. With fewer
// than two points it reports no growth.
func ProjectGrowth(points []SizePoint, limit int64) Growth {
	g := Growth{Limit: limit, RevisionsLeft: -1}
	if len(points) == 0 {
		return g
	}
	latest := points[len(points)-1]
	g.Last = latest.Bytes
	if limit > 0 && g.Last > limit {
		g.RevisionsLeft, g.FailsAt = 0, latest.Revision
	}
	if len(points) > TrendWindow {
		points = points[len(points)-TrendWindow:]
	}
	if len(points) < 2 {
		return g
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(points))
	for _, p := range points {
		x, y := float64(p.Revision), float64(p.Bytes)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return g
	}
	g.PerRevision = (n*sxy - sx*sy) / den
	if limit <= 0 || g.PerRevision <= 0 || g.RevisionsLeft == 0 {
		return g
	}
	// The first k with last + k*rate > limit.
	g.RevisionsLeft = int(math.Floor(float64(limit-g.Last)/g.PerRevision)) + 1
	g.FailsAt = latest.Revision + g.RevisionsLeft
	return g
}

// Warn reports whether the limit is near enough to warn about.
func (g Growth) Warn() bool {
	return g.Limit > 0 && g.RevisionsLeft >= 0 && g.RevisionsLeft <= WarnWithin
}

// ForecastRows projects the growth of a release from its revision rows (oldest
// first): the sizes known, against the store's limit.
func ForecastRows(rows []kube.RevisionRow) Growth {
	var points []SizePoint
	var limit int64
	for _, r := range rows {
		if r.Known && r.Summary.StoredBytes > 0 {
			points = append(points, SizePoint{Revision: r.Revision, Bytes: r.Summary.StoredBytes})
		}
		limit = r.LimitBytes
	}
	return ProjectGrowth(points, limit)
}

// Advice says what to do about a release in store d heading for its limit. The
// limit is per revision, so keeping fewer revisions does not help.
func (g Growth) Advice(d string) string {
	if d == kube.DriverChunked || d == "" {
		return "Keeping fewer revisions does not help: the limit is per revision. Shrink the chart (large files, CRDs, bundled dependencies), or raise --max-write-chunks where the writer allows it."
	}
	return fmt.Sprintf("Keeping fewer revisions (--history-max) does not help: the limit is per revision, one %s of at most 1 MiB. Shrink the chart (large files, CRDs, bundled dependencies), or move the release to chunked storage (helm-operator-plugins' chunked driver).", map[string]string{kube.DriverSecret: "Secret", kube.DriverConfigMap: "ConfigMap"}[d])
}
