package common

import (
	"context"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/theme"
)

// Common is what every screen carries: the client it reads through, the shared
// styles and keys, the clock, and the size of the area it draws in. Screens embed it
// by value; the root updates each screen's size on resize.
type Common struct {
	Ctx    context.Context
	Client *kube.Client
	Styles *theme.Styles
	Keys   *theme.KeyMap
	Now    func() time.Time
	// Layouts remembers the chunk layouts seen, so the release list can draw the
	// largest Secret's share exactly once a layout is known.
	Layouts *LayoutCache
	// KubeContext is the kube context the client reaches ("" when unknown);
	// contexts, when set, are those the view may switch to.
	KubeContext string
	Contexts    *kube.Contexts

	Width, Height int

	// clientClock says Now is the client's (Client.Now): it follows the
	// client when the view switches contexts.
	clientClock bool
}

// New is the shared value over client: the default styles and keys (those that
// change the cluster off when the client is read-only), the clock now (the
// client's when nil: the demo's clock starts at its snapshot's moment) and an
// empty cache of layouts.
func New(ctx context.Context, client *kube.Client, now func() time.Time) Common {
	styles := theme.DefaultStyles()
	keys := theme.DefaultKeyMap()
	if client.ReadOnly() {
		keys.DisableActions()
	}
	clientClock := now == nil
	if clientClock {
		now = client.Now
	}
	return Common{Ctx: ctx, Client: client, Styles: &styles, Keys: &keys, Now: now, Layouts: NewLayoutCache(), clientClock: clientClock}
}

// SetSize sets the size the screen draws in.
func (c *Common) SetSize(w, h int) { c.Width, c.Height = w, h }

// ReadOnly reports whether actions are refused.
func (c *Common) ReadOnly() bool { return c.Client.ReadOnly() }

// Where names the context and namespace an action on namespace ns changes, for
// the dialogs that confirm it.
func (c *Common) Where(ns string) string {
	if c.KubeContext == "" {
		return "namespace " + ns
	}
	return "context " + c.KubeContext + " · namespace " + ns
}

// withClient returns a copy of c reading through client.
func (c Common) withClient(client *kube.Client) Common {
	c.SetClient(client)
	return c
}

// SetClient makes c read through client, and read its clock when it read the
// previous client's.
func (c *Common) SetClient(client *kube.Client) {
	c.Client = client
	if c.clientClock {
		c.Now = client.Now
	}
}

// ForRow returns c reading through the store of row only: a release of the same
// name in another store is another release.
func (c Common) ForRow(row kube.RevisionRow) Common {
	return c.withClient(c.Client.WithDrivers(StoreOf(row.Driver)))
}
