package storage_test

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// rewriteChunkSize and rewriteChunks shape the record the original driver rewrites:
// enough chunks that its rewrite (delete every chunk, update the index, create the
// chunks one by one) leaves the record whole only for a moment.
const (
	rewriteChunkSize = 4 << 10
	rewriteChunks    = 12
)

// rewriteVariant returns revision content v of the busy record: the same release
// with the custom label rev=v. The format writes the labels last, so variants
// differ in the tail of their gzip stream only, as an upgrade that changes one
// value late in the release does: their first chunks have the same names.
func rewriteVariant(base *release.Release, v int) *release.Release {
	rls := *base
	rls.Labels = maps.Clone(base.Labels)
	rls.Labels["rev"] = strconv.Itoa(v)
	return &rls
}

// getLog is a Secret client that records each Get it forwards: the name, whether
// it returned a Secret, and, for an index, the chunk names it held.
type getLog struct {
	corev1client.SecretInterface
	key string

	mu   sync.Mutex
	gets []getCall
}

type getCall struct {
	name  string
	found bool
	// cached is set on a Get from the API server's cache: the first Get of every
	// chunk fetch a read makes.
	cached bool
	// chunks are the names an index named; nil for a chunk.
	chunks []string
}

func (g *getLog) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	s, err := g.SecretInterface.Get(ctx, name, opts)
	call := getCall{name: name, found: err == nil, cached: opts.ResourceVersion == "0"}
	if err == nil && name == g.key {
		call.chunks, _ = storage.ParseExtraChunks(name, s.Data[storage.DataExtraChunks])
		if call.chunks == nil {
			call.chunks = []string{}
		}
	}
	g.mu.Lock()
	g.gets = append(g.gets, call)
	g.mu.Unlock()
	return s, err
}

// take returns the Gets recorded since the last take.
func (g *getLog) take() []getCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.gets
	g.gets = nil
	return out
}

// readFigures is what the Gets of one read show: how many times it read the index
// (attempts), its chunk Gets that found a chunk, the names found more than once, and
// the chunks its last attempt took from earlier attempts instead of fetching them
// (reused) and those earlier attempts' index named that they had already verified
// (reusable: the Gets a read that starts over from nothing makes again).
type readFigures struct {
	attempts, chunkGets, reused, reusable int
	refetched                             []string
}

func figuresOf(gets []getCall) readFigures {
	var f readFigures
	found := map[string]bool{}
	var last []string
	var lastFetched map[string]bool
	for _, g := range gets {
		if g.chunks != nil {
			f.attempts++
			named := map[string]bool{}
			for _, n := range g.chunks {
				named[n] = true
				if found[n] {
					f.reusable++
				}
			}
			// A read keeps one record's chunks: those this index names. One it
			// no longer names is let go, and fetched again if a later index
			// names it once more (the writer went back to an earlier content).
			for n := range found {
				if !named[n] {
					delete(found, n)
				}
			}
			last, lastFetched = g.chunks, map[string]bool{}
			continue
		}
		if !g.found {
			continue
		}
		f.chunkGets++
		if found[g.name] {
			f.refetched = append(f.refetched, g.name)
		}
		found[g.name] = true
		if lastFetched != nil {
			lastFetched[g.name] = true
		}
	}
	for _, n := range last {
		if !lastFetched[n] && found[n] {
			f.reused++
		}
	}
	return f
}

// TestReadsRideOutRewritesInALoop: helm-operator-plugins v0.9.1's driver rewrites
// a 12-chunk record without pause — the same content twice, then a new content
// that changes the stream's tail only — while chunkview's Get, with the default
// ReadRetry, reads it again and again. Every read returns a release the writer
// wrote. The original driver's record is whole only between its last chunk create
// and its next delete of every chunk, so reads restart; each restart fetches only
// the chunks that read has not verified yet: no chunk is fetched twice by one read
// while the indexes it reads go on naming it, and the last attempts take chunks
// from the earlier ones.
func TestReadsRideOutRewritesInALoop(t *testing.T) {
	for _, op := range []string{"get", "list"} {
		t.Run(op, func(t *testing.T) { rideOutRewrites(t, op) })
	}
}

func rideOutRewrites(t *testing.T, op string) {
	const reads = 10
	_, secrets := newNamespace(t)
	const name = "busy"
	k := key(name, 1)
	base := releaseOfChunks(t, name, 1, release.StatusDeployed, rewriteChunks, rewriteChunkSize, 41)
	orig := hopstorage.NewChunkedSecrets(secrets, testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: rewriteChunkSize})
	if err := orig.Create(k, rewriteVariant(base, 0)); err != nil {
		t.Fatal(err)
	}
	mustShareHead(t, secrets, orig, k, base)

	var restarted, reused int
	for round := 1; ; round++ {
		r := rewriteRound(t, secrets, orig, k, base, reads, op)
		restarted += r.restarted
		reused += r.reused
		t.Logf("round %d: %d reads, %d failed, %d restarted, %d rewrites during reads; %d index Gets, %d chunk Gets, %d chunks reused by last attempts, %d by all",
			round, reads, r.failed, r.restarted, r.overlapped, r.attempts, r.chunkGets, r.reused, r.reusable)
		if t.Failed() {
			return
		}
		if r.restarted > 0 && r.reused > 0 {
			break
		}
		if round == 3 {
			t.Fatalf("in %d rounds of %d reads, %d restarted and %d chunks were reused: the writer raced the reads too little", round, reads, restarted, reused)
		}
	}
}

// rewriteResult is one round of TestReadsRideOutRewritesInALoop.
type rewriteResult struct {
	readFigures
	failed, restarted, overlapped int
}

// rewriteRound runs the original driver's rewrite loop while reads reads of k
// (op: Get, or List) follow one another through chunkview, and checks each read.
func rewriteRound(t *testing.T, secrets corev1client.SecretInterface, orig interface {
	Update(string, *release.Release) error
}, k string, base *release.Release, reads int, op string) rewriteResult {
	t.Helper()
	var (
		rewrites atomic.Int64
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Each content twice in a row, then the next one.
			if err := orig.Update(k, rewriteVariant(base, i/2)); err != nil {
				t.Errorf("the original driver's rewrite %d: %v", i, err)
				return
			}
			rewrites.Add(1)
		}
	})
	defer func() { close(stop); wg.Wait() }()

	var res rewriteResult
	gl := &getLog{SecretInterface: secrets, key: k}
	for i := range reads {
		logs := &logRecorder{}
		d := storage.NewDriver(gl, testOwner, storage.ChunkedSecretsConfig{Log: logs.Log})
		before := rewrites.Load()
		got, err := readOne(d, k, op)
		during := rewrites.Load() - before
		f := figuresOf(gl.take())
		// A Get reads the index first, then once per restart; a listing reads
		// it in its list, then once per restart.
		restarts := f.attempts
		if op == "get" {
			restarts--
		}
		if err != nil {
			res.failed++
			t.Errorf("read %d, through %d rewrites and %d restarts: %v", i, during, restarts, err)
		} else if v, verr := strconv.Atoi(got.Labels["rev"]); verr != nil || !sameRelease(got, rewriteVariant(base, v)) || int64(v) > rewrites.Load()/2+1 {
			t.Errorf("read %d returned a release the writer did not write (rev %q)", i, got.Labels["rev"])
		}
		if len(f.refetched) > 0 {
			t.Errorf("read %d fetched chunks it had verified again: %v", i, f.refetched)
		}
		if restarts > 0 {
			res.restarted++
		}
		if during > 0 {
			res.overlapped += int(during)
		}
		res.attempts += f.attempts
		res.chunkGets += f.chunkGets
		res.reused += f.reused
		res.reusable += f.reusable
	}
	if res.overlapped == 0 {
		t.Errorf("no rewrite completed during %d reads: the writer did not run", reads)
	}
	return res
}

// readOne reads k through d: by Get, or as the one release a List returns.
func readOne(d *storage.ChunkedSecrets, k, op string) (*release.Release, error) {
	if op == "get" {
		return d.Get(k)
	}
	all, err := d.List(nil)
	if err != nil {
		return nil, err
	}
	if len(all) != 1 {
		return nil, fmt.Errorf("list returned %d releases, want the one of %s", len(all), k)
	}
	return all[0], nil
}

// mustShareHead has the original driver write two contents of the busy record and
// fails unless they share their first chunks and differ in the last: the content
// change the race runs on.
func mustShareHead(t *testing.T, secrets corev1client.SecretInterface, orig interface {
	Update(string, *release.Release) error
}, k string, base *release.Release) {
	t.Helper()
	var lists [][]string
	for v := range 2 {
		if err := orig.Update(k, rewriteVariant(base, v)); err != nil {
			t.Fatal(err)
		}
		_, names := recordChunks(t, secrets, k)
		lists = append(lists, names)
	}
	a, b := lists[0], lists[1]
	if len(a) != rewriteChunks-1 || len(b) != rewriteChunks-1 {
		t.Fatalf("the contents take %d and %d chunks, want %d", len(a)+1, len(b)+1, rewriteChunks)
	}
	same := 0
	for same < len(a) && a[same] == b[same] {
		same++
	}
	if same < len(a)/2 || same == len(a) {
		t.Fatalf("two contents share %d of their %d chunk names, want most but not all", same, len(a))
	}
	t.Logf("two contents share their first %d chunks of %d", same+1, rewriteChunks)
}
