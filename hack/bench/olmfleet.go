package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"golang.org/x/sync/errgroup"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// An OLMv1-shaped fleet: ClusterExtensions whose release records operator-controller
// keeps in its system namespace, most of them small (one chunk), a few of several
// chunks.
const (
	olmSystemNamespace = "olmv1-system"
	olmOwner           = "operator-controller"
	// olmChunkSize is the chunk size OLMv1 ships (1 MiB less the index's room).
	olmChunkSize = storage.DefaultChunkSize
	// olmMaxChunks is OLMv1's MaxReadChunks and MaxWriteChunks.
	olmMaxChunks = 10
	// olmMaxHistory is the Helm MaxHistory of OLMv1's upgrades.
	olmMaxHistory = 10
)

// olmFleetShape is how many extensions of each kind the fleet has.
type olmFleetShape struct {
	Small int // one chunk each, 30 KB to 900 KB of gzip a revision
	Large int // 3 to 6 chunks each
}

// stored is what gzip makes of the bundle's JSON size, about: a revision's
// release JSON holds the objects twice (base64 templates and YAML manifest) and
// compresses about 5.5:1 (see bundle.go).
const storedPerObjectByte = 0.66

// olmFleet returns the fleet's extensions, sized about the chunks their class
// asks for (fitFleet makes the large ones exact).
func olmFleet(shape olmFleetShape, seed uint64) []*extension {
	r := rand.New(rand.NewPCG(seed, 17))
	var exts []*extension
	for i := range shape.Small {
		// Log-uniform between 30 KB and 900 KB of gzip.
		gz := 30e3 * math.Exp(r.Float64()*math.Log(30))
		exts = append(exts, &extension{
			Name: fmt.Sprintf("small-%02d", i), Namespace: fmt.Sprintf("small-%02d-system", i),
			Seed: seed*100 + uint64(i), Size: int(gz / storedPerObjectByte), Class: "1 chunk",
		})
	}
	for i := range shape.Large {
		chunks := 3 + i%4
		gz := (float64(chunks) - 0.5) * olmChunkSize
		exts = append(exts, &extension{
			Name: fmt.Sprintf("large-%02d", i), Namespace: fmt.Sprintf("large-%02d-system", i),
			Seed: seed*100 + 50 + uint64(i), Size: int(gz / storedPerObjectByte), Class: fmt.Sprintf("%d chunks", chunks),
			chunks: chunks,
		})
	}
	return exts
}

// fitFleet resizes the large extensions so that their revisions store in the
// chunks their class asks for, two at a time.
func fitFleet(ctx context.Context, exts []*extension) error {
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, e := range exts {
		if e.chunks > 0 {
			g.Go(func() error { return e.fitChunks(e.chunks) })
		}
	}
	return g.Wait()
}

// fitChunks resizes e once so that its first revision stores in chunks chunks, by
// the ratio its first try measured.
func (e *extension) fitChunks(chunks int) error {
	for range 3 {
		rls, err := e.releaseAt(1, release.StatusDeployed, time.Now())
		if err != nil {
			return err
		}
		gz, _, err := storage.EncodePayload(rls)
		if err != nil {
			return err
		}
		if got := (len(gz) + olmChunkSize - 1) / olmChunkSize; got == chunks {
			return nil
		}
		want := (float64(chunks) - 0.5) * olmChunkSize
		e.Size = int(float64(e.Size) * want / float64(len(gz)))
		e.base = nil
	}
	return fmt.Errorf("fleet: %s does not fit in %d chunks after 3 tries", e.Name, chunks)
}
