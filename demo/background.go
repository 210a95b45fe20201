package demo

import (
	"context"
	"slices"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// QuickSamples are the samples SeedInBackground writes before it returns, so
// that a view opened on the cluster has rows at once: two of the cheapest to
// write, a few small revisions each, in two stores.
var QuickSamples = []string{"podinfo", RedisRelease}

// cheapestFirst is the order SeedInBackground writes the samples in, by what
// each costs to write: the last ones take most of Seed's time (loki-stack's
// records of nearly 1 MiB, cert-manager's CRDs, the multi-chunk releases, all
// compressed at best compression).
var cheapestFirst = []string{"podinfo", RedisRelease, "argocd-operator", IngressNginxRelease, "payments-api",
	"fraud-model", "grafana-dashboards", "ledger", "web-frontend", "cert-manager", LokiStackRelease}

// Seeding is a Seed under way in the background (SeedInBackground).
type Seeding struct {
	done  chan struct{}
	fleet *Fleet
	err   error
}

// Done is closed once every sample is written.
func (s *Seeding) Done() <-chan struct{} { return s.done }

// Wait waits until every sample is written and returns what Seed returns.
func (s *Seeding) Wait() (*Fleet, error) {
	<-s.done
	return s.fleet, s.err
}

// SeedInBackground writes what Seed writes, with opts, but returns once the
// QuickSamples among them are written, and writes the others in the background,
// cheapest first, each with its damage, then compacts the watch history as Seed
// does. A view opened on c meanwhile lists the quick samples at once and the
// others as they land: a live view takes them from its watch, which the
// compaction sends back to list once (410 Gone). The background writes stop when
// ctx ends.
func SeedInBackground(ctx context.Context, c *fakeapi.Cluster, opts SeedOptions) (*Seeding, error) {
	sd, err := newSeeding(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	order := slices.Clone(sd.samples)
	rank := func(s sample) int {
		if i := slices.Index(cheapestFirst, s.name); i >= 0 {
			return i
		}
		return len(cheapestFirst)
	}
	slices.SortStableFunc(order, func(a, b sample) int { return rank(a) - rank(b) })
	var rest []sample
	for _, s := range order {
		if !slices.Contains(QuickSamples, s.name) {
			rest = append(rest, s)
			continue
		}
		if err := sd.write(s); err != nil {
			return nil, err
		}
	}
	bg := &Seeding{done: make(chan struct{})}
	go func() {
		defer close(bg.done)
		defer c.Compact()
		for _, s := range rest {
			if err := sd.write(s); err != nil {
				bg.err = err
				return
			}
		}
		bg.fleet = sd.fleet()
	}()
	return bg, nil
}
