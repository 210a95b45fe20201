package kube_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// nextUpdate waits for an update of ch that done accepts, and returns it.
func nextUpdate(t *testing.T, ch <-chan live.StatusUpdate, what string, done func(live.StatusUpdate) bool) live.StatusUpdate {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case u, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the watch ended", what)
			}
			if done(u) {
				return u
			}
		case <-deadline:
			t.Fatalf("%s: no such update within 30s", what)
		}
	}
}

func resource(st *live.ReleaseStatus, kind, name string) live.ResourceStatus {
	for _, r := range st.Resources {
		if r.Kind == kind && r.Name == name {
			return r
		}
	}
	return live.ResourceStatus{}
}

// TestWatchStatus: the live view follows a release with one watch per kind and
// namespace of its objects (selected by name when the kind has one object,
// metadata only for ConfigMaps and Secrets) and one watch of Warning events,
// and sees a Deployment become Current, a Service deleted and a new warning,
// with no request past those watches.
func TestWatchStatus(t *testing.T) {
	stats := &kube.Stats{}
	ns, c, err := installShop(t, "shop", nil, kubetest.HookOutcome{}, stats)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	st := mustStatus(t, c, ns, "shop", live.StatusOptions{})
	read := len(stats.Calls())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch := live.WatchStatus(ctx, c, st, live.StatusWatchOptions{})

	kubetest.SetDeploymentStatus(t, cluster.Client, ns, "shop", 2)
	u := nextUpdate(t, ch, "Deployment Current", func(u live.StatusUpdate) bool {
		return resource(u.Status, "Deployment", "shop").Status == live.StatusCurrent
	})
	if !slices.Equal(u.Changed, []string{"Deployment/" + ns + "/shop"}) || u.Polling || !u.Status.Ready() {
		t.Errorf("update: changed %v, polling %v, ready %v", u.Changed, u.Polling, u.Status.Ready())
	}
	if err := cluster.Client.CoreV1().Services(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	nextUpdate(t, ch, "Service NotFound", func(u live.StatusUpdate) bool {
		return resource(u.Status, "Service", "shop").Status == live.StatusNotFound
	})
	kubetest.WarningEvent(t, cluster.Client, ns, "Pod", "shop-7d9f8c-abcde", "BackOff", "Back-off restarting failed container web")
	u = nextUpdate(t, ch, "warning", func(u live.StatusUpdate) bool { return u.Events })
	if len(u.Status.Events) != 1 || u.Status.Events[0].For != "Deployment/shop" {
		t.Errorf("events: %+v", u.Status.Events)
	}
	if st.Resources[2].Status != live.StatusInProgress {
		t.Errorf("the status watched changed: %+v", st.Resources[2])
	}

	// Five watches, and nothing else since the status was read.
	calls := stats.Calls()[read:]
	want := []string{
		"GET /api/v1/namespaces/" + ns + "/configmaps?allowWatchBookmarks=true&labelSelector=app.kubernetes.io%2Fmanaged-by%3DHelm&watch=true (metadata)",
		"GET /api/v1/namespaces/" + ns + "/events?allowWatchBookmarks=true&fieldSelector=type%3DWarning&resourceVersion=" + "*" + "&watch=true",
		"GET /api/v1/namespaces/" + ns + "/secrets?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dshop-db&watch=true (metadata)",
		"GET /api/v1/namespaces/" + ns + "/services?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dshop&watch=true",
		"GET /apis/apps/v1/namespaces/" + ns + "/deployments?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dshop&watch=true",
	}
	slices.Sort(calls)
	if len(calls) != len(want) {
		t.Fatalf("requests after the status was read:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	for i, w := range want {
		pre, post, _ := strings.Cut(w, "*")
		if !strings.HasPrefix(calls[i], pre) || !strings.HasSuffix(calls[i], post) {
			t.Errorf("request %d: %s\nwant %s", i, calls[i], w)
		}
	}
}

// TestWatchStatusPolls: where the server refuses to watch a kind (RBAC without
// watch on Deployments), the live view says so and reads that kind's objects
// every PollInterval, one GET each, and still sees the change; the other kinds
// stay watched.
func TestWatchStatusPolls(t *testing.T) {
	ns, _, err := installShop(t, "shop", nil, kubetest.HookOutcome{}, nil)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	user := "status-no-watch"
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, user,
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps", "services", "events"}, Verbs: []string{"get", "list", "watch"}},
		rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}},
	)
	stats := &kube.Stats{}
	c := connect(t, kc, []string{"-n", ns}, func(o *kube.Options) { o.Stats = stats })
	var st *live.ReleaseStatus
	waitAllowed(t, "read the release's objects", func() (err error) {
		st, err = live.Status(t.Context(), c, ns, "shop", 0, live.StatusOptions{})
		if err == nil && resource(st, "Deployment", "shop").Status != live.StatusInProgress {
			err = fmt.Errorf("Deployment is %+v", resource(st, "Deployment", "shop"))
		}
		return err
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch := live.WatchStatus(ctx, c, st, live.StatusWatchOptions{PollInterval: 100 * time.Millisecond})
	u := nextUpdate(t, ch, "polling", func(u live.StatusUpdate) bool { return u.Polling })
	if !strings.Contains(u.Note, "watching deployments in "+ns+" was refused (403 Forbidden): reading them every 100ms instead") {
		t.Errorf("note: %q", u.Note)
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, ns, "shop", 2)
	u = nextUpdate(t, ch, "Deployment Current by polling", func(u live.StatusUpdate) bool {
		return resource(u.Status, "Deployment", "shop").Status == live.StatusCurrent
	})
	if !u.Polling {
		t.Errorf("update after polling began does not say so")
	}
	polls, serviceWatches := 0, 0
	for _, call := range stats.Calls() {
		switch {
		case strings.HasPrefix(call, "GET /apis/apps/v1/namespaces/"+ns+"/deployments/shop?"):
			polls++
		case strings.HasPrefix(call, "GET /api/v1/namespaces/"+ns+"/services?") && strings.Contains(call, "watch=true"):
			serviceWatches++
		}
	}
	if serviceWatches != 1 {
		t.Errorf("%d watches of Services, want 1: the kinds it may watch are still watched", serviceWatches)
	}
	if polls < 2 { // the status's read, then at least one poll
		t.Errorf("%d GETs of the Deployment, want the status's and the polls'", polls)
	}
}
