package cli_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
)

// TestRollback plans, refuses without confirmation, then rolls back releases written
// by each driver through Helm's action: a new revision and the old ConfigMap data.
func TestRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		name := "rb-" + string(w)[:4]
		e.install(w, name, 2)

		r := e.run("rollback", name, "--dry-run", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var plan cli.RollbackResult
		decode(t, r, &plan)
		if plan.Release != name || plan.From != 2 || plan.To != 1 || plan.Applied || plan.Diff == nil || !plan.Diff.Changed() {
			t.Fatalf("%s: plan %s", w, r)
		}

		r = e.run("rollback", name)
		mustCode(t, r, cli.ExitRefused)
		if !strings.Contains(r.stderr, "pass --yes") || !strings.Contains(r.stdout, "revision 2 -> 1") {
			t.Errorf("%s: refusal without a terminal: %s", w, r)
		}
		r = e.runTTY("n\n", "rollback", name, "1")
		mustCode(t, r, cli.ExitRefused)
		if len(e.secrets(name)) != 2 {
			t.Fatalf("%s: revisions changed although not confirmed", w)
		}

		r = e.runTTY("y\n", "rollback", name, "1", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var done cli.RollbackResult
		decode(t, r, &done)
		if !done.Applied || done.NewRevision != 3 || done.To != 1 {
			t.Fatalf("%s: rollback %s", w, r)
		}
		if !strings.Contains(r.stderr, "[y/N]") {
			t.Errorf("%s: no prompt on stderr: %s", w, r)
		}
		if got := e.configMap(name)["greeting"]; got != "hello from revision 1" {
			t.Errorf("%s: ConfigMap greeting %q after rollback", w, got)
		}
		r = e.run("history", name, "-o", "json")
		var h cli.History
		decode(t, r, &h)
		if len(h.Revisions) != 3 || h.Revisions[2].Status != "deployed" || h.Revisions[1].Status != "superseded" || !strings.Contains(h.Revisions[2].Description, "Rollback to 1") {
			t.Errorf("%s: history after rollback: %s", w, r)
		}
	}
}

// TestUninstall checks typed-name confirmation and that the release and its
// resources are gone, or kept as history.
func TestUninstall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		name := "un-" + string(w)[:4]
		e.install(w, name, 2)

		r := e.runTTY("y\n", "uninstall", name)
		mustCode(t, r, cli.ExitRefused)
		if !strings.Contains(r.stderr, "type the release name") || !strings.Contains(r.stderr, "nothing was changed") {
			t.Errorf("%s: wrong answer: %s", w, r)
		}
		if len(e.secrets(name)) != 2 || e.configMap(name) == nil {
			t.Fatalf("%s: changed without confirmation", w)
		}

		r = e.runTTY(name+"\n", "uninstall", name, "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var out cli.UninstallResult
		decode(t, r, &out)
		if out.Release != name || out.Revisions != 2 || out.KeptHistory || out.Namespace != e.ns {
			t.Errorf("%s: %s", w, r)
		}
		if left := e.secrets(name); len(left) != 0 {
			t.Errorf("%s: record Secrets left: %v", w, left)
		}
		if e.configMap(name) != nil {
			t.Errorf("%s: ConfigMap left after uninstall", w)
		}
		mustCode(t, e.run("history", name), cli.ExitNotFound)
	}

	e.install(byPlugins, "kept", 1)
	r := e.run("uninstall", "kept", "--keep-history", "--yes")
	mustCode(t, r, cli.ExitOK)
	r = e.run("history", "kept", "-o", "json")
	var h cli.History
	decode(t, r, &h)
	if len(h.Revisions) != 1 || h.Revisions[0].Status != "uninstalled" {
		t.Errorf("--keep-history: %s", r)
	}
}

// TestDeleteRevision deletes one revision's index and chunks, and with --force one
// that cannot be read.
func TestDeleteRevision(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		name := "dr-" + string(w)[:4]
		e.install(w, name, 3)

		r := e.runTTY("wrong\n", "delete-revision", name, "2")
		mustCode(t, r, cli.ExitRefused)
		r = e.runTTY(name+"\n", "delete-revision", name, "2", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var out cli.DeleteRevisionResult
		decode(t, r, &out)
		if out.Revision != 2 || out.WasLatest || out.Remaining != 2 || out.Forced {
			t.Errorf("%s: %s", w, r)
		}
		left := e.secrets(name)
		if _, ok := left[2]; ok || len(left[1]) < 3 || len(left[3]) < 3 {
			t.Errorf("%s: Secrets after delete: %v", w, left)
		}
		mustCode(t, e.run("delete-revision", name, "2", "--yes"), cli.ExitNotFound)
	}

	e.install(byPlugins, "unreadable", 2)
	e.deleteSecret(e.chunkOf("unreadable", 1))
	r := e.run("delete-revision", "unreadable", "1", "--yes")
	mustCode(t, r, cli.ExitFailure)
	if !strings.Contains(r.stderr, "--force") {
		t.Errorf("no --force hint: %s", r)
	}
	r = e.run("delete-revision", "unreadable", "1", "--yes", "--force")
	mustCode(t, r, cli.ExitOK)
	if left := e.secrets("unreadable"); len(left) != 1 || left[2] == nil {
		t.Errorf("after --force: %v", left)
	}
	mustCode(t, e.run("verify", "unreadable"), cli.ExitOK)
}

// TestGC lists leftovers, refuses without confirmation and removes them with it.
func TestGC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "gc-app", 1)
	orphan := e.addOrphan("gc-app", 1)
	time.Sleep(10 * time.Millisecond)

	r := e.run("gc", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var out cli.GCResult
	decode(t, r, &out)
	if out.Found != 0 || len(out.Namespaces) != 1 || len(out.Namespaces[0].Recent) != 1 {
		t.Fatalf("a fresh orphan should be left alone by default: %s", r)
	}

	r = e.run("gc", "--dry-run", "--min-age", "0", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &out)
	if !out.DryRun || out.Found != 1 || out.Removed != 0 || out.Namespaces[0].Leftovers[0].Name != orphan || out.Namespaces[0].Leftovers[0].Release != "gc-app" {
		t.Fatalf("dry run: %s", r)
	}
	r = e.run("gc", "--min-age", "0")
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stdout, orphan) || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("refusal: %s", r)
	}
	if !secretExists(e, orphan) {
		t.Fatal("orphan removed without confirmation")
	}
	r = e.runTTY("y\n", "gc", "--min-age", "0")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Removed 1 of 1") || secretExists(e, orphan) {
		t.Errorf("gc: %s", r)
	}
	mustCode(t, e.run("verify", "--decode"), cli.ExitOK)
}

func secretExists(e *env, name string) bool {
	for _, names := range e.secrets("gc-app") {
		for _, n := range names {
			if n == name {
				return true
			}
		}
	}
	return false
}

// TestFixStuck shows a pending release and unblocks it both ways.
func TestFixStuck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		name := "st-" + string(w)[:4]
		e.install(w, name, 1)
		rev := e.addPending(w, name, "pending-upgrade", time.Hour)

		r := e.run("fix-stuck", name, "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var st cli.StuckResult
		decode(t, r, &st)
		if !st.Stuck || st.Revision != rev || st.Status != "pending-upgrade" || st.PendingSeconds < 3500 || st.PendingSeconds > 3700 || len(st.Fixes) != 2 || st.Applied != "" {
			t.Fatalf("%s: %s", w, r)
		}
		r = e.run("fix-stuck", name)
		for _, want := range []string{"has been pending-upgrade for 1h", "--mark-failed", "--delete-pending", "Warning:", render.PendingMeans(rev, "pending-upgrade")} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s: lacks %q: %s", w, want, r)
			}
		}
		mustCode(t, e.run("fix-stuck", name, "--mark-failed"), cli.ExitRefused)
	}

	r := e.runTTY("y\n", "fix-stuck", "st-chun", "--mark-failed")
	mustCode(t, r, cli.ExitOK)
	var h cli.History
	decode(t, e.run("history", "st-chun", "-o", "json"), &h)
	if last := h.Revisions[len(h.Revisions)-1]; len(h.Revisions) != 2 || last.Status != "failed" {
		t.Errorf("--mark-failed: %+v", h.Revisions)
	}
	r = e.run("fix-stuck", "st-chun", "--mark-failed", "--yes")
	mustCode(t, r, cli.ExitFailure)
	if !strings.Contains(r.stderr, "not stuck") {
		t.Errorf("fixing a release that is not stuck: %s", r)
	}

	r = e.run("fix-stuck", "st-helm", "--delete-pending", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var st cli.StuckResult
	decode(t, r, &st)
	if st.Applied != "delete-pending" {
		t.Errorf("--delete-pending: %s", r)
	}
	decode(t, e.run("history", "st-helm", "-o", "json"), &h)
	if len(h.Revisions) != 1 || h.Revisions[0].Status != "deployed" {
		t.Errorf("--delete-pending: %+v", h.Revisions)
	}
}

// TestReadOnly checks that --read-only refuses every change with its exit code and
// that no mutating request leaves the process, even with --yes.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "ro-chun", 2)
	e.install(byPlugins, "ro-helm", 2)
	e.addPending(byPlugins, "ro-helm", "pending-rollback", time.Minute)
	e.addOrphan("ro-chun", 1)
	before := e.secrets("ro-chun")
	for _, args := range [][]string{
		{"rollback", "ro-chun", "--yes"},
		{"uninstall", "ro-chun", "--yes"},
		{"delete-revision", "ro-chun", "1", "--yes", "--force"},
		{"gc", "--yes", "--min-age", "0"},
		{"fix-stuck", "ro-helm", "--delete-pending", "--yes"},
		{"fix-stuck", "ro-helm", "--mark-failed", "--yes"},
		{"fix-apis", "ro-chun", "--drop-unserved", "--yes"},
	} {
		stats := &kube.Stats{}
		r := e.runApp(&cli.App{Stats: stats}, "", append(args, "--read-only")...)
		mustCode(t, r, cli.ExitRefused)
		oneLineErr(t, r)
		if !strings.Contains(r.stderr, "read-only") {
			t.Errorf("%v: %s", args, r)
		}
		if n := stats.Mutating(); n != 0 {
			t.Errorf("%v: %d mutating requests sent under --read-only", args, n)
		}
	}
	// Reads work and are counted, so the counter above was on the connection.
	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", "rollback", "ro-chun", "--dry-run", "--read-only")
	mustCode(t, r, cli.ExitOK)
	if stats.Total() == 0 || stats.Mutating() != 0 {
		t.Errorf("dry run under --read-only: %v", stats.Requests())
	}
	after := e.secrets("ro-chun")
	if len(after) != len(before) || len(after[1]) != len(before[1]) || len(e.secrets("ro-helm")) != 3 {
		t.Errorf("records changed under --read-only: %v -> %v", before, after)
	}
}

// TestStorageNamespace runs the OLMv1 layout: records of operator-controller in one
// storage namespace, each release's resources in a namespace of its own.
func TestStorageNamespace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noNamespace = true
	system := e.ns
	apps := map[writer]string{}
	for _, w := range writers {
		ns := cluster.Namespace(t)
		apps[w] = ns
		d := ownerDriver(w, system, "operator-controller")
		e.installWith(e.actionConfigIn(d, ns), ns, w, "ext-"+string(w)[:4], 2)
	}
	olm := []string{"--profile", "olmv1", "--storage-namespace", system}

	r := e.run(append([]string{"ls", "-o", "json"}, olm...)...)
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	decode(t, r, &ls)
	if len(ls.Releases) != 2 {
		t.Fatalf("ls: %s", r)
	}
	for _, it := range ls.Releases {
		w := byChunkview
		if it.Name == "ext-helm" {
			w = byPlugins
		}
		// helm-operator-plugins' record is several chunks without chunkview's
		// summary: ls reads its index's own slice, which does not hold the
		// release namespace, so it says it does not know it.
		wantNS := apps[w]
		if w == byPlugins {
			wantNS = ""
		}
		if it.StorageNamespace != system || it.Namespace != wantNS || it.Revisions != 2 {
			t.Errorf("%s: %+v", w, it)
		}
	}
	r = e.run(append([]string{"ls", "-o", "json", "-n", apps[byPlugins]}, olm...)...)
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &ls)
	if len(ls.Releases) != 1 || ls.Releases[0].Name != "ext-helm" {
		t.Errorf("ls -n %s: %s", apps[byPlugins], r)
	}
	r = e.run(append([]string{"ls", "-n", "kube-system", "-q"}, olm...)...)
	mustCode(t, r, cli.ExitOK)
	if r.stdout != "" {
		t.Errorf("ls -n kube-system: %s", r)
	}

	r = e.run(append([]string{"rollback", "ext-helm", "--yes"}, olm...)...)
	mustCode(t, r, cli.ExitOK)
	cm := e.configMapIn(apps[byPlugins], "ext-helm")
	if cm["greeting"] != "hello from revision 1" {
		t.Errorf("ConfigMap in the release's namespace after rollback: %v", cm)
	}
	r = e.run(append([]string{"history", "ext-helm", "-o", "json"}, olm...)...)
	var h cli.History
	decode(t, r, &h)
	if len(h.Revisions) != 3 || h.StorageNamespace != system {
		t.Errorf("history: %s", r)
	}
}

// TestRollbackReadsRevisionsTwice: a rollback from the CLI lists the release's
// revisions twice in the store that holds it: once to find and plan it (the
// listing that locates the release is its history), once to check the plan before
// Helm runs. Helm's own reads inside its action are not chunkview's to save. Each
// other store read is listed once, to learn it does not hold the release; the
// chunked store and Helm's Secrets are found with one list (kube/named.go).
func TestRollbackReadsRevisionsTwice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "twice", 3)
	for _, args := range [][]string{
		{"rollback", "twice", "1", "--yes"},
		{"rollback", "twice", "2", "--yes", "--driver", "chunked"},
	} {
		stats := &kube.Stats{}
		r := e.runApp(&cli.App{Stats: stats}, "", args...)
		mustCode(t, r, cli.ExitOK)
		lists := map[string]int{}
		for _, call := range stats.Calls() {
			// chunkview's own listings of the release's revisions: metadata
			// lists selected by its name.
			if !strings.HasPrefix(call, "GET ") || !strings.HasSuffix(call, " (metadata)") || !strings.Contains(call, "name%3Dtwice") {
				continue
			}
			path := strings.SplitN(strings.Fields(call)[1], "?", 2)[0]
			lists[path[strings.LastIndex(path, "/")+1:]]++
		}
		// The chunked store's records and Helm's own Secrets are both
		// "secrets": told apart by their selectors, which the counts need not.
		want := map[string]int{"secrets": 2, "configmaps": 1}
		if len(args) > 4 {
			want = map[string]int{"secrets": 2}
		}
		if !maps.Equal(lists, want) {
			t.Errorf("%v: revision lists %v, want %v (the holder's twice: to plan, to check): %q", args, lists, want, stats.Calls())
		}
	}
}
