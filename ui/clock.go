package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// ageRefresh is how often the live view redraws on its own, so that AGE (and
// any other time since) counts up without a key press, as k9s's does.
const ageRefresh = time.Second

// clockMsg is the live view's redraw tick. It changes nothing: the redraw that
// follows every message recomputes the ages from the clock.
type clockMsg struct{ gen int }

// runClock sends a clockMsg of generation gen every ageRefresh until ctx ends
// (the live view stops or restarts).
func runClock(ctx context.Context, send func(tea.Msg), gen int) {
	t := time.NewTicker(ageRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			send(clockMsg{gen: gen})
		}
	}
}
