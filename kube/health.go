package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/storage"
)

// maxSelectorKeys bounds the keys a chunk listing names in its label selector;
// past it the listing takes every chunk Secret of the owner instead, still in one
// request.
var maxSelectorKeys = 500

// CheckChunks tells whether one revision still has all its chunk Secrets, from
// metadata alone when its summary counts them: one list of the chunk Secrets
// labelled with its key. See CheckHealth.
func (ch *Checker) CheckChunks(ctx context.Context, row RevisionRow) (RevisionRow, error) {
	err := ch.CheckChunksOf(ctx, []*RevisionRow{&row})
	return row, err
}

// CheckChunksOf is CheckChunks for several rows, in place, with one list of chunk
// Secret metadata for all of them.
func (ch *Checker) CheckChunksOf(ctx context.Context, rows []*RevisionRow) error {
	return ch.checkPresence(ctx, rows, true)
}

// CheckHealth tells for each row whether its revision's chunk Secrets are all
// there, with one list of chunk Secret metadata for all of them, and marks each
// Checked, Broken (with the reason), or unchecked (with the reason). A row whose
// chunks are missing but whose index was written moments ago is marked Writing and
// checked again once WritingWindow has passed, by decoding it. Fewer chunk Secrets than the summary counts is not proof (identical
// slices share one), so such a row is decoded to decide. Rows without a summary
// are for FillDetails: decoding is what checks those.
func (ch *Checker) CheckHealth(ctx context.Context, rows []*RevisionRow) error {
	err := ch.checkPresence(ctx, rows, true)
	var writing []*RevisionRow
	var until time.Time
	for _, r := range rows {
		if r.Writing {
			writing = append(writing, r)
			if w := r.Written.Add(WritingWindow); w.After(until) {
				until = w
			}
		}
	}
	if len(writing) == 0 {
		return err
	}
	if wait := min(until.Sub(ch.c.Now()), WritingWindow); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
	for _, r := range writing {
		r.Writing, r.Unchecked = false, ""
	}
	err = errors.Join(err, ch.checkPresence(ctx, writing, false))
	for _, r := range writing {
		if r.Writing {
			// Written again meanwhile: another writer is busy with it.
			r.Unchecked = "its chunks are still missing and its index was written again moments ago: another writer is storing it; look again in a moment"
		}
	}
	return err
}

// VerifyRow decodes a row's revision whatever its summary says, which reads all its
// chunks: the only way to find a chunk whose bytes were damaged. A record found
// with chunks missing moments after its index was written is marked Writing.
func (ch *Checker) VerifyRow(ctx context.Context, row RevisionRow) (RevisionRow, error) {
	d, err := ch.c.Details(ctx, row)
	if err != nil {
		return row, err
	}
	row.Broken, row.Problem, row.Checked = d.Row.Broken, d.Row.Problem, d.Row.Checked
	row.Writing, row.Unchecked, row.Written = false, "", d.Row.Written
	if !row.Known && d.Row.Known {
		row.Summary, row.Known = d.Row.Summary, true
	}
	ch.c.cfg.judge(&row)
	return row, nil
}

// checkPresence is one round of CheckHealth; with wait false, records with chunks
// missing are decoded at once, even those just written.
func (ch *Checker) checkPresence(ctx context.Context, rows []*RevisionRow, wait bool) error {
	var need []*RevisionRow
	var errs []error
	for _, r := range rows {
		switch {
		case r.Broken || r.Checked || r.Writing:
		case !r.Known && !wait:
			// Another tool's record, being written when FillDetails decoded it:
			// decoded again now.
			v, err := ch.VerifyRow(ctx, *r)
			if err != nil {
				r.Unchecked = "it could not be decoded: " + human.FirstLine(err.Error(), 200)
				errs = append(errs, err)
				continue
			}
			*r = v
		case !r.Known:
			r.Unchecked = "its chunk count is not recorded on its index (another tool wrote it) and it was not decoded"
		case r.Peeked && r.Summary.Chunks == 0:
			// Listed from metadata and its controller alone (an OLMv1 release):
			// its index's data, which names its chunks, was not read.
			r.Unchecked = "its chunk count is in its index's data, which the listing does not read; verify reads it"
		case r.Summary.Chunks <= 1:
			r.Checked, r.Unchecked = true, ""
		default:
			need = append(need, r)
		}
	}
	if len(need) == 0 {
		return errors.Join(errs...)
	}
	have, err := ch.chunkSecrets(ctx, need)
	if err != nil {
		for _, r := range need {
			r.Unchecked = "its chunk Secrets could not be listed: " + human.FirstLine(err.Error(), 200)
		}
		return errors.Join(append(errs, err)...)
	}
	for _, r := range need {
		missing := missingChunks(r, have[r.StorageNamespace+"/"+r.Key])
		if missing == "" {
			r.Checked, r.Unchecked = true, ""
			continue
		}
		if wait && ch.c.cfg.beingWritten(r.Written) {
			r.Writing = true
			r.Unchecked = fmt.Sprintf("%s, but its index was written %s ago: another writer may be storing it; checking again shortly", missing, ch.c.Now().Sub(r.Written).Round(time.Second))
			continue
		}
		v, err := ch.VerifyRow(ctx, *r)
		switch {
		case err != nil:
			r.Unchecked = missing + " and it could not be decoded to be sure: " + human.FirstLine(err.Error(), 200)
			errs = append(errs, err)
		case v.Broken && strings.Contains(v.Problem, storage.ErrChunkMissing.Error()):
			// Which one is missing, as the decode found it.
			r.Broken, r.Problem, r.Unchecked = true, missing+": "+strings.TrimPrefix(v.Problem, storage.ErrChunkMissing.Error()+": "), ""
		case v.Writing:
			r.Writing, r.Written, r.Unchecked = true, v.Written, v.Unchecked
		case v.Broken:
			r.Broken, r.Problem, r.Unchecked = true, v.Problem, ""
		default:
			// Identical slices share a chunk Secret: all there after all.
			r.Checked, r.Unchecked = true, ""
		}
	}
	return errors.Join(errs...)
}

// missingChunks says which of row r's chunk Secrets present (their names) lacks,
// "" when none: by name when its index records its chunks' names, else by count.
// It counts chunks as the decode names them ("chunk 4 of 5"): the index's own
// slice is chunk 1 of Summary.Chunks, so "1 of 5 chunks missing: chunk 4 of 5".
// A count that does not add up is not yet a missing chunk (identical slices
// share a Secret; leftovers of an interrupted write may stand beside a missing
// one): the caller's decode decides.
func missingChunks(r *RevisionRow, present map[string]bool) string {
	found, want := len(present), r.Summary.Chunks-1
	switch {
	case r.chunkNamesKnown:
		// The index records its chunks' names: look for each.
		gone := 0
		for _, n := range r.chunkNames {
			if !present[n] {
				gone++ // a Secret identical slices share counts once per chunk
			}
		}
		if gone == 0 {
			return ""
		}
		return fmt.Sprintf("%d of %d chunks missing", gone, len(r.chunkNames)+1)
	case found == want:
		return ""
	case found > want:
		// Leftovers of an interrupted write may stand beside a missing one.
		return fmt.Sprintf("%d chunk Secrets carry its key where its index names %d", found, want)
	default:
		// Identical slices share a Secret: the decode decides.
		return fmt.Sprintf("%d of %d chunks missing", want-found, r.Summary.Chunks)
	}
}

// chunkSecrets lists, in one request, the chunk Secrets of the rows' keys, and
// returns their names by storage namespace/key.
func (ch *Checker) chunkSecrets(ctx context.Context, rows []*RevisionRow) (map[string]map[string]bool, error) {
	ns := rows[0].StorageNamespace
	seen := map[string]bool{}
	var keys []string
	for _, r := range rows {
		if r.StorageNamespace != ns {
			ns = metav1.NamespaceAll
		}
		if !seen[r.Key] {
			seen[r.Key] = true
			keys = append(keys, r.Key)
		}
	}
	sel := storage.ChunkSelector(ch.c.cfg.Owner, "")
	if len(keys) <= maxSelectorKeys {
		if req, err := labels.NewRequirement(storage.LabelKey, selection.In, keys); err == nil {
			sel = sel.Add(*req)
		}
	}
	items, err := secretMeta{ch.c.md}.list(ctx, ns, sel)
	if ns == metav1.NamespaceAll && errors.Is(err, ErrForbidden) {
		// The rows come from the namespaces the user may read (see Releases): one
		// list in each of those instead.
		items, err = nil, nil
		done := map[string]bool{}
		for _, r := range rows {
			if done[r.StorageNamespace] {
				continue
			}
			done[r.StorageNamespace] = true
			more, lerr := secretMeta{ch.c.md}.list(ctx, r.StorageNamespace, sel)
			if lerr != nil {
				return nil, lerr
			}
			items = append(items, more...)
		}
	}
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, m := range items {
		k := m.Namespace + "/" + m.Labels[storage.LabelKey]
		if out[k] == nil {
			out[k] = map[string]bool{}
		}
		out[k][m.Name] = true
	}
	return out, nil
}

// uniq returns names without repeats, in order.
func uniq(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
