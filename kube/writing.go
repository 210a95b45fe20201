package kube

import (
	"fmt"
	"strings"
	"time"

	"github.com/chunkview/chunkview/storage"
)

// WritingWindow is how long after its index was written a record whose chunks are
// missing counts as one being written rather than a broken one.
// helm-operator-plugins writes the index before its chunks, and rewrites it before
// creating the new ones, so while the operator reconciles a healthy release is, for
// a moment, an index naming chunks that do not exist yet.
const WritingWindow = 5 * time.Second

// beingWritten reports whether a record written at t may still be being written.
// A time ahead of the clock by more than the window (a skewed or bogus label) does
// not count, so that a broken record is always reported in the end.
func (cfg Config) beingWritten(t time.Time) bool {
	if t.IsZero() {
		return false
	}
	d := cfg.now().Sub(t)
	return d < WritingWindow && d > -WritingWindow
}

// judge turns a row found broken for missing chunks, whose index was written
// moments ago, into one being written: the record is checked again once
// WritingWindow has passed, and reported broken then if it still is.
func (cfg Config) judge(r *RevisionRow) {
	if !r.Broken || !strings.Contains(r.Problem, storage.ErrChunkMissing.Error()) || !cfg.beingWritten(r.Written) {
		return
	}
	r.Broken, r.Writing, r.Checked = false, true, false
	r.Unchecked = fmt.Sprintf("a chunk Secret is missing, but its index was written %s ago: another writer may be storing it; checking again shortly",
		cfg.now().Sub(r.Written).Round(time.Second))
	r.Problem = ""
}

// now is the configuration's clock (Config.Now), else the time.
func (cfg Config) now() time.Time {
	if cfg.Now != nil {
		return cfg.Now()
	}
	return time.Now()
}
