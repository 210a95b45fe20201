package kube

// Inspector looks into what a Client reads, for a person deciding what to do:
// how a revision is stored (Layout, and LayoutSecrets then MeasureLayout for a
// screen), how two revisions differ (Diff), and what an upgrade would start
// from (UpgradeBase, Capabilities). Like Checker it holds nothing of its own.
type Inspector struct {
	c *Client
}

// NewInspector returns the Inspector that reads through c.
func NewInspector(c *Client) *Inspector { return &Inspector{c: c} }
