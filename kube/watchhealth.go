package kube

import (
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultWatchStaleAfter is how long a watch may stay silent before it is
// reopened. The API server sends a bookmark about every minute on a watch that
// asks for them, so a watch that hears nothing for longer is probably on a
// connection that died without a word (a VPN gone, a NAT entry dropped).
const DefaultWatchStaleAfter = 3 * time.Minute

// watchHealth gathers the state of each store's watch and reports the state of
// the whole when it changes: the worst of the stores', with the last time any
// of them heard from the server.
type watchHealth struct {
	send func(WatchEvent) bool
	now  func() time.Time

	mu     sync.Mutex
	stores []storeHealth
	state  WatchState
}

type storeHealth struct {
	state   WatchState
	contact time.Time
	err     error
	// gone is set on a store no longer followed (skipped): it counts no more.
	gone bool
}

func newWatchHealth(n int, now func() time.Time, send func(WatchEvent) bool) *watchHealth {
	return &watchHealth{send: send, now: now, stores: make([]storeHealth, n), state: WatchUp}
}

// heard records that store i heard from the server: a list, a watch opened, an
// event or a bookmark.
func (h *watchHealth) heard(i int) bool {
	return h.set(i, func(s *storeHealth) { s.state, s.contact, s.err = WatchUp, h.now(), nil })
}

// failed records that store i could not reach the server, or had its watch
// refused or broken, with err.
func (h *watchHealth) failed(i int, err error) bool {
	st := WatchRetrying
	if unreachable(err) {
		st = WatchOffline
	}
	return h.set(i, func(s *storeHealth) { s.state, s.err = st, err })
}

// drop stops counting store i.
func (h *watchHealth) drop(i int) bool {
	return h.set(i, func(s *storeHealth) { s.gone = true })
}

// set changes store i and sends the new state of the whole when it changed;
// it reports false once the watch is to end.
func (h *watchHealth) set(i int, change func(*storeHealth)) bool {
	h.mu.Lock()
	change(&h.stores[i])
	ev, changed := h.summary()
	h.mu.Unlock()
	if !changed {
		return true
	}
	return h.send(ev)
}

// summary returns the event of the state of the whole and whether it differs
// from the last one sent. The caller holds h.mu.
func (h *watchHealth) summary() (WatchEvent, bool) {
	ev := WatchEvent{Type: WatchHealth, State: WatchUp}
	var contact time.Time
	for _, s := range h.stores {
		if s.gone {
			continue
		}
		if s.state.rank() > ev.State.rank() {
			ev.State, ev.Err = s.state, s.err
		}
	}
	for _, s := range h.stores {
		if s.gone {
			continue
		}
		if s.contact.After(contact) {
			contact = s.contact
		}
	}
	ev.LastContact = contact
	if ev.State == h.state {
		return ev, false
	}
	h.state = ev.State
	return ev, true
}

// transient reports whether err may pass by itself (the server unreachable or
// overloaded), so that the request is worth trying again, rather than one that
// will be refused again (forbidden, not served).
func transient(err error) bool {
	return unreachable(err) || isServerError(err) || apierrors.IsTooManyRequests(err)
}

// unreachable reports whether err says that the server could not be reached at
// all: refused, reset, unknown, or silent past the request timeout.
func unreachable(err error) bool {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return false // the server answered
	}
	if !errors.Is(err, ErrUnreachable) && !errors.Is(err, ErrTimeout) {
		err = Explain(err, "watch", "", "")
	}
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTimeout)
}
