package cli_test

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/action"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// installShop installs kubetest.ShopChart as release name with Helm's install
// action through chunkview's driver, its hook ending as out says, and returns
// the install's error.
func (e *env) installShop(name string, vals map[string]interface{}, out kubetest.HookOutcome) error {
	e.t.Helper()
	cfg := kubetest.HelmConfig(e.t, e.kubeconfig, e.ns, driverFor(byChunkview, e.ns))
	_, err := kubetest.InstallShop(e.t, cfg, cluster.Client, e.ns, name, vals, out)
	return err
}

// within80 fails unless every line of out, but a log's, fits 80 columns.
func within80(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(line) > 80 && !strings.HasPrefix(line, "      | ") {
			t.Errorf("line of %d columns:\n%s\nin:\n%s", utf8.RuneCountInString(line), line, out)
		}
	}
}

// TestStatusCLI: `status` of a release Helm installed exits 1 while its
// Deployment is not Current and 0 once it is, 1 again once its Service is
// deleted; the table fits 80 columns; -o json has the resources, hooks and
// events; a release or revision that does not exist exits 3, a record that
// cannot be read 6.
func TestStatusCLI(t *testing.T) {
	e := newEnv(t)
	if err := e.installShop("shop", nil, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}
	r := e.run("status", "shop")
	mustCode(t, r, cli.ExitNotCurrent)
	within80(t, r.stdout)
	for _, want := range []string{
		"NAME: shop\nLAST DEPLOYED: ",
		"\nNAMESPACE: " + e.ns + "\nSTATUS: deployed\nREVISION: 1\nDESCRIPTION: Install complete\nSTORE: chunked\n",
		"Objects: 4 of 5 Current (1 InProgress)",
		"KIND         NAME          STATUS       MESSAGE",
		"Deployment   shop          InProgress   Replicas: 0/2",
		"Service      shop          Current      Service is ready",
		"Job    shop-migrate   post-install,post-upgrade   Succeeded ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in:\n%s", want, r.stdout)
		}
	}
	// No Warning event yet, but the one the API server's own repair loop may
	// raise of the Service just created (ClusterIPNotAllocated), when it runs
	// in the test's window on a loaded machine.
	if !strings.Contains(r.stdout, "No Warning events.") && (!strings.Contains(r.stdout, "ClusterIPNotAllocated") || strings.Contains(r.stdout, "BackOff")) {
		t.Errorf("want no Warning event in:\n%s", r.stdout)
	}

	// helm status's header: LAST DEPLOYED as helm prints it, from the record
	// as Helm reads it.
	if rel, err := action.NewGet(e.actionConfig(byChunkview)).Run("shop"); err != nil {
		t.Fatal(err)
	} else if want := "\nLAST DEPLOYED: " + rel.Info.LastDeployed.Format(time.ANSIC) + "\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("want %q in:\n%s", want, r.stdout)
	}

	kubetest.SetDeploymentStatus(t, cluster.Client, e.ns, "shop", 2)
	mustCode(t, e.run("status", "shop"), cli.ExitOK)

	kubetest.WarningEvent(t, cluster.Client, e.ns, "Pod", "shop-5c7b9-q2x8z", "BackOff", "Back-off restarting failed container web in pod shop-5c7b9-q2x8z_"+e.ns)
	if err := cluster.Client.CoreV1().Services(e.ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = e.run("status", "shop", "-o", "json")
	mustCode(t, r, cli.ExitNotCurrent)
	var doc map[string]any
	decode(t, r, &doc)
	for _, k := range []string{"release", "revision", "store", "resources", "hooks", "events"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, r.stdout)
		}
	}
	if doc["release"] != "shop" || doc["revision"] != float64(1) || doc["store"] != "chunked" {
		t.Errorf("release %v, revision %v, store %v", doc["release"], doc["revision"], doc["store"])
	}
	res, _ := doc["resources"].([]any)
	var got []string
	for _, x := range res {
		o := x.(map[string]any)
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"kind", "message", "name", "namespace", "status"}) {
			t.Errorf("resource keys %v", keys)
		}
		if o["namespace"] != e.ns {
			t.Errorf("resource namespace %v", o["namespace"])
		}
		got = append(got, o["kind"].(string)+"/"+o["name"].(string)+" "+o["status"].(string))
	}
	want := []string{"ConfigMap/shop-config Current", "ConfigMap/shop-flags Current", "Deployment/shop Current", "Secret/shop-db Current", "Service/shop NotFound"}
	if !slices.Equal(got, want) {
		t.Errorf("resources %v, want %v", got, want)
	}
	hooks, _ := doc["hooks"].([]any)
	if len(hooks) != 1 || hooks[0].(map[string]any)["phase"] != "Succeeded" {
		t.Errorf("hooks: %v", doc["hooks"])
	}
	// The API server's own repair loop may warn of the Service the test
	// deleted (ClusterIPNotAllocated) when it runs in the test's window: an
	// event status rightly shows, which is not the one this test made.
	all, _ := doc["events"].([]any)
	var evs []any
	for _, ev := range all {
		if ev.(map[string]any)["reason"] != "ClusterIPNotAllocated" {
			evs = append(evs, ev)
		}
	}
	if len(evs) != 1 || evs[0].(map[string]any)["object"] != "Pod/shop-5c7b9-q2x8z" || evs[0].(map[string]any)["for"] != "Deployment/shop" {
		t.Errorf("events: %v", doc["events"])
	}
	mustCode(t, e.run("status", "shop", "-o", "yaml"), cli.ExitNotCurrent)

	mustCode(t, e.run("status", "nope"), cli.ExitNotFound)
	mustCode(t, e.run("status", "shop", "--revision", "9"), cli.ExitNotFound)
	mustCode(t, e.run("status"), cli.ExitUsage)
	mustCode(t, e.run("status", "shop", "-o", "name"), cli.ExitUsage)

	// A record with a chunk gone: its objects are not known.
	e.deleteSecret(e.chunkOf("shop", 1))
	r = e.run("status", "shop")
	mustCode(t, r, cli.ExitStatusUnreadable)
	if !strings.Contains(r.stderr, "cannot be read") || !strings.Contains(r.stderr, "--revision") {
		t.Errorf("unreadable record: %s", r)
	}
}

// TestStatusCLIFailedHook: a failed hook shows its Job, its Pod and the
// container's termination message, masked, and why its log cannot be read;
// --reveal shows the message as it is.
func TestStatusCLIFailedHook(t *testing.T) {
	e := newEnv(t)
	if err := e.installShop("shop", nil, kubetest.HookOutcome{Fail: true, Message: "migration failed: password " + kubetest.ShopPassword + " rejected"}); err == nil {
		t.Fatal("install with a failing hook succeeded")
	}
	r := e.run("status", "shop")
	mustCode(t, r, cli.ExitNotCurrent)
	within80(t, r.stdout)
	// Long lines wrap: compare with the words alone.
	flat := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"STATUS: failed REVISION: 1 DESCRIPTION: Release \"shop\" failed: failed post-install: 1 error occurred:; * job shop-migrate failed: BackoffLimitExceeded STORE: chunked",
		`Note: no revision of "shop" is deployed: showing the latest, 1 (failed)`,
		"Job shop-migrate post-install,post-upgrade Failed ",
		"Job shop-migrate: Failed: Job Failed. failed: 1/1",
		"Pod shop-migrate-x7k2p: Failed",
		"migrate: terminated, exit code 1 (Error): migration failed: password " + revdiff.MaskPrefix,
		"The log of shop-migrate-x7k2p/migrate is not available: node " + kubetest.HookNode + ", which ran the Pod, is gone",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("want %q in:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, kubetest.ShopPassword) {
		t.Errorf("the password shows:\n%s", r.stdout)
	}
	r = e.run("status", "shop", "--reveal", "-o", "json")
	mustCode(t, r, cli.ExitNotCurrent)
	if !strings.Contains(r.stdout, "password "+kubetest.ShopPassword+" rejected") {
		t.Errorf("--reveal: %s", r)
	}
	// chunkview's remarks are remarks; notes are the chart's NOTES (none).
	var doc struct {
		Notes   *string  `json:"notes"`
		Remarks []string `json:"remarks"`
	}
	decode(t, r, &doc)
	if doc.Notes == nil || *doc.Notes != "" || len(doc.Remarks) != 1 || !strings.Contains(doc.Remarks[0], `no revision of "shop" is deployed`) {
		t.Errorf("notes %v, remarks %q", doc.Notes, doc.Remarks)
	}
}

// TestRollbackWait: rollback --wait waits until the objects it applied are
// Current, judged as status judges them, printing a line per change on stderr
// (not a terminal), and exits 0; when they are not Current in time it exits 1,
// naming what is not, with the rollback applied and recorded.
func TestRollbackWait(t *testing.T) {
	e := newEnv(t)
	if err := e.installShop("shop", nil, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, e.ns, "shop", 2)
	cfg := kubetest.HelmConfig(e.t, e.kubeconfig, e.ns, driverFor(byChunkview, e.ns))
	if _, err := kubetest.UpgradeShop(t, cfg, cluster.Client, e.ns, "shop", map[string]interface{}{"image": "nginx:1.28"}, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}

	// The rollback changes the Deployment back (generation 3): it is
	// InProgress until its status says the controller saw generation 3.
	stderr, done := e.start("rollback", "shop", "1", "--yes", "--wait", "--timeout", "60s")
	for !strings.Contains(stderr.String(), "not yet: Deployment/") {
		select {
		case r := <-done:
			t.Fatalf("rollback ended before it waited for the Deployment: %s", r)
		case <-time.After(50 * time.Millisecond):
		}
	}
	kubetest.SetDeploymentStatus(t, cluster.Client, e.ns, "shop", 2)
	r := <-done
	mustCode(t, r, cli.ExitOK)
	for _, want := range []string{
		"Waiting up to 1m0s for the 5 objects of revision 3 to be Current.\n",
		"4/5 Current; not yet: Deployment/" + e.ns + "/shop InProgress (",
		"5/5 Current: Deployment/" + e.ns + "/shop is Current (Deployment is available. Replicas: 2)\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("want %q on stderr: %s", want, r)
		}
	}
	if !strings.Contains(r.stdout, "now at revision 3.") || !strings.Contains(r.stdout, "Every object of revision 3 is Current (5).") {
		t.Errorf("stdout: %s", r)
	}

	// Nothing makes it Current this time.
	r = e.run("rollback", "shop", "2", "--yes", "--wait", "--timeout", "2s", "-o", "json")
	mustCode(t, r, cli.ExitFailure)
	var out cli.RollbackResult
	decode(t, r, &out)
	if !out.Applied || out.NewRevision != 4 || out.Wait == nil || out.Wait.Ready || out.Wait.Timeout != "2s" || len(out.Wait.Resources) != 5 {
		t.Fatalf("rollback that timed out: %+v, wait %+v", out, out.Wait)
	}
	if !strings.Contains(r.stderr, "after 2s 1 object is not Current: Deployment/"+e.ns+"/shop InProgress (") ||
		!strings.Contains(r.stderr, "chunkview status shop") {
		t.Errorf("stderr: %s", r)
	}
	mustCode(t, e.run("rollback", "shop", "1", "--dry-run", "--wait"), cli.ExitUsage)
	mustCode(t, e.run("rollback", "shop", "1", "--yes", "--wait", "--timeout", "0s"), cli.ExitUsage)
}

// start runs chunkview with args as run does, in the background: its stderr
// can be read as it is written, and its result comes on done.
func (e *env) start(args ...string) (stderr *kubetest.SyncBuffer, done <-chan result) {
	e.t.Helper()
	full := append(append([]string{}, args...), "--kubeconfig", e.kubeconfig, "--cache-dir", e.cacheDir, "-n", e.ns)
	stderr = &kubetest.SyncBuffer{}
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var out bytes.Buffer
		app := &cli.App{IsTerminal: func(io.Reader) bool { return false }}
		code := app.Run(ctx, full, strings.NewReader(""), &out, stderr)
		ch <- result{stdout: out.String(), stderr: stderr.String(), code: code}
	}()
	return stderr, ch
}

// TestStatusCLIRequests: `status` of a 30-object release, as a command run
// from scratch: locating the release (a listing of each store by name),
// discovery, the record, one GET per object and one list of Warning events;
// nothing per object beyond its GET, and no list of objects.
func TestStatusCLIRequests(t *testing.T) {
	e := newEnv(t)
	if err := e.installShop("big", map[string]interface{}{"apps": 6, "extraConfigMaps": 10}, kubetest.HookOutcome{}); err != nil {
		t.Fatal(err)
	}
	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", "status", "big", "-o", "json")
	mustCode(t, r, cli.ExitNotCurrent)
	var doc struct {
		Resources []any `json:"resources"`
	}
	decode(t, r, &doc)
	if len(doc.Resources) != 30 {
		t.Fatalf("%d objects, want 30", len(doc.Resources))
	}
	calls := stats.Calls()
	gets, events := 0, 0
	for _, c := range calls {
		path, _, _ := strings.Cut(strings.TrimPrefix(c, "GET "), "?")
		switch {
		case strings.HasSuffix(path, "/namespaces/"+e.ns+"/events"):
			events++
		case strings.Contains(path, "/namespaces/"+e.ns+"/") && strings.Count(path[strings.Index(path, "/namespaces/"):], "/") == 4 && !strings.Contains(path, "sh.helm.release."):
			gets++
		}
	}
	t.Logf("status of a 30-object release: %d requests:\n%s", len(calls), strings.Join(calls, "\n"))
	if gets != 30 || events != 1 {
		t.Errorf("%d object GETs (want 30), %d event lists (want 1)", gets, events)
	}
	if bound := 30 + 1 + 10; len(calls) > bound {
		t.Errorf("%d requests, want at most %d", len(calls), bound)
	}
}
