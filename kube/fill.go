package kube

import (
	"errors"
	"slices"
	"sync"
)

// forEachIn calls fn on each item in a goroutine of its own, each holding a
// slot of sem while it runs, so that calls sharing sem run no more than cap(sem)
// fns at once, and joins their errors.
func forEachIn[T any](sem chan struct{}, items []T, fn func(T) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(it); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fillEach runs fill over the rows want picks, four at a time, and writes back
// what each returns; cfg.judge then looks at it.
func (cfg Config) fillEach(rows []*RevisionRow, want func(*RevisionRow) bool, fill func(RevisionRow) (RevisionRow, error)) error {
	return cfg.fillEachIn(make(chan struct{}, fillWidth), rows, want, fill)
}

// fillWidth is how many rows are filled at once: each fill may decode a record.
const fillWidth = 4

// fillEachIn is fillEach with the slots of sem, which other calls may share so
// that together they fill no more than cap(sem) rows at once.
func (cfg Config) fillEachIn(sem chan struct{}, rows []*RevisionRow, want func(*RevisionRow) bool, fill func(RevisionRow) (RevisionRow, error)) error {
	var mu sync.Mutex
	return forEachIn(sem, slices.DeleteFunc(slices.Clone(rows), func(r *RevisionRow) bool { return !want(r) }), func(r *RevisionRow) error {
		got, err := fill(*r)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		*r = got
		cfg.judge(r)
		return nil
	})
}

// filledFrom is row with what a decode of it found (d): its summary, whether it
// is broken, and whether it was checked.
func filledFrom(row, d RevisionRow) RevisionRow {
	row.Summary, row.Known, row.Broken, row.Problem = d.Summary, d.Known, d.Broken, d.Problem
	row.Checked, row.Written = d.Checked, d.Written
	row.Peeked, row.StoredAtMost, row.NamespaceUnknown = d.Peeked, d.StoredAtMost, d.NamespaceUnknown
	row.settle()
	if d.Known && !d.Peeked {
		row.ApplyMethod, row.UnknownFields = d.ApplyMethod, d.UnknownFields
	}
	if d.Known && !d.Updated.IsZero() {
		// When it was deployed, as the record says, rather than when its
		// metadata was last written (a row of Helm's stores off a watch).
		row.Updated = d.Updated
	}
	return row
}
