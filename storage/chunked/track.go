package chunked

import (
	"fmt"
	"maps"
	"sync"
	"weak"

	corev1 "k8s.io/api/core/v1"
)

// readSet remembers, for one driver value, the index resourceVersion at which each
// key was last read or written through it. Helm's actions read a record, change it
// and write it back through separate driver calls (the supersede step of an upgrade
// or rollback, marking a release uninstalling); the write then carries the version
// of that read as its precondition, so a change another writer made in between
// fails the write with ErrConflict instead of being overwritten.
//
// With a pinned release (Expect), reads are held to a plan as well: any record of
// that release seen at another version, a record of it that the plan does not name,
// or, in a whole-history read, one the plan names that is missing, fails the read.
type readSet[T any] struct {
	mu sync.Mutex
	rv map[string]string // key -> index resourceVersion last read or written

	// chunks holds, by key, the chunk Secrets last decoded for the index at
	// resourceVersion rv, at the versions they were read at.
	chunks map[string]seenChunks
	// values holds, for each release value a read returned or a write stored, the
	// key and version it stands for (see remember); valuesLive is how many were
	// live at the last sweep.
	values     map[weak.Pointer[T]]valueRead
	valuesLive int

	release string          // the pinned release; "" when not pinned
	planned map[string]bool // the pinned release's keys: the plan's and our own writes'
}

// valueRead is what a release value returned by a read, or written, stands for.
type valueRead struct{ key, rv string }

type seenChunks struct {
	rv   string
	refs []chunkRef
}

func newReadSet[T any]() *readSet[T] {
	return &readSet[T]{rv: map[string]string{}, chunks: map[string]seenChunks{}, values: map[weak.Pointer[T]]valueRead{}}
}

// sawChunks records the chunks a decode of key's index at rv read.
func (r *readSet[T]) sawChunks(key, rv string, refs []chunkRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chunks[key] = seenChunks{rv: rv, refs: refs}
}

// chunksAt returns the chunks last read for key's index at rv, by name.
func (r *readSet[T]) chunksAt(key, rv string) map[string]chunkRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen, ok := r.chunks[key]
	if !ok || seen.rv != rv {
		return nil
	}
	out := make(map[string]chunkRef, len(seen.refs))
	for _, ref := range seen.refs {
		out[ref.name] = ref
	}
	return out
}

// Expect returns a copy of c whose reads and writes hold release's records to the
// given resourceVersions (key -> index resourceVersion): a read that sees another
// resourceVersion for one of them, a record of release that is not among them, or
// (for a whole-history List/Query) one of them missing, fails with an error wrapping
// ErrConflict; Update and Delete of those keys use them as preconditions. Records
// it creates or writes itself are followed, so its own successive writes never
// conflict.
//
// It is how an operation applies exactly the plan a person confirmed: the plan
// carries the versions it was made from, and nothing runs on a release that has
// moved on since.
func (c *Core[T]) Expect(release string, records map[string]string) *Core[T] {
	cp := *c
	cp.reads = newReadSet[T]()
	cp.reads.rv, cp.reads.release, cp.reads.planned = maps.Clone(records), release, map[string]bool{}
	if cp.reads.rv == nil {
		cp.reads.rv = map[string]string{}
	}
	for k := range records {
		cp.reads.planned[k] = true
	}
	return &cp
}

// Fresh returns a copy of c that has read nothing yet: its writes take their
// preconditions from the record as they find it.
func (c *Core[T]) Fresh() *Core[T] {
	cp := *c
	cp.reads = newReadSet[T]()
	return &cp
}

// ReadVersion returns the index resourceVersion at which c last read or wrote key.
func (c *Core[T]) ReadVersion(key string) (string, bool) {
	c.reads.mu.Lock()
	defer c.reads.mu.Unlock()
	rv, ok := c.reads.rv[key]
	return rv, ok
}

func conflictf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConflict, fmt.Sprintf(format, args...))
}

// releaseOf returns the release name an index belongs to: its name label, else the
// name in its key.
func releaseOf(idx *corev1.Secret) string {
	if n := idx.Labels[LabelName]; n != "" {
		return n
	}
	n, _, _ := ParseKey(idx.Name)
	return n
}

// observe records that idx was read, and that rls (when not nil) is the release
// that read returned. Unpinned, it remembers the version. For the pinned release it
// fails when the record is not the one the plan saw.
func (r *readSet[T]) observe(idx *corev1.Secret, rls *T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.release != "" && releaseOf(idx) == r.release {
		if !r.planned[idx.Name] {
			return conflictf("record %s of release %q appeared after the plan was made", idx.Name, r.release)
		}
		if want := r.rv[idx.Name]; want != idx.ResourceVersion {
			return conflictf("record %s of release %q changed after the plan was made (resourceVersion %s, planned %s)", idx.Name, r.release, idx.ResourceVersion, want)
		}
		return nil
	}
	r.rv[idx.Name] = idx.ResourceVersion
	r.remember(rls, idx.Name, idx.ResourceVersion)
	return nil
}

// remember records that release value rls stands for key at version rv: the
// version it was read at, or written at. Helm's actions write back the very value a
// read returned, changed (an upgrade marks the release it read superseded), and
// may read the key again in between (creating the next revision re-reads the
// history to prune it): the write must carry the version of the read its data came
// from, not of the latest read. Values are held weakly, so that a long-lived
// driver does not keep every release it ever returned.
func (r *readSet[T]) remember(rls *T, key, rv string) {
	if rls == nil {
		return
	}
	if len(r.values) >= 2*r.valuesLive+64 {
		for p := range r.values {
			if p.Value() == nil {
				delete(r.values, p)
			}
		}
		r.valuesLive = len(r.values)
	}
	r.values[weak.Make(rls)] = valueRead{key: key, rv: rv}
}

// expectedFor returns the version a write of rls under key must find: the one the
// read that returned rls found, else the one key was last read or written at.
func (r *readSet[T]) expectedFor(key string, rls *T) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.release != "" {
		rv, ok := r.rv[key]
		return rv, ok
	}
	if rls != nil {
		if v, ok := r.values[weak.Make(rls)]; ok && v.key == key {
			return v.rv, true
		}
	}
	rv, ok := r.rv[key]
	return rv, ok
}

// expected returns the version key was read or written at, if it was.
func (r *readSet[T]) expected(key string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rv, ok := r.rv[key]
	return rv, ok
}

// wrote records a write of rls under key that left its index at rv.
func (r *readSet[T]) wrote(key, rv string, rls *T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rv[key] = rv
	r.remember(rls, key, rv)
	if r.planned != nil {
		if name, _, ok := ParseKey(key); ok && name == r.release {
			r.planned[key] = true
		}
	}
}

// deleted records that key's record was deleted through this driver.
func (r *readSet[T]) deleted(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.rv, key)
	delete(r.chunks, key)
	delete(r.planned, key)
}

// checkComplete fails when a whole-history read of the pinned release did not see
// every record the plan names: one was deleted after the plan was made.
func (r *readSet[T]) checkComplete(release string, seen map[string]bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.release == "" || (release != "" && release != r.release) {
		return nil
	}
	for k := range r.planned {
		if !seen[k] {
			return conflictf("record %s of release %q was deleted after the plan was made", k, r.release)
		}
	}
	return nil
}
