package storage_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// faultChunkSize keeps the fault matrix cheap: a few KiB per chunk.
const faultChunkSize = 4 << 10

// releaseOfChunks returns a release whose record takes exactly chunks chunks of
// chunkSize bytes, its stream ending mid-way through the last. seed varies the
// content.
func releaseOfChunks(t testing.TB, name string, version int, status release.Status, chunks, chunkSize int, seed uint64) *release.Release {
	t.Helper()
	target := (chunks-1)*chunkSize + chunkSize/2
	payload := target
	for range 5 {
		rls := testReleaseSeed(name, version, status, payload, seed)
		gz, _, err := storage.EncodePayload(rls)
		if err != nil {
			t.Fatal(err)
		}
		if len(storage.Split(gz, chunkSize)) == chunks {
			return rls
		}
		payload += target - len(gz)
	}
	t.Fatalf("no test release %s v%d takes %d chunks of %d bytes", name, version, chunks, chunkSize)
	return nil
}

// faultOp is one driver operation of the fault matrix: its setup on a clean driver,
// the operation through the faulty one, and the states allowed afterwards.
type faultOp struct {
	name string
	// run prepares the namespace through clean and runs the operation through
	// faulty. It returns the releases Get may return afterwards (nil: no
	// release), the one required when the operation succeeded, and its error.
	run func(t *testing.T, clean, faulty driver.Driver, chunks int) (allowed []*release.Release, onSuccess *release.Release, err error)
}

func faultOps() []faultOp {
	const name = "faulty"
	k := key(name, 1)
	oldOf := func(t *testing.T, chunks int) *release.Release {
		return releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, faultChunkSize, 1)
	}
	newOf := func(t *testing.T, chunks int) *release.Release {
		return releaseOfChunks(t, name, 1, release.StatusSuperseded, chunks, faultChunkSize, 2)
	}
	return []faultOp{
		{"create", func(t *testing.T, clean, faulty driver.Driver, chunks int) ([]*release.Release, *release.Release, error) {
			err := faulty.Create(k, newOf(t, chunks))
			// Not found is allowed only because the create failed.
			return []*release.Release{nil, newOf(t, chunks)}, newOf(t, chunks), err
		}},
		{"create-checked-first", func(t *testing.T, clean, faulty driver.Driver, chunks int) ([]*release.Release, *release.Release, error) {
			faulty.(chunkedDriver).CheckFirst()
			err := faulty.Create(k, newOf(t, chunks))
			return []*release.Release{nil, newOf(t, chunks)}, newOf(t, chunks), err
		}},
		{"update", func(t *testing.T, clean, faulty driver.Driver, chunks int) ([]*release.Release, *release.Release, error) {
			if err := clean.Create(k, oldOf(t, chunks)); err != nil {
				t.Fatal(err)
			}
			err := faulty.Update(k, newOf(t, chunks))
			return []*release.Release{oldOf(t, chunks), newOf(t, chunks)}, newOf(t, chunks), err
		}},
		{"delete", func(t *testing.T, clean, faulty driver.Driver, chunks int) ([]*release.Release, *release.Release, error) {
			if err := clean.Create(k, oldOf(t, chunks)); err != nil {
				t.Fatal(err)
			}
			got, err := faulty.Delete(k)
			if err == nil {
				mustEqualRelease(t, oldOf(t, chunks), got)
			}
			return []*release.Release{oldOf(t, chunks), nil}, nil, err
		}},
	}
}

// TestFaultInjection fails every API call of Create, Update and Delete in turn, before
// and after it reaches the server, and checks what a clean driver then finds: the
// complete old release or the complete new one, never a torn record, and leftovers
// only of the kind FindLeftovers reports and RemoveLeftovers removes.
func TestFaultInjection(t *testing.T) { forEachAdapter(t, testFaultInjection) }

func testFaultInjection(t *testing.T, ad chunkedAdapter) {
	const name = "faulty"
	k := key(name, 1)
	var cases, failedOps, leftovers, unowned int
	for _, op := range faultOps() {
		for _, chunks := range []int{1, 2, 5} {
			// A counting run measures how many calls the operation makes.
			_, secrets := newNamespace(t)
			counter := newFaultClient(secrets)
			clean := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
			faulty := ad.new(counter, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
			if _, _, err := op.run(t, clean, faulty, chunks); err != nil {
				t.Fatalf("%s at %d chunks without faults: %v", op.name, chunks, err)
			}
			calls := counter.Count()
			t.Logf("%s at %d chunks: %d API calls %v", op.name, chunks, calls, counter.Calls())

			for _, after := range []bool{false, true} {
				mode := "before"
				if after {
					mode = "after"
				}
				for fail := 1; fail <= calls; fail++ {
					cases++
					t.Run(fmt.Sprintf("%s/%d-chunks/fail-%s/call-%d", op.name, chunks, mode, fail), func(t *testing.T) {
						_, secrets := newNamespace(t)
						fc := newFaultClient(secrets)
						fc.failAt, fc.after = fail, after
						clean := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
						faulty := ad.new(fc, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
						allowed, onSuccess, err := op.run(t, clean, faulty, chunks)
						if fc.Failed() == "" {
							t.Fatalf("call %d was never made (%d calls: %v)", fail, fc.Count(), fc.Calls())
						}
						if err != nil {
							failedOps++
							if !errors.Is(err, errInjected) {
								t.Fatalf("%s failed with %v, which does not carry the injected fault", op.name, err)
							}
							t.Logf("%s failed as %s: %v", fc.Failed(), mode, err)
						}

						mustAllReadable(t, secrets, testOwner)
						got := getOrNil(t, clean, k)
						if err == nil {
							mustBeOneOf(t, got, onSuccess)
						} else {
							mustBeOneOf(t, got, allowed...)
						}
						rep, verr := storage.Verify(t.Context(), secrets, testOwner, storage.VerifyOptions{MinAge: 1})
						if verr != nil {
							t.Fatal(verr)
						}
						for _, p := range rep.Problems {
							switch p.Kind {
							case storage.ProblemOrphanChunk:
							case storage.ProblemNoOwner:
								// The release reads; only the garbage collector link is missing.
								unowned++
							default:
								t.Fatalf("Verify found %s on %s: %s", p.Kind, p.Secret, p.Detail)
							}
						}
						leftovers += mustRemoveLeftovers(t, secrets, testOwner)
						mustHoldOnly(t, secrets, k)
					})
				}
			}
		}
	}
	t.Logf("fault cases: %d (operations that returned an error: %d; leftover chunks removed: %d; chunks left without ownerReference: %d)",
		cases, failedOps, leftovers, unowned)
}

// TestUpdateTooLargeChangesNothing: an update refused by MaxWriteChunks leaves the
// stored revision and every Secret as they were, and is refused before any write.
func TestUpdateTooLargeChangesNothing(t *testing.T) {
	forEachAdapter(t, testUpdateTooLargeChangesNothing)
}

func testUpdateTooLargeChangesNothing(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	counter := newFaultClient(secrets)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize, MaxWriteChunks: 3}
	d := ad.new(counter, testOwner, cfg)
	old := releaseOfChunks(t, "big", 1, release.StatusDeployed, 2, faultChunkSize, 1)
	if err := d.Create(key("big", 1), old); err != nil {
		t.Fatal(err)
	}
	before := versions(t, secrets)
	counter.Reset()

	err := d.Update(key("big", 1), releaseOfChunks(t, "big", 1, release.StatusSuperseded, 5, faultChunkSize, 2))
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("Update past MaxWriteChunks: got %v, want ErrTooLarge", err)
	}
	t.Logf("refused: %v", err)
	for _, c := range counter.Calls() {
		if c[:4] != "get " {
			t.Errorf("refused update made write call %q", c)
		}
	}
	if after := versions(t, secrets); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("refused update changed Secrets: before %v, after %v", before, after)
	}
	got, err := d.Get(key("big", 1))
	if err != nil {
		t.Fatal(err)
	}
	mustEqualRelease(t, old, got)

	counter.Reset()
	err = d.Create(key("big", 2), releaseOfChunks(t, "big", 2, release.StatusDeployed, 4, faultChunkSize, 3))
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("Create past MaxWriteChunks: got %v, want ErrTooLarge", err)
	}
	if n := counter.Count(); n != 0 {
		t.Fatalf("refused create made %d API calls: %v", n, counter.Calls())
	}
	mustHoldOnly(t, secrets, key("big", 1))
}

// TestRetryAfterFailedWrite: a write that failed after some chunks reached the server
// is retried, as Helm's caller would; the retry reuses those chunks (and gives them
// their ownerReference), and nothing is left over.
func TestRetryAfterFailedWrite(t *testing.T) { forEachAdapter(t, testRetryAfterFailedWrite) }

func testRetryAfterFailedWrite(t *testing.T, ad chunkedAdapter) {
	const name = "retry"
	const chunks = 5
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	newRls := func(t *testing.T) *release.Release {
		return releaseOfChunks(t, name, 1, release.StatusSuperseded, chunks, faultChunkSize, 2)
	}
	// Calls 2..chunks of a create are its chunk creates (the first writes its
	// pending index). An update first reads
	// the index, then the versions of the chunks it will no longer name (this
	// driver has read none of them), so its chunk creates are calls
	// chunks+1..2*chunks-1.
	for _, op := range []string{"create", "update"} {
		for fail := 1; fail <= chunks; fail++ {
			if op == "create" && fail == 1 || op == "update" && fail == 1 {
				continue
			}
			t.Run(fmt.Sprintf("%s/call-%d", op, fail), func(t *testing.T) {
				_, secrets := newNamespace(t)
				// The retry is the same Helm's: its chunks are the failed write's.
				clean := ad.new(secrets, testOwner, cfg)
				fc := newFaultClient(secrets)
				fc.failAt, fc.after = fail, true
				if op == "update" {
					fc.failAt += chunks - 1
				}
				faulty := ad.new(fc, testOwner, cfg)
				var err error
				if op == "create" {
					err = faulty.Create(k, newRls(t))
				} else {
					mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, chunks, faultChunkSize, 1))
					err = faulty.Update(k, newRls(t))
				}
				if !errors.Is(err, errInjected) || !strings.HasPrefix(fc.Failed(), "create "+k+"-") {
					t.Fatalf("%s failing chunk create %d: %v (failed call %q)", op, fail, err, fc.Failed())
				}
				if op == "create" {
					err = clean.Create(k, newRls(t))
				} else {
					err = clean.Update(k, newRls(t))
				}
				if err != nil {
					t.Fatalf("retried %s: %v", op, err)
				}
				mustBeOneOf(t, getOrNil(t, clean, k), newRls(t))
				if los := mustFindLeftovers(t, secrets); len(los) != 0 {
					t.Fatalf("left over after the retry: %v", los)
				}
				mustHoldOnly(t, secrets, k)
				mustAllOwned(t, secrets, k)
			})
		}
	}
}

// TestCreateReplacesMismatchingChunk: a Secret under the name of one of the new
// chunks, holding other bytes (a damaged leftover), is replaced, not trusted.
func TestCreateReplacesMismatchingChunk(t *testing.T) {
	_, secrets := newNamespace(t)
	const name = "squat"
	k := key(name, 1)
	rls := releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1)
	names, _ := sliceNames(t, k, rls, faultChunkSize)
	if _, err := secrets.Create(t.Context(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: names[1], Labels: map[string]string{"owner": testOwner, "key": k, "type": "chunk"}},
		Type:       storage.SecretTypeChunk,
		Data:       map[string][]byte{storage.DataChunk: []byte("not the slice")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize})
	mustCreate(t, d, rls)
	got, err := d.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	mustEqualRelease(t, rls, got)
	mustHoldOnly(t, secrets, k)
	mustAllOwned(t, secrets, k)
}
