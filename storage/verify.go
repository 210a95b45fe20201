package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/storage/chunked"
)

// ProblemKind names one kind of inconsistency in stored release records.
type ProblemKind string

// The problems Verify finds.
const (
	ProblemMissingChunk  ProblemKind = "missing-chunk"
	ProblemOrphanChunk   ProblemKind = "orphan-chunk"
	ProblemHashMismatch  ProblemKind = "hash-mismatch"
	ProblemBadIndex      ProblemKind = "bad-index"
	ProblemWrongType     ProblemKind = "wrong-type"
	ProblemNoOwner       ProblemKind = "chunk-without-owner"
	ProblemDecode        ProblemKind = "decode-failure"
	ProblemLabelMismatch ProblemKind = "label-mismatch"
	ProblemPendingIndex  ProblemKind = "pending-index"
)

// Explain returns a plain-language account of what a problem of kind k means and
// what to do about it.
func (k ProblemKind) Explain() string {
	switch k {
	case ProblemMissingChunk:
		return "The index names a chunk Secret that does not exist, so this revision cannot be read. Restore the Secret from a backup, or delete the revision record (delete-revision --force)."
	case ProblemOrphanChunk:
		return "A chunk Secret that no index names: left over by an interrupted write or delete. It holds no readable release; gc removes it."
	case ProblemHashMismatch:
		return "A chunk's bytes do not match the hash in its name: the data was altered or damaged, so this revision cannot be trusted. Delete the revision record or restore it."
	case ProblemBadIndex:
		return "The index Secret is malformed (its chunk list or first slice is missing or invalid), so the revision cannot be read. Delete the revision record (delete-revision --force)."
	case ProblemWrongType:
		return "A Secret labelled as part of a chunked release has the wrong Secret type; the driver will not read it. Check who wrote it before deleting it."
	case ProblemNoOwner:
		return "A chunk Secret lacks its ownerReference to the index: the release reads fine, but Kubernetes' garbage collector will not remove the chunk with its index."
	case ProblemDecode:
		return "All chunks are present but the payload does not decode (truncated, not gzip, not a Helm release, or over the size bound)."
	case ProblemLabelMismatch:
		return "The index labels disagree with the release inside it (name or revision); Helm's queries will see the wrong release."
	case ProblemPendingIndex:
		return "The index Secret of a create that was interrupted before it completed: it holds no release, and it keeps any writer from creating that revision (an operator's next upgrade fails with \"already exists\"); ls shows the release as blocked. gc removes it, 15 seconds after it was written (chunkview's next create of that revision also does)."
	}
	return ""
}

// Problem is one inconsistency Verify found.
type Problem struct {
	Kind ProblemKind `json:"kind"`
	// Key is the release record the problem belongs to (sh.helm.release.v1.NAME.vN).
	Key string `json:"key"`
	// Secret is the Secret at fault.
	Secret string `json:"secret"`
	Detail string `json:"detail"`
}

// Leftover is a chunk Secret no index names, or the pending index of an interrupted
// create (Kind). RemoveLeftovers deletes it only if it is still the same object at
// the same version (UID and resourceVersion).
type Leftover struct {
	Kind            LeftoverKind `json:"kind"`
	Name            string       `json:"name"`
	Key             string       `json:"key"`
	UID             types.UID    `json:"uid"`
	ResourceVersion string       `json:"resourceVersion"`
	Bytes           int          `json:"bytes"`
	Created         time.Time    `json:"created"`
}

// LeftoverKind says what a Leftover is.
type LeftoverKind string

// The kinds of leftovers.
const (
	LeftoverChunk        LeftoverKind = "chunk"
	LeftoverPendingIndex LeftoverKind = "pending-index"
)

// Report is the result of Verify over one namespace.
type Report struct {
	Indexes   int        `json:"indexes"`
	Chunks    int        `json:"chunks"`
	Problems  []Problem  `json:"problems"`
	Leftovers []Leftover `json:"leftovers"`
	// Recent are unreferenced chunks younger than MinAge, and pending indexes
	// younger than PendingLease (or MinAge, when less): probably a write in
	// flight, so they are reported but not offered for removal.
	Recent []Leftover `json:"recent,omitempty"`
}

// OK reports whether nothing is wrong.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// VerifyOptions narrows and deepens Verify.
type VerifyOptions struct {
	// Release limits the check to one release name; empty checks all of owner's.
	Release string
	// Releases, when not nil, limits the check to these release names (and Release,
	// if set): those of a release namespace whose records share this namespace with
	// others. The indexes are told apart by name after listing, so that a record
	// without its name label counts too.
	Releases []string
	// Decode also decodes every revision whose chunks are all present and sound.
	Decode bool
	// MinAge is how old an unreferenced chunk must be to count as a leftover rather
	// than part of a write in flight. Zero means DefaultMinLeftoverAge.
	MinAge time.Duration
	// Config is the driver configuration used to decode (bounds, limits).
	Config ChunkedSecretsConfig
	// Now is the time ages are measured from; zero means time.Now().
	Now time.Time
}

// verifyPage bounds how many chunk Secrets, with their data, are held at once.
const verifyPage = chunked.VerifyPage

type chunkSeen struct {
	key     string
	uid     types.UID
	rv      string
	bytes   int
	created time.Time
	typ     corev1.SecretType
	hashOK  bool
	owners  []metav1.OwnerReference
}

// Verify checks the release records of owner that client sees: every index, every
// chunk (data hashed, a page at a time), and with opts.Decode every payload.
func Verify(ctx context.Context, client corev1client.SecretInterface, owner string, opts VerifyOptions) (*Report, error) {
	if opts.MinAge <= 0 {
		opts.MinAge = DefaultMinLeftoverAge
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	v := &verifier{client: client, owner: owner, opts: opts, want: wantedReleases(opts),
		rep: &Report{Problems: []Problem{}, Leftovers: []Leftover{}}, chunks: map[string]*chunkSeen{}, named: map[string]bool{}}
	if err := v.listChunks(ctx); err != nil {
		return nil, err
	}
	if err := v.checkIndexes(ctx); err != nil {
		return nil, err
	}
	if err := v.checkPending(ctx); err != nil {
		return nil, err
	}
	v.decodeSound(ctx)
	v.sweepUnnamed()
	v.rep.sort()
	return v.rep, nil
}

// verifier is one run of Verify: the report it fills, the chunks of the
// namespace as listed, the chunk names some index names, and the sound indexes
// left to decode.
type verifier struct {
	client corev1client.SecretInterface
	owner  string
	opts   VerifyOptions
	// want is the release names checked (VerifyOptions.Releases with Release);
	// nil checks every release, or Release alone by label.
	want   map[string]bool
	rep    *Report
	chunks map[string]*chunkSeen
	named  map[string]bool
	sound  []*corev1.Secret
}

// wantedReleases is the set of release names opts checks, nil when it checks
// every release or opts.Release alone.
func wantedReleases(opts VerifyOptions) map[string]bool {
	if opts.Releases == nil {
		return nil
	}
	want := map[string]bool{}
	for _, n := range opts.Releases {
		want[n] = true
	}
	if opts.Release != "" {
		want[opts.Release] = true
	}
	return want
}

// selector selects owner's Secrets of type typ, of opts.Release alone when
// that is the only release checked.
func (v *verifier) selector(typ string) string {
	sel := labels.Set{LabelOwner: v.owner, LabelType: typ}
	if v.opts.Release != "" && v.want == nil && typ != TypeChunk {
		sel[LabelName] = v.opts.Release
	}
	return labels.SelectorFromSet(sel).String()
}

// listChunks lists every chunk of the namespace, a page at a time, and checks
// each one's bytes against the hash in its name, whichever releases the report
// covers.
func (v *verifier) listChunks(ctx context.Context) error {
	err := listPages(ctx, v.client, v.selector(TypeChunk), verifyPage, func(s *corev1.Secret) {
		data := s.Data[DataChunk]
		key := s.Labels[LabelKey]
		cs := &chunkSeen{key: key, uid: s.UID, rv: s.ResourceVersion, bytes: dataBytes(s), created: s.CreationTimestamp.Time, typ: s.Type, owners: s.OwnerReferences}
		if h := HashOfChunkName(key, s.Name); h != "" && len(data) > 0 && SliceHash(data) == h {
			cs.hashOK = true
		}
		v.chunks[s.Name] = cs
	})
	if err != nil {
		return fmt.Errorf("verify: list chunk Secrets: %w", err)
	}
	v.rep.Chunks = len(v.chunks)
	return nil
}

// checkIndexes lists the indexes and checks each of the releases checked.
func (v *verifier) checkIndexes(ctx context.Context) error {
	err := listPages(ctx, v.client, v.selector(TypeIndex), chunked.ListPage, func(s *corev1.Secret) {
		if v.want != nil && !v.want[releaseOfIndex(s)] {
			// Another release's record: its chunks are named all the same,
			// so that they are no one's leftovers.
			if names, err := ParseExtraChunks(s.Name, s.Data[DataExtraChunks]); err == nil {
				for _, n := range names {
					v.named[n] = true
				}
			}
			return
		}
		v.checkIndex(s)
	})
	if err != nil {
		return fmt.Errorf("verify: list index Secrets: %w", err)
	}
	return nil
}

// checkIndex checks index s: its type, its list of chunks, and each chunk it
// names (there, of the chunk type, its bytes matching its name's hash, owned by
// s). A sound index is kept to decode.
func (v *verifier) checkIndex(s *corev1.Secret) {
	key := s.Name
	v.rep.Indexes++
	add := func(kind ProblemKind, secret, format string, args ...any) {
		v.rep.Problems = append(v.rep.Problems, Problem{Kind: kind, Key: key, Secret: secret, Detail: fmt.Sprintf(format, args...)})
	}
	if s.Type != SecretTypeIndex {
		add(ProblemWrongType, s.Name, "type %q, not %q", s.Type, SecretTypeIndex)
		return
	}
	names, err := ParseExtraChunks(key, s.Data[DataExtraChunks])
	if err != nil {
		add(ProblemBadIndex, s.Name, "%v", err)
		return
	}
	sound := len(s.Data[DataChunk]) > 0
	if !sound {
		add(ProblemBadIndex, s.Name, "data.chunk is missing or empty")
	}
	for i, n := range names {
		v.named[n] = true
		c, ok := v.chunks[n]
		switch {
		case !ok:
			sound = false
			add(ProblemMissingChunk, n, "chunk %d of %d does not exist", i+2, len(names)+1)
		case c.typ != SecretTypeChunk:
			sound = false
			add(ProblemWrongType, n, "chunk %d of %d has type %q, not %q", i+2, len(names)+1, c.typ, SecretTypeChunk)
		case !c.hashOK:
			sound = false
			add(ProblemHashMismatch, n, "chunk %d of %d: its bytes do not hash to the name's %s", i+2, len(names)+1, HashOfChunkName(key, n))
		}
		if ok && !hasOwnerUID(c.owners, s.UID) {
			add(ProblemNoOwner, n, "chunk %d of %d has no ownerReference to index UID %s", i+2, len(names)+1, s.UID)
		}
	}
	if sound && v.opts.Decode {
		v.sound = append(v.sound, s.DeepCopy())
	}
}

// checkPending reports the pending indexes of the releases checked: an
// interrupted create past its lease is a problem and a leftover, a younger
// one probably a create in flight.
func (v *verifier) checkPending(ctx context.Context) error {
	err := listPages(ctx, v.client, v.selector(TypePending), chunked.ListPage, func(s *corev1.Secret) {
		if v.want != nil && !v.want[releaseOfIndex(s)] {
			return
		}
		lo := Leftover{Kind: LeftoverPendingIndex, Name: s.Name, Key: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion, Bytes: dataBytes(s), Created: s.CreationTimestamp.Time}
		// A create takes well under a second, and chunkview's next create of
		// the key takes over a pending index older than PendingLease: from
		// then on it is an interrupted create, reported and removable, where
		// an unreferenced chunk waits MinAge.
		age := v.opts.Now.Sub(lo.Created)
		if age < min(v.opts.MinAge, PendingLease) {
			v.rep.Recent = append(v.rep.Recent, lo)
			return
		}
		v.rep.Leftovers = append(v.rep.Leftovers, lo)
		v.rep.Problems = append(v.rep.Problems, Problem{Kind: ProblemPendingIndex, Key: s.Name, Secret: s.Name,
			Detail: fmt.Sprintf("a create interrupted %s ago; it holds no release and fails every writer's create of this revision until gc removes it", age.Round(time.Second))})
	})
	if err != nil {
		return fmt.Errorf("verify: list pending index Secrets: %w", err)
	}
	return nil
}

// decodeSound decodes each sound index kept (VerifyOptions.Decode), and checks
// that its labels name the release its payload holds.
func (v *verifier) decodeSound(ctx context.Context) {
	drv := NewDriver(v.client, v.owner, v.opts.Config)
	for _, s := range v.sound {
		rls, err := drv.Decode(ctx, s)
		if err != nil {
			v.rep.Problems = append(v.rep.Problems, Problem{Kind: ProblemDecode, Key: s.Name, Secret: s.Name, Detail: err.Error()})
			continue
		}
		if rls.Name != s.Labels[LabelName] || fmt.Sprint(rls.Version) != s.Labels[LabelVersion] {
			v.rep.Problems = append(v.rep.Problems, Problem{Kind: ProblemLabelMismatch, Key: s.Name, Secret: s.Name,
				Detail: fmt.Sprintf("labels say %s v%s, the payload holds %s v%d", s.Labels[LabelName], s.Labels[LabelVersion], rls.Name, rls.Version)})
		}
	}
}

// inScope reports whether a chunk of record key belongs to the releases checked.
func (v *verifier) inScope(key string) bool {
	switch {
	case v.want != nil:
		name, _, ok := ParseKey(key)
		return ok && v.want[name]
	case v.opts.Release != "":
		return keyOfRelease(key, v.opts.Release)
	}
	return true
}

// sweepUnnamed reports the chunks of the releases checked that no index names:
// past MinAge an orphan, a leftover gc removes; younger, probably a write in
// flight.
func (v *verifier) sweepUnnamed() {
	for name, c := range v.chunks {
		if v.named[name] {
			continue
		}
		if !v.inScope(c.key) {
			continue
		}
		if c.typ != SecretTypeChunk {
			// Labelled as a chunk but not one: whoever wrote it, it is not a
			// leftover of ours, and gc must not delete it.
			v.rep.Problems = append(v.rep.Problems, Problem{Kind: ProblemWrongType, Key: c.key, Secret: name,
				Detail: fmt.Sprintf("labelled as a chunk but has type %q, not %q; no index names it", c.typ, SecretTypeChunk)})
			continue
		}
		lo := Leftover{Kind: LeftoverChunk, Name: name, Key: c.key, UID: c.uid, ResourceVersion: c.rv, Bytes: c.bytes, Created: c.created}
		if v.opts.Now.Sub(c.created) < v.opts.MinAge {
			v.rep.Recent = append(v.rep.Recent, lo)
			continue
		}
		v.rep.Leftovers = append(v.rep.Leftovers, lo)
		v.rep.Problems = append(v.rep.Problems, Problem{Kind: ProblemOrphanChunk, Key: c.key, Secret: name, Detail: "no index names this chunk"})
	}
}

// sort orders the leftovers by name and the problems by record, then Secret.
func (r *Report) sort() {
	sort.Slice(r.Leftovers, func(i, j int) bool { return r.Leftovers[i].Name < r.Leftovers[j].Name })
	sort.SliceStable(r.Problems, func(i, j int) bool {
		a, b := r.Problems[i], r.Problems[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Secret < b.Secret
	})
}

// releaseOfIndex returns the release an index Secret is a record of: its name
// label, or the name in its key.
func releaseOfIndex(s *corev1.Secret) string {
	if n := s.Labels[LabelName]; n != "" {
		return n
	}
	name, _, _ := ParseKey(s.Name)
	return name
}

// keyOfRelease reports whether key is a record key of release name.
func keyOfRelease(key, name string) bool {
	_, rev, ok := ParseKey(key)
	return ok && rev > 0 && key == RecordKey(name, rev)
}

func hasOwnerUID(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.Kind == "Secret" && r.UID == uid {
			return true
		}
	}
	return false
}

func dataBytes(s *corev1.Secret) int {
	n := 0
	for _, v := range s.Data {
		n += len(v)
	}
	for _, v := range s.StringData {
		n += len(v)
	}
	return n
}

func listPages(ctx context.Context, client corev1client.SecretInterface, sel string, limit int64, fn func(*corev1.Secret)) error {
	return chunked.ListSecrets(ctx, client, sel, limit, func(s *corev1.Secret) error { fn(s); return nil })
}

// FindLeftovers returns the chunk Secrets of owner that no index names and that are
// older than minAge (DefaultMinLeftoverAge when zero).
func FindLeftovers(ctx context.Context, client corev1client.SecretInterface, owner string, minAge time.Duration) ([]Leftover, error) {
	rep, err := Verify(ctx, client, owner, VerifyOptions{MinAge: minAge})
	if err != nil {
		return nil, err
	}
	return rep.Leftovers, nil
}

// RemoveLeftovers deletes the given leftovers, each only if it is still the object
// that was found, at the version found (UID and resourceVersion preconditions), and
// still unreferenced: a chunk that an index has come to name since is kept. The
// versions were read before the index is read here, and every write claims the
// chunks it reuses after writing its index (AnnotationClaim), so a chunk a write
// takes up meanwhile is either named by the index read here or changed since, and
// kept either way. It returns how many it removed.
func RemoveLeftovers(ctx context.Context, client corev1client.SecretInterface, leftovers []Leftover) (int, error) {
	removed := 0
	var errs []error
	for _, lo := range leftovers {
		if lo.UID == "" || lo.ResourceVersion == "" {
			errs = append(errs, fmt.Errorf("leftover %q: no UID and resourceVersion to delete it by; run verify again", lo.Name))
			continue
		}
		if lo.Kind == LeftoverPendingIndex {
			// Deleted only at the version found: one that has become an index since
			// (its create completed) is kept.
			if lo.Name != lo.Key {
				errs = append(errs, fmt.Errorf("leftover %q: a pending index must be named after its key %q; left as it is", lo.Name, lo.Key))
				continue
			}
		} else if HashOfChunkName(lo.Key, lo.Name) == "" {
			// The index to check is the one its name belongs to, whatever its labels say.
			errs = append(errs, fmt.Errorf("leftover %q: its name is not a chunk name of key %q, as its labels say; left as it is", lo.Name, lo.Key))
			continue
		}
		if lo.Kind != LeftoverPendingIndex {
			if idx, err := client.Get(ctx, lo.Key, metav1.GetOptions{}); err == nil {
				names, _ := ParseExtraChunks(lo.Key, idx.Data[DataExtraChunks])
				if slices.Contains(names, lo.Name) {
					continue
				}
			} else if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("check index %q of leftover %q: %w", lo.Key, lo.Name, err))
				continue
			}
		}
		uid, rv := lo.UID, lo.ResourceVersion
		err := client.Delete(ctx, lo.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
		switch {
		case err == nil:
			removed++
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone already, claimed by a write, or replaced by a new object.
		default:
			errs = append(errs, fmt.Errorf("delete leftover %q: %w", lo.Name, err))
		}
	}
	return removed, errors.Join(errs...)
}
