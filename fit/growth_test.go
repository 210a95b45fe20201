package fit

import (
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

func TestProjectGrowth(t *testing.T) {
	const kib = 1 << 10
	pts := func(sizes ...int64) []SizePoint {
		var out []SizePoint
		for i, s := range sizes {
			out = append(out, SizePoint{Revision: i + 1, Bytes: s * kib})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		points   []SizePoint
		limit    int64
		left     int
		perRev   float64
		wantWarn bool
	}{
		{"no revisions", nil, 100 * kib, -1, 0, false},
		{"one revision", pts(10), 100 * kib, -1, 0, false},
		{"no limit", pts(10, 20, 30), 0, -1, 10 * kib, false},
		{"flat", pts(50, 50, 50), 100 * kib, -1, 0, false},
		{"shrinking", pts(50, 40, 30), 100 * kib, -1, -10 * kib, false},
		// 30 + 10k > 100 first at k = 8.
		{"growing, far", pts(10, 20, 30), 100 * kib, 8, 10 * kib, false},
		// 80 + 10k > 100 first at k = 3.
		{"growing, near", pts(60, 70, 80), 100 * kib, 3, 10 * kib, true},
		// Exactly at the limit is still allowed: the next one crosses.
		{"at the limit", pts(80, 90, 100), 100 * kib, 1, 10 * kib, true},
		{"over the limit", pts(90, 100, 110), 100 * kib, 0, 10 * kib, true},
		// Only the last TrendWindow revisions count: an old jump is forgotten.
		{"recent window", pts(1, 90, 90, 90, 91, 92), 100 * kib, 17, 0.5 * kib, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := ProjectGrowth(tc.points, tc.limit)
			if g.RevisionsLeft != tc.left {
				t.Errorf("revisionsLeft = %d, want %d", g.RevisionsLeft, tc.left)
			}
			if d := g.PerRevision - tc.perRev; d > 1 || d < -1 {
				t.Errorf("perRevision = %.1f, want %.1f", g.PerRevision, tc.perRev)
			}
			if g.Warn() != tc.wantWarn {
				t.Errorf("warn = %v, want %v", g.Warn(), tc.wantWarn)
			}
		})
	}
}

func TestProjectGrowthGaps(t *testing.T) {
	// Revisions 2 and 3 were deleted: the rate is per revision number.
	g := ProjectGrowth([]SizePoint{{1, 10}, {4, 40}}, 100)
	if g.PerRevision < 9.9 || g.PerRevision > 10.1 {
		t.Fatalf("perRevision = %.2f, want 10", g.PerRevision)
	}
}

func TestForecastFailsAt(t *testing.T) {
	rows := []kube.RevisionRow{}
	for i, kb := range []int64{700, 730, 760, 790} {
		rows = append(rows, kube.RevisionRow{Revision: i + 3, Known: true, LimitBytes: 1 << 20, Summary: storage.Summary{StoredBytes: kb << 10}})
	}
	g := ForecastRows(rows)
	// 790 KiB + 30 KiB a revision passes 1024 KiB at the 8th revision after 6.
	if g.RevisionsLeft != 8 || g.FailsAt != 14 {
		t.Fatalf("RevisionsLeft, FailsAt = %d, %d; want 8, 14", g.RevisionsLeft, g.FailsAt)
	}
}
