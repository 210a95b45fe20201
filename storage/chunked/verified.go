package chunked

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// verifiedSlices are the slices one read has fetched and checked against their
// chunk names, kept while it reads again: a read that starts over because a writer
// is rewriting the record (helm-operator-plugins' update deletes every chunk,
// rewrites the index and creates the chunks one by one, again and again) fetches
// only the chunks it has not verified yet. A chunk's name is its key and the hash
// of its slice, and a slice is kept only once it matched its name (fetchChunk), so
// the slice kept under a name is the one any index naming that chunk stands for:
// the stream an attempt decodes is still exactly the one its index names, checked
// again by gzip's CRC and, where the writer recorded one, the payload hash.
//
// They hold one record's chunks at most: each attempt first lets go of the slices
// its index does not name (content a writer has replaced), so they never hold
// more than MaxReadChunks-1 slices, and never more than a quarter of
// MaxDecodedBytes, which a record's slices, its compressed bytes, are a fraction
// of (Helm's records compress 5:1 to 10:1). A slice that does not fit is not kept,
// and is fetched again if the read needs it again.
type verifiedSlices struct {
	mu   sync.Mutex
	max  int64
	used int64
	kept map[string]verifiedSlice
	// missing are the chunks the last attempt found not there.
	missing []string
}

type verifiedSlice struct {
	data []byte
	// ref is the chunk as the fetch that verified it found it.
	ref chunkRef
}

// newVerifiedSlices returns the slices a read keeps across its attempts, or nil
// when it makes one attempt only, or reuse is off: nothing is kept then.
func (c *Core[T]) newVerifiedSlices() *verifiedSlices {
	if c.cfg.ReadRetry < 0 || c.noReuse || c.cfg.MaxDecodedBytes/4 <= 0 {
		return nil
	}
	return &verifiedSlices{max: c.cfg.MaxDecodedBytes / 4}
}

// retain lets go of the slices that names, the chunks of the index an attempt is
// about to read, do not include.
func (v *verifiedSlices) retain(names []string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.missing = nil
	if len(v.kept) == 0 {
		return
	}
	named := make(map[string]bool, len(names))
	for _, n := range names {
		named[n] = true
	}
	for n, s := range v.kept {
		if !named[n] {
			delete(v.kept, n)
			v.used -= int64(len(s.data))
		}
	}
}

// get returns the slice verified under name, if kept. Its ref is marked reused:
// the Secret may have been deleted and created again since it was fetched.
func (v *verifiedSlices) get(name string) (verifiedSlice, bool) {
	if v == nil {
		return verifiedSlice{}, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.kept[name]
	if ok {
		s.ref.reused = true
	}
	return s, ok
}

// put keeps data, verified under ref's name, when it fits.
func (v *verifiedSlices) put(ref chunkRef, data []byte) {
	if v == nil {
		return
	}
	n := int64(len(data))
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.kept[ref.name]; ok || v.used+n > v.max {
		return
	}
	if v.kept == nil {
		v.kept = map[string]verifiedSlice{}
	}
	v.kept[ref.name] = verifiedSlice{data: data, ref: ref}
	v.used += n
}

// missed notes that the chunk name was not there.
func (v *verifiedSlices) missed(name string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.missing = append(v.missing, name)
}

// count returns how many slices are kept.
func (v *verifiedSlices) count() int {
	if v == nil {
		return 0
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.kept)
}

// forget lets go of the slices of idx's key: its read is over.
func (v *verifiedSlices) forget(idx *corev1.Secret) {
	if v == nil {
		return
	}
	prefix := idx.Name + "-"
	v.mu.Lock()
	defer v.mu.Unlock()
	for nm, s := range v.kept {
		// A chunk name is its key, a dash and 13 characters of hash.
		if len(nm) == len(prefix)+hashLen && strings.HasPrefix(nm, prefix) {
			delete(v.kept, nm)
			v.used -= int64(len(s.data))
		}
	}
}

// pollEvery is how often a read that waits to try again looks for the chunks its
// last attempt missed. helm-operator-plugins' update, rewriting a record again
// and again, leaves its last chunk in place only from its create to the next
// update's delete of every chunk: a few milliseconds, which a read that looks
// only at each attempt's start (backing off to 400 ms) rarely hits.
const pollEvery = 10 * time.Millisecond

// awaitMissing waits d before a read's next attempt. When its last attempt found
// a few chunks missing (at most fetchWindow), it spends the wait looking for them,
// every pollEvery, in the API server's cache (no read from etcd, and a small
// answer while they are not there: at most fetchWindow such Gets every pollEvery,
// for ReadRetry at most), and keeps those it finds that match their names. It
// returns early once all are found, and when ctx ends.
func (c *Core[T]) awaitMissing(ctx context.Context, idx *corev1.Secret, kept *verifiedSlices, d time.Duration) error {
	until := time.Now().Add(d)
	var names []string
	if kept != nil {
		kept.mu.Lock()
		names = slices.Clone(kept.missing)
		kept.mu.Unlock()
	}
	if len(names) > fetchWindow {
		names = nil
	}
	for {
		wait := time.Until(until)
		if len(names) > 0 {
			wait = min(wait, pollEvery)
		}
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
		left := names[:0]
		for _, name := range names {
			s, err := c.client.Get(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
			if err == nil {
				if data, err := checkChunk(s, idx, strconv.Quote(name), name); err == nil {
					kept.put(chunkRef{name: name, uid: s.UID, rv: s.ResourceVersion}, data)
					continue
				}
			}
			left = append(left, name)
		}
		if names = left; len(names) == 0 {
			// All found (or none to look for): the next attempt may succeed.
			return nil
		}
	}
}

// freshRefs returns refs with the versions of those taken from an earlier attempt
// of the read read again: a delete takes each chunk at the version read, and one
// recreated since (helm-operator-plugins recreates every chunk on each update)
// would be kept as claimed, and left behind. A reused chunk that no longer exists
// is left out.
func (c *Core[T]) freshRefs(ctx context.Context, key string, refs []chunkRef) ([]chunkRef, error) {
	var stale []string
	known := make(map[string]chunkRef, len(refs))
	names := make([]string, 0, len(refs))
	for _, r := range refs {
		names = append(names, r.name)
		if r.reused {
			stale = append(stale, r.name)
		} else {
			known[r.name] = r
		}
	}
	if len(stale) == 0 {
		return refs, nil
	}
	return c.chunkVersions(ctx, key, names, known)
}

// readNow returns the refs a later write or delete may take as they are: those
// fetched by the attempt that decoded, not reused from earlier ones.
func readNow(refs []chunkRef) []chunkRef {
	out := refs[:0:0]
	for _, r := range refs {
		if !r.reused {
			out = append(out, r)
		}
	}
	return out
}
