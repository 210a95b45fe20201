package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/kube"
)

// Prune is a planned pruning of a release's history: the revisions it keeps and
// the records it deletes, oldest first, with the bytes that frees. Helm only
// limits history going forward (--history-max); this removes what is already
// there.
type Prune struct {
	// Plan is the release as it was when the pruning was planned.
	Plan `json:"-"`
	// Keep is how many of the newest revisions are kept.
	Keep int `json:"keep"`
	// Kept are the revisions that stay: the Keep newest, and the latest deployed
	// one wherever it is; the latest is always among them.
	Kept []int `json:"kept"`
	// Removed are the revisions whose records go, oldest first, each with the
	// bytes its record holds.
	Removed []Pruned `json:"removed"`
	// FreedBytes is what the removed records hold; FreedAtMost, when
	// FreedExact is false, bounds it (some records' sizes are known only as a
	// bound: another tool wrote them and they were not decoded).
	FreedBytes  int64 `json:"freedBytes"`
	FreedExact  bool  `json:"freedExact"`
	FreedAtMost int64 `json:"freedAtMost,omitempty"`
	// Helm is which Helm's drivers delete the records, and why.
	HelmChoice
	// Done counts the records deleted, once applied.
	Done int `json:"done"`
}

// Pruned is one revision a pruning removes.
type Pruned struct {
	Revision int    `json:"revision"`
	Status   string `json:"status"`
	Key      string `json:"key"`
	// StoredBytes is what its record holds (0 when not known), AtMost a bound.
	StoredBytes int64 `json:"storedBytes"`
	AtMost      int64 `json:"atMost,omitempty"`
	// Unreadable is set for a record that cannot be read: it is deleted as it
	// is, without being decoded.
	Unreadable bool `json:"unreadable,omitempty"`
}

var _ Operation = (*Prune)(nil)

// Verb is kube.OpPrune.
func (o *Prune) Verb() string { return kube.OpPrune }

// Base is the release the pruning was planned from.
func (o *Prune) Base() *Plan { return &o.Plan }

// Helm is the Helm whose drivers delete the records.
func (o *Prune) Helm() int { return o.Major }

// PlanPrune returns the plan of keeping the keep newest revisions of the release
// of p (and its latest deployed one) and deleting every other revision's record.
// The sizes are those the rows know; rows without one are read (decoded through
// the details cache) to tell the bytes freed.
func (r *Runner) PlanPrune(ctx context.Context, p *Plan, keep int) (*Prune, error) {
	if keep < 1 {
		return nil, fmt.Errorf("--keep %d: keep at least the latest revision (1 or more)", keep)
	}
	o := &Prune{Plan: *p, Keep: keep, FreedExact: true}
	deployed := 0
	for _, row := range p.Rows {
		if row.Status == "deployed" && row.Revision > deployed {
			deployed = row.Revision
		}
	}
	n := len(p.Rows)
	var remove []kube.RevisionRow
	for i, row := range p.Rows {
		if i >= n-keep || row.Revision == deployed {
			o.Kept = append(o.Kept, row.Revision)
			continue
		}
		remove = append(remove, row)
	}
	var revs []int
	for _, row := range remove {
		pr := Pruned{Revision: row.Revision, Status: row.Status, Key: row.Key}
		d, err := r.c.Details(ctx, row)
		if err != nil {
			return nil, err
		}
		got := d.Row
		switch {
		case d.Release == nil:
			pr.Unreadable = true
		default:
			revs = append(revs, row.Revision)
		}
		pr.StoredBytes = got.Summary.StoredBytes
		if pr.StoredBytes <= 0 {
			pr.StoredBytes, pr.AtMost = 0, got.StoredAtMost
			o.FreedExact = false
		}
		o.FreedBytes += pr.StoredBytes
		o.FreedAtMost += max(pr.StoredBytes, pr.AtMost)
		o.Removed = append(o.Removed, pr)
	}
	if o.FreedExact {
		o.FreedAtMost = 0
	}
	var err error
	if len(revs) == 0 {
		o.HelmChoice = HelmChoice{Major: 3, Reason: "no record it deletes needs decoding"}
	} else if o.HelmChoice, err = r.helmFor(ctx, p, revs...); err != nil {
		return nil, err
	}
	return o, nil
}

// Describe says in a sentence what the pruning does.
func (o *Prune) Describe() string {
	if len(o.Removed) == 0 {
		return fmt.Sprintf("%s has %d revisions: nothing to prune with --keep %d.", o.Release, len(o.Rows), o.Keep)
	}
	revs := make([]string, len(o.Removed))
	for i, pr := range o.Removed {
		revs[i] = fmt.Sprint(pr.Revision)
	}
	freed := humanBytes(o.FreedBytes)
	if !o.FreedExact {
		freed = "at most " + humanBytes(o.FreedAtMost)
	}
	kept := make([]string, len(o.Kept))
	for i, k := range o.Kept {
		kept[i] = fmt.Sprint(k)
	}
	return fmt.Sprintf("Deletes the records of %d revision(s) of %s, oldest first (%s), freeing %s; keeps %s. The release's resources stay as they are. Runs through %s.",
		len(o.Removed), o.Release, strings.Join(revs, ", "), freed, strings.Join(kept, ", "), o.HelmChoice.Text())
}

// humanBytes is a size as people read it: "12 KiB".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// run deletes the records, oldest first: an interruption leaves the history
// shorter at its old end, never with a gap among the revisions it keeps.
func (o *Prune) run(_ context.Context, _ *Runner, h helm) error {
	for _, pr := range o.Removed {
		var err error
		if pr.Unreadable {
			err = h.forceDelete(pr.Key)
		} else {
			err = h.delete(pr.Key)
		}
		if err != nil {
			return fmt.Errorf("deleting revision %d (after %d of %d): %w", pr.Revision, o.Done, len(o.Removed), err)
		}
		o.Done++
	}
	return nil
}
