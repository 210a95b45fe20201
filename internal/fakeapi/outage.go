package fakeapi

import (
	"net"
	"net/url"
	"syscall"
)

// SetReachable takes the cluster off the network (false) or puts it back
// (true). Off it, every request fails as one to a server whose port is closed
// does (connection refused, before the server sees it: nothing is counted),
// and every open watch ends, as when the connection drops; the objects stay
// as they were. It lets the demo show what the live view does when the API
// server goes away.
func (c *Cluster) SetReachable(up bool) {
	c.mu.Lock()
	c.offline = !up
	c.mu.Unlock()
	if up {
		return
	}
	c.store.mu.Lock()
	ws := make([]*watcher, 0, len(c.store.watchers))
	for w := range c.store.watchers {
		ws = append(ws, w)
	}
	c.store.mu.Unlock()
	for _, w := range ws {
		w.Stop()
	}
}

// unreachable is the error of a request while the cluster is off the network,
// nil while it is on it.
func (c *Cluster) unreachable(verb string) error {
	if !c.offline {
		return nil
	}
	return &url.Error{Op: "Get", URL: "https://" + demoServer + "/ (" + verb + ")",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
}

// demoServer is the address the errors of an unreachable cluster name.
const demoServer = "demo.invalid:6443"
