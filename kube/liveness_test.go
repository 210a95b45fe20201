package kube_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// isHealth accepts the WatchHealth event of state st.
func isHealth(st kube.WatchState) func(kube.WatchEvent) bool {
	return func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchHealth && ev.State == st }
}

// TestWatchHealthFollowsTheConnection: through a proxy that stops accepting
// connections, the watch reports OFFLINE with the time it last heard from the
// server and an unreachable error; once the proxy accepts again but the server
// answers 500, RETRYING; once it answers, up again, and the record written
// meanwhile arrives.
func TestWatchHealthFollowsTheConnection(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close) // after the watch's context ends
	kc, err := p.WriteKubeconfig(t.TempDir(), ns)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, kc, []string{"--driver", "chunked,secret"}, nil)
	before := time.Now()
	ch := c.Watch(ctx, kube.WatchOptions{})
	nextEvent(t, ch, "synced", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchSynced && ev.Initial })

	// The probe request closes the proxy's listener and every connection, the
	// watches' too. Only the probe matches: a request of the watch's own,
	// arriving first, would close the listener after the probe's connection
	// was accepted, and the probe would be answered.
	p.SetRule(faultproxy.Rule{Kind: faultproxy.Refuse, K: 1, Match: func(r *http.Request) bool { return r.URL.Query().Has("probe") }})
	if resp, err := http.Get(p.URL() + "/version?probe"); err == nil {
		resp.Body.Close()
		t.Fatal("the refusing request was answered")
	}
	if p.Fired() != 1 || !p.Refused() {
		t.Fatalf("the refuse rule fired %d times, refused=%v", p.Fired(), p.Refused())
	}
	ev := nextEvent(t, ch, "offline", isHealth(kube.WatchOffline))
	if !errors.Is(ev.Err, kube.ErrUnreachable) {
		t.Errorf("offline with error %v, want one wrapping ErrUnreachable", ev.Err)
	}
	if ev.LastContact.Before(before) || ev.LastContact.After(time.Now()) {
		t.Errorf("last contact %v, want a time since the watch started (%v)", ev.LastContact, before)
	}
	contact := ev.LastContact

	// Written while the watch cannot see it.
	seed(t, chunkviewDriver(ns, storage.HelmOwner, 16<<10), makeRelease("late", ns, 1, release.StatusDeployed, 0))

	// The proxy accepts again, but every request gets a 500: the server is
	// there and failing, so the watch retries.
	p.SetRule(faultproxy.Rule{Kind: faultproxy.Status500})
	if err := p.Reopen(); err != nil {
		t.Fatal(err)
	}
	ev = eventWithin(t, ch, "retrying", time.Minute, isHealth(kube.WatchRetrying))
	if p.Fired() == 0 {
		t.Error("retrying, yet no request got the 500")
	}
	if errors.Is(ev.Err, kube.ErrUnreachable) || ev.Err == nil || !strings.Contains(ev.Err.Error(), "faultproxy: injected internal error") {
		t.Errorf("retrying with error %v, want the server's 500", ev.Err)
	}
	if !ev.LastContact.Equal(contact) {
		t.Errorf("last contact moved to %v while nothing answered (was %v)", ev.LastContact, contact)
	}

	// Every store's watch backs off, up to a limit, as it keeps failing: the
	// first retry after the server answers again may take that long.
	p.Reset()
	// The stores' watches reopen one by one: the record may come before the
	// last of them is up.
	var up, late bool
	deadline := time.After(2 * time.Minute)
	for !up || !late {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the watch ended")
			}
			switch {
			case isHealth(kube.WatchUp)(ev):
				up = true
				if !ev.LastContact.After(contact) || ev.Err != nil {
					t.Errorf("up again with last contact %v (before: %v), error %v", ev.LastContact, contact, ev.Err)
				}
			case ev.Type == kube.WatchHealth:
				t.Errorf("%s after the server answered again: %v", ev.State, ev.Err)
			case isRev(kube.WatchChanged, kube.DriverChunked, "late", 1, "deployed")(ev):
				late = true
			}
		case <-deadline:
			t.Fatalf("within 2m of the server answering again: up %v, the record written while offline %v", up, late)
		}
	}
}

// eventWithin is nextEvent with a deadline of its own.
func eventWithin(t *testing.T, ch <-chan kube.WatchEvent, what string, within time.Duration, want func(kube.WatchEvent) bool) kube.WatchEvent {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the watch ended", what)
			}
			if want(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("%s: no such event within %s", what, within)
		}
	}
}

// TestSilentServerTimesOut: against a server that accepts connections and
// never answers, a listing, a ping and the watch all give up with the shared
// request timeout's error (DefaultRequestTimeout, no flag given), which names
// the server and the timeout; the watch says OFFLINE, never heard from.
func TestSilentServerTimesOut(t *testing.T) {
	kc, accepted := kubetest.SilentKubeconfig(t)
	c := connect(t, kc, nil, nil)
	if got := c.Config().RequestTimeout; got != kube.DefaultRequestTimeout {
		t.Fatalf("request timeout %s without the flag, want %s", got, kube.DefaultRequestTimeout)
	}
	addr := strings.TrimPrefix(c.Config().Server, "http://")
	want := []string{"API server http://" + addr, "did not answer within " + kube.DefaultRequestTimeout.String(), "--request-timeout"}

	ctx := t.Context()
	ch := c.Watch(ctx, kube.WatchOptions{})
	errs := make(chan error, 2)
	go func() { _, err := c.Releases(ctx); errs <- err }()
	go func() { errs <- c.Ping(ctx) }()
	for range 2 {
		err := <-errs
		msg := mustErrIs(t, err, kube.ErrTimeout)
		mustContain(t, msg, want...)
	}
	ev := nextEvent(t, ch, "offline", func(ev kube.WatchEvent) bool { return ev.Type == kube.WatchHealth })
	if ev.State != kube.WatchOffline || !ev.LastContact.IsZero() {
		t.Errorf("watch of a silent server: %s, last contact %v; want offline, never heard from", ev.State, ev.LastContact)
	}
	mustContain(t, mustErrIs(t, ev.Err, kube.ErrTimeout), want...)
	if accepted.Load() == 0 {
		t.Error("the silent server accepted no connection: the requests failed some other way")
	}
}

// TestRequestTimeoutFlag: --request-timeout replaces the default for reads, 0
// lifts it, and a bad value is refused naming the flag.
func TestRequestTimeoutFlag(t *testing.T) {
	kc, _ := kubetest.SilentKubeconfig(t)
	c := connect(t, kc, []string{"--request-timeout", "1s"}, nil)
	if got := c.Config().RequestTimeout; got != time.Second {
		t.Errorf("--request-timeout 1s gave %s", got)
	}
	_, err := c.Releases(t.Context())
	mustContain(t, mustErrIs(t, err, kube.ErrTimeout), "did not answer within 1s")
	if c := connect(t, kc, []string{"--request-timeout", "0"}, nil); c.Config().RequestTimeout != 0 {
		t.Errorf("--request-timeout 0 gave %s, want no limit", c.Config().RequestTimeout)
	}
	_, err = tryConnect(t, kc, []string{"--request-timeout", "soon"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--request-timeout") {
		t.Errorf("--request-timeout soon: %v", err)
	}
}
