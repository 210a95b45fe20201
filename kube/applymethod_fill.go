package kube

import "context"

// FillApplyMethods sets the apply method (and the fields Helm 3 would drop) of
// the chunked rows that lack it, from their records: Helm 4 writes apply_method
// as the release's last field, so neither an index's summary (which chunkview
// writes without it) nor a peek at its first slice holds it, and the whole
// record is read and decoded, through the details cache, four at a time. Rows
// of Helm's stores have theirs from the listing (read off the end of each
// record), and broken rows are left as they are. It costs what a decode of each
// row costs: callers ask for it where the apply method is shown (history -o
// wide, -o json).
func (c *Client) FillApplyMethods(ctx context.Context, rows []*RevisionRow) error {
	var todo []*RevisionRow
	for _, r := range rows {
		if r.driver() == DriverChunked && r.ApplyMethod == "" && len(r.UnknownFields) == 0 && !r.Broken {
			todo = append(todo, r)
		}
	}
	return forEachIn(make(chan struct{}, fillWidth), todo, func(r *RevisionRow) error {
		d, err := c.Details(ctx, *r)
		if err != nil {
			return err
		}
		if d.Release != nil {
			r.ApplyMethod, r.UnknownFields = d.Row.ApplyMethod, d.Row.UnknownFields
		}
		return nil
	})
}
