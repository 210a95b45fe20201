package kube

import (
	"context"
	"fmt"

	"helm.sh/helm/v3/pkg/release"
)

// Decode decodes the revision row shows (through the details cache), failing
// when it cannot be read.
func (c *Client) Decode(ctx context.Context, row RevisionRow) (*release.Release, error) {
	d, err := c.Details(ctx, row)
	if err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("revision %d of %q cannot be read: %s", row.Revision, row.Name, d.Row.Problem)
	}
	return d.Release, nil
}
