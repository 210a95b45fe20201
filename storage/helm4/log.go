package helm4

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// Logger returns the logger the driver writes its log lines to when its
// configuration has no Log function, and that Helm 4's chunked.Init takes up for
// its own: slog.Default() until SetLogger sets another.
func (c *ChunkedSecrets) Logger() *slog.Logger { return c.log.logger() }

// SetLogger makes the driver, and every copy WithContext, Expect or Fresh made of
// it, log through h; nil discards, as it does for Helm 4's drivers, which have the
// same pair of methods so that an action's storage logs where its driver does.
func (c *ChunkedSecrets) SetLogger(h slog.Handler) { c.log.set(h) }

// logHolder is the logger a driver and its copies share.
type logHolder struct {
	l atomic.Pointer[slog.Logger]
}

func (h *logHolder) logger() *slog.Logger {
	if l := h.l.Load(); l != nil {
		return l
	}
	return slog.Default()
}

func (h *logHolder) set(handler slog.Handler) {
	if handler == nil {
		handler = slog.DiscardHandler
	}
	h.l.Store(slog.New(handler))
}

// debugf is the driver's Log function when its configuration has none. The line
// is formatted only when the logger would write it.
func (h *logHolder) debugf(format string, args ...interface{}) {
	l := h.logger()
	if l.Enabled(context.Background(), slog.LevelDebug) {
		l.Debug(fmt.Sprintf(format, args...), slog.String("driver", "chunkedSecrets"))
	}
}
