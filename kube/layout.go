package kube

import (
	"context"

	"github.com/chunkview/chunkview/storage"
)

// Layout inspects how one revision is stored.
func (in *Inspector) Layout(ctx context.Context, ns, name string, rev int) (*storage.Layout, error) {
	row, err := in.c.Revision(ctx, ns, name, rev)
	if err != nil {
		return nil, err
	}
	return in.c.store(row.driver()).layout(ctx, row)
}

// LayoutSecrets is Layout in two steps, for a screen that draws the first while
// the second runs. For a chunked record it returns its Secrets with their
// sizes, hash checks and owners, from two requests, without decoding the
// payload: MeasureLayout adds the decoded sizes and what takes the space, which
// costs reading the chunks again, decoding them and compressing the release's
// parts anew. A record of Helm's own stores is one object: its layout comes
// whole, and MeasureLayout returns it as it is.
func (in *Inspector) LayoutSecrets(ctx context.Context, ns, name string, rev int) (*storage.Layout, RevisionRow, error) {
	row, err := in.c.Revision(ctx, ns, name, rev)
	if err != nil {
		return nil, row, err
	}
	if row.driver() != DriverChunked {
		l, err := in.c.store(row.driver()).layout(ctx, row)
		return l, row, err
	}
	l, err := chunkedStore{in.c}.layoutSecrets(ctx, row)
	return l, row, err
}

// MeasureLayout completes l, which LayoutSecrets returned for row, into a new
// layout; l is left as it is.
func (in *Inspector) MeasureLayout(ctx context.Context, row RevisionRow, l *storage.Layout) (*storage.Layout, error) {
	if l.Measured() {
		return l, nil
	}
	return chunkedStore{in.c}.measure(ctx, row, l)
}
