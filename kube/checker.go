package kube

// Checker checks what a Client reads: whether each revision's chunks are all
// there (CheckHealth, VerifyRow), the stores' records as a whole (Verify,
// FindLeftovers and RemoveLeftovers) and the APIs a revision's objects use
// against those the cluster serves (ServedAPIs, CheckAPIs). It holds nothing of
// its own: the Client's connection, view and details cache are what it reads
// through, so a Checker costs nothing to make, where it is used.
type Checker struct {
	c *Client
}

// NewChecker returns the Checker that reads through c.
func NewChecker(c *Client) *Checker { return &Checker{c: c} }
