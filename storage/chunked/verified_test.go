package chunked

import (
	"slices"
	"testing"
)

// TestVerifiedSlicesHoldOneRecordAtMost: the slices a read keeps across its
// attempts stay within their byte bound, an attempt lets go of those its index
// does not name, and a slice handed out again is marked reused.
func TestVerifiedSlicesHoldOneRecordAtMost(t *testing.T) {
	v := &verifiedSlices{max: 10}
	v.put(chunkRef{name: "a", rv: "1"}, []byte("aaaa"))
	v.put(chunkRef{name: "b", rv: "2"}, []byte("bbbb"))
	v.put(chunkRef{name: "c", rv: "3"}, []byte("cccc")) // 12 bytes: over the bound
	if got := v.count(); got != 2 || v.used != 8 {
		t.Fatalf("kept %d slices, %d bytes; want 2, 8", got, v.used)
	}
	if _, ok := v.get("c"); ok {
		t.Errorf("a slice past the bound was kept")
	}
	s, ok := v.get("a")
	if !ok || string(s.data) != "aaaa" || !s.ref.reused || s.ref.rv != "1" {
		t.Errorf("get(a) = %q %+v %v, want aaaa, reused, rv 1", s.data, s.ref, ok)
	}
	v.put(chunkRef{name: "a"}, []byte("xxxx"))
	if s, _ := v.get("a"); string(s.data) != "aaaa" {
		t.Errorf("a second put under a name replaced the first: %q", s.data)
	}
	// The next attempt's index names b and c: a goes, and c then fits.
	v.retain([]string{"b", "c"})
	v.put(chunkRef{name: "c"}, []byte("cccc"))
	var names []string
	for n := range v.kept {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"b", "c"}) || v.used != 8 {
		t.Errorf("after retain(b, c) kept %v, %d bytes; want [b c], 8", names, v.used)
	}
	v.retain(nil)
	if v.count() != 0 || v.used != 0 {
		t.Errorf("retain(nil) kept %d slices, %d bytes", v.count(), v.used)
	}
	var none *verifiedSlices
	none.put(chunkRef{name: "a"}, []byte("a"))
	none.retain([]string{"a"})
	if _, ok := none.get("a"); ok || none.count() != 0 {
		t.Errorf("a read that keeps nothing kept a slice")
	}
}

// TestReadNowLeavesOutReusedChunks: what a read records for later writes and
// deletes is only what its last attempt fetched.
func TestReadNowLeavesOutReusedChunks(t *testing.T) {
	refs := []chunkRef{{name: "a"}, {name: "b", reused: true}, {name: "c"}}
	got := readNow(refs)
	if len(got) != 2 || got[0].name != "a" || got[1].name != "c" {
		t.Errorf("readNow = %+v, want a and c", got)
	}
	if len(refs) != 3 || refs[1].name != "b" {
		t.Errorf("readNow changed its argument: %+v", refs)
	}
}
