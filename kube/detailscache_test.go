package kube

import (
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
)

// sized returns details whose release decodes to n bytes.
func sized(n int64) *Details {
	d := &Details{Release: &release.Release{Name: "x"}}
	d.Row.Summary.DecodedBytes = n
	return d
}

func TestDetailsCacheEviction(t *testing.T) {
	const kib = 1 << 10
	type step struct {
		op   string // add, get
		key  string
		size int64 // decoded bytes, for add
	}
	for _, tc := range []struct {
		name  string
		max   int64
		steps []step
		// want are the keys left, want size their total.
		want     string
		wantSize int64
	}{
		{"fits", 10 * kib, []step{{"add", "a", kib}, {"add", "b", kib}}, "a b", 2 * (kib + entryOverhead)},
		{"oldest goes first", 5 * kib, []step{{"add", "a", kib}, {"add", "b", kib}, {"add", "c", kib}}, "b c", 2 * (kib + entryOverhead)},
		{"a read keeps an entry", 5 * kib, []step{{"add", "a", kib}, {"add", "b", kib}, {"get", "a", 0}, {"add", "c", kib}}, "a c", 2 * (kib + entryOverhead)},
		{"one too large is not kept", 5 * kib, []step{{"add", "a", kib}, {"add", "big", 6 * kib}}, "a", kib + entryOverhead},
		{"a large one evicts several", 6 * kib, []step{{"add", "a", kib}, {"add", "b", kib}, {"add", "c", kib}, {"add", "d", 4 * kib}}, "d", 4*kib + entryOverhead},
		{"replacing a key counts it once", 5 * kib, []step{{"add", "a", kib}, {"add", "a", 2 * kib}}, "a", 2*kib + entryOverhead},
		{"failed decodes cost the overhead", 3 * entryOverhead, []step{{"add", "a", -1}, {"add", "b", -1}, {"add", "c", -1}, {"add", "d", -1}}, "b c d", 3 * entryOverhead},
		{"no cache", -1, []step{{"add", "a", kib}}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newDetailsCache(tc.max)
			for _, s := range tc.steps {
				switch s.op {
				case "add":
					d := sized(s.size)
					if s.size < 0 {
						d = &Details{}
					}
					c.add(s.key, d)
				case "get":
					if _, ok := c.get(s.key); !ok {
						t.Fatalf("get %s: not cached", s.key)
					}
				}
			}
			var left []string
			for _, k := range []string{"a", "b", "c", "d", "big"} {
				if _, ok := c.get(k); ok {
					left = append(left, k)
				}
			}
			n, size := c.stats()
			if got := strings.Join(left, " "); got != tc.want || n != len(left) || size != tc.wantSize {
				t.Errorf("left %q (%d entries, %d bytes), want %q (%d bytes)", got, n, size, tc.want, tc.wantSize)
			}
			if size > max(tc.max, 0) {
				t.Errorf("cache holds %d bytes, over its bound %d", size, tc.max)
			}
		})
	}
}

// TestDetailsSizeMeasured: a release decoded without a recorded size costs what
// its manifest, files and values take.
func TestDetailsSizeMeasured(t *testing.T) {
	r := &release.Release{Manifest: strings.Repeat("m", 10_000), Config: map[string]interface{}{"v": strings.Repeat("x", 5_000)}}
	got := detailsSize(&Details{Release: r})
	if got < 15_000+entryOverhead || got > 16_000+entryOverhead {
		t.Errorf("size %d, want about %d", got, 15_000+entryOverhead)
	}
}

// TestDetailsCacheBoundedUnderLoad adds many revisions of varied sizes and checks
// the bound holds after each.
func TestDetailsCacheBoundedUnderLoad(t *testing.T) {
	c := newDetailsCache(1 << 20)
	for i := range 2000 {
		c.add(fmt.Sprint(i), sized(int64(1+i%97)*1024))
		if _, size := c.stats(); size > 1<<20 {
			t.Fatalf("after %d adds the cache holds %d bytes", i+1, size)
		}
	}
	if _, ok := c.get("1999"); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c.get("0"); ok {
		t.Error("the oldest entry is still there")
	}
}
