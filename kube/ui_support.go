package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage"
)

// CheckChunks tells whether a revision whose summary is known from its annotations
// still has all its chunk Secrets, from metadata alone: one list of the chunk
// Secrets labelled with its key. Only when fewer are found than the summary counts
// (identical slices share a Secret, so fewer is not proof) is the revision decoded,
// through Details, to be sure. Rows without a summary, or of one chunk, come back
// as they are; FillDetails is for those.
func (c *Client) CheckChunks(ctx context.Context, row RevisionRow) (RevisionRow, error) {
	if !row.Known || row.Broken || row.Summary.Chunks <= 1 {
		return row, nil
	}
	opts := metav1.ListOptions{LabelSelector: storage.ChunkSelector(c.cfg.Owner, row.Key).String()}
	list, err := c.md.Resource(secretsGVR).Namespace(row.StorageNamespace).List(ctx, opts)
	if err != nil {
		return row, Explain(err, "list", "secrets", row.StorageNamespace)
	}
	if len(list.Items) >= row.Summary.Chunks-1 {
		return row, nil
	}
	d, err := c.Details(ctx, row)
	if err != nil {
		return row, err
	}
	if d.Row.Broken {
		row.Broken = true
		row.Problem = d.Row.Problem
		if row.Problem == "" {
			row.Problem = fmt.Sprintf("%d of %d chunk Secrets exist", len(list.Items), row.Summary.Chunks-1)
		}
	}
	return row, nil
}
