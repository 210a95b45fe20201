package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chunkview/chunkview/storage"
)

// FindLeftovers lists, per storage namespace in view, the chunk Secrets no index
// names that are older than minAge (storage.DefaultMinLeftoverAge when zero), and
// the younger ones apart. It changes nothing: a caller shows the list, asks, and
// hands the same list to RemoveLeftovers, so that only what was shown is removed.
// As Verify, it may return reports with a *PartialError.
func (ch *Checker) FindLeftovers(ctx context.Context, minAge time.Duration) ([]NamespaceReport, error) {
	return ch.verifyEach(ctx, storage.VerifyOptions{MinAge: minAge})
}

// RemoveLeftovers deletes the leftovers of reports found by FindLeftovers, each only
// if it is still the same object and still unreferenced. It returns how many went.
func (ch *Checker) RemoveLeftovers(ctx context.Context, reps []NamespaceReport) (int, error) {
	if err := ch.c.cfg.checkWritable("gc"); err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, r := range reps {
		if r.Report == nil || len(r.Leftovers) == 0 {
			continue
		}
		n, err := storage.RemoveLeftovers(ctx, ch.c.cs.CoreV1().Secrets(r.Namespace), r.Leftovers)
		removed += n
		if err != nil {
			errs = append(errs, Explain(err, "delete", "secrets", r.Namespace))
		}
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("%w; what was removed is gone for good and the rest is untouched: retry gc (verify lists what is left)", errors.Join(errs...))
	}
	return removed, nil
}
