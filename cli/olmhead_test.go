package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// olmFleetWithoutExtensions stores, in a storage namespace of operator-controller's
// layout, three releases of 2, 3 and 4 revisions of about 200 KB each (several
// 64 KiB chunks), whose index Secrets name ClusterExtensions that do not exist.
// It returns the env, the release namespaces by name and the bytes stored.
func olmFleetWithoutExtensions(t *testing.T) (*env, map[string]string, int64) {
	e := newEnv(t)
	e.noNamespace = true
	var stored int64
	apps := map[string]string{}
	for i, ext := range []string{"alpha", "bravo", "charlie"} {
		ns := cluster.Namespace(t)
		apps[ext] = ns
		cfg := e.actionConfigIn(hopDriver(e.ns, "operator-controller", 64<<10), ns)
		for rev := 1; rev <= 2+i; rev++ {
			vals := valuesFor(ext, rev)
			vals["blob"] = noise(fmt.Sprintf("%s-%d", ext, rev), 200_000)
			var err error
			if rev == 1 {
				in := action.NewInstall(cfg)
				in.ReleaseName, in.Namespace = ext, ns
				_, err = in.Run(testChart(), vals)
			} else {
				up := action.NewUpgrade(cfg)
				up.Namespace = ns
				_, err = up.Run(ext, testChart(), vals)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		olmOwn(t, e.ns, ext, 2+i)
		stored += storedBytes(t, e.ns, ext)
	}
	return e, apps, stored
}

// TestOLMv1ListsWithoutExtensions: ls -A -a over OLMv1's layout when the
// ClusterExtensions cannot be listed (the user may not; or the extensions are
// gone) reads only the head of each release's latest revision: the index Secret
// that holds its first slice, no chunk Secret and no superseded revision, for at
// most a fifth of the bytes stored. Each release's namespace, chart and version
// come from that head; what the head does not hold (its size, its chunks) is said
// to be unknown, and the note says what could not be learned.
func TestOLMv1ListsWithoutExtensions(t *testing.T) {
	cluster.InstallOLMv1(t, false)
	e, _, stored := olmFleetWithoutExtensions(t)
	flags := []string{"--owner", "operator-controller", "--storage-namespace", e.ns}
	latest := map[string]string{}
	for name, n := range map[string]int{"alpha": 2, "bravo": 3, "charlie": 4} {
		latest[storage.RecordKey(name, n)] = name
	}
	check := func(who string, app *env, wantNote string) {
		t.Helper()
		stats := &kube.Stats{}
		r := app.runApp(&cli.App{Stats: stats}, "", append([]string{"ls", "-A", "-a", "-o", "json"}, flags...)...)
		mustCode(t, r, cli.ExitOK)
		var ls cli.Releases
		if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
			t.Fatalf("%s: %v\n%s", who, err, r)
		}
		if len(ls.Releases) != 3 {
			t.Fatalf("%s: ls: %s", who, r)
		}
		for _, it := range ls.Releases {
			// The chart is in the head; the release's namespace, at the
			// payload's end, is not: shown unknown, not the storage namespace.
			if it.Namespace != "" || it.Chart != "greeter" || it.Broken {
				t.Errorf("%s: %s: namespace %q chart %q broken %v; want unknown, greeter, from its latest revision's head", who, it.Name, it.Namespace, it.Chart, it.Broken)
			}
		}
		gets := 0
		for _, call := range stats.Calls() {
			if !strings.Contains(call, "/secrets/") {
				continue
			}
			gets++
			key := call[strings.LastIndex(call, "/secrets/")+len("/secrets/"):]
			key, _, _ = strings.Cut(key, " ")
			key, _, _ = strings.Cut(key, "?")
			if latest[key] == "" {
				t.Errorf("%s: ls fetched %s, not the index of a latest revision", who, call)
			}
		}
		if gets > len(latest) {
			t.Errorf("%s: ls made %d GETs of Secrets, want one per release (%d)", who, gets, len(latest))
		}
		if got := stats.BytesReceived(); got*5 > stored {
			t.Errorf("%s: ls received %d bytes of %d stored (%.0f%%), want at most 20%%", who, got, stored, 100*float64(got)/float64(stored))
		}
		if !strings.Contains(r.stderr, wantNote) {
			t.Errorf("%s: ls does not say what it could not learn (%q): %s", who, wantNote, r)
		}
		t.Logf("%s: ls -A -a over %d bytes stored: %d requests, %d GETs of Secrets, %d bytes received (%.1f%%)", who, stored, stats.Total(), gets, stats.BytesReceived(), 100*float64(stats.BytesReceived())/float64(stored))
	}
	check("extensions gone", e, "only the head of each latest revision was read for 3 releases (alpha, bravo, charlie)")
	user := userEnv(t, e, "olm-viewer-"+e.ns, e.ns)
	bind(t, e.ns, "olm-viewer-"+e.ns, "records", secretReader)
	retryUntil(t, user, cli.ExitOK, append([]string{"ls", "-A"}, flags...)...)
	check("may not list ClusterExtensions", user, "only the head of each latest revision was read for 3 releases (alpha, bravo, charlie)")
}
