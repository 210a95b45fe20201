package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/storage"
)

// TestHistoryWatch: `history NAME --watch` prints the table, then a row when
// another writer (helm-operator-plugins' driver) adds a revision, and ends with
// status 0 when its context is cancelled, as by Ctrl-C.
func TestHistoryWatch(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "app", 2)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var out, errb kubetest.SyncBuffer
	done := make(chan int, 1)
	go func() {
		a := &cli.App{}
		done <- a.Run(ctx, []string{"history", "app", "-w", "-n", e.ns, "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir}, strings.NewReader(""), &out, &errb)
	}()
	wait := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok(out.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: stdout:\n%s\nstderr:\n%s", what, out.String(), errb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("the table", func(s string) bool { return strings.Contains(s, "REVISION") && strings.Count(s, "\n") >= 3 })
	rev := e.addPending(byPlugins, "app", release.StatusPendingUpgrade, time.Minute)
	wait("a row for the new revision", func(s string) bool {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		last := strings.Fields(lines[len(lines)-1])
		return len(lines) == 4 && last[0] == itoa(rev) && strings.Contains(lines[3], "pending-upgrade")
	})
	// The row lines up under the table: each column starts where its header
	// does.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	head := lines[0]
	for _, col := range []struct{ name, want string }{{"STATUS", "pending-upgrade"}, {"CHART", "greeter-1.2.3"}, {"HEALTH", "ok"}} {
		at := strings.Index(head, col.name)
		if at < 0 || len(lines[3]) <= at || !strings.HasPrefix(lines[3][at:], col.want) || lines[3][at-1] != ' ' {
			t.Errorf("the new row's %s is not under its header:\n%s\n%s", col.name, head, lines[3])
		}
		if !strings.HasPrefix(lines[1][at:], strings.Fields(lines[1][at:])[0]) || lines[1][at-1] != ' ' {
			t.Errorf("the table's %s column is not where its header is:\n%s\n%s", col.name, head, lines[1])
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != cli.ExitOK {
			t.Errorf("exit %d after the interrupt, want 0; stderr:\n%s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("history --watch did not end when its context was cancelled")
	}
	t.Logf("stdout:\n%s", out.String())
}

// TestHistoryWatchJSON: `history -w -o json` prints events of one shape, one a
// line, with their type: the revisions there first as ADDED, then a revision
// added, changed and deleted by another writer.
func TestHistoryWatchJSON(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "app", 2)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var out, errb kubetest.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- (&cli.App{}).Run(ctx, []string{"history", "app", "-w", "-o", "json", "-n", e.ns, "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir}, strings.NewReader(""), &out, &errb)
	}()
	type event struct {
		Type     string           `json:"type"`
		Release  string           `json:"release"`
		Revision cli.RevisionItem `json:"revision"`
	}
	events := func() []event {
		var evs []event
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l == "" {
				continue
			}
			var ev event
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ev); err != nil {
				t.Fatalf("a line that is not one event: %q: %v", l, err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	wait := func(n int) []event {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for len(events()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("want %d events: stdout:\n%s\nstderr:\n%s", n, out.String(), errb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		return events()
	}
	evs := wait(2)
	for i, ev := range evs {
		if ev.Type != "ADDED" || ev.Release != "app" || ev.Revision.Revision != i+1 || ev.Revision.Chart != "greeter" {
			t.Errorf("event %d of the listing: %+v", i, ev)
		}
	}
	rev := e.addPending(byPlugins, "app", release.StatusPendingUpgrade, time.Minute)
	evs = wait(3)
	if ev := evs[2]; ev.Type != "ADDED" || ev.Revision.Revision != rev || ev.Revision.Status != "pending-upgrade" {
		t.Errorf("the new revision: %+v", ev)
	}
	d := driverFor(byPlugins, e.ns)
	key := storage.RecordKey("app", rev)
	rls, err := d.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	rls.Info.Status = release.StatusDeployed
	if err := d.Update(key, rls); err != nil {
		t.Fatal(err)
	}
	evs = wait(4)
	if ev := evs[len(evs)-1]; ev.Type != "MODIFIED" || ev.Revision.Revision != rev || ev.Revision.Status != "deployed" {
		t.Errorf("the revision deployed: %+v", evs[3:])
	}
	if _, err := d.Delete(key); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs = events()
		if ev := evs[len(evs)-1]; ev.Type == "DELETED" {
			if ev.Revision.Revision != rev {
				t.Errorf("deleted: %+v", ev)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no DELETED event: %s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != cli.ExitOK {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, errb.String())
	}
}
