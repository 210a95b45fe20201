package kube

// store returns the implementation of store d.
func (c *Client) store(d string) store {
	switch d {
	case DriverSecret, DriverConfigMap:
		return &helmStore{c: c, kind: d}
	}
	return chunkedStore{c: c}
}

// stores returns the stores the configuration reads.
func (c *Client) stores() []store {
	out := make([]store, 0, 3)
	for _, d := range c.cfg.drivers() {
		out = append(out, c.store(d))
	}
	return out
}
