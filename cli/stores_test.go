package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// helmSecrets and helmConfigMaps are Helm's own drivers over the env's namespace,
// as the helm CLI builds them.
func (e *env) helmSecrets() driver.Driver {
	return driver.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns))
}

func (e *env) helmConfigMaps() driver.Driver {
	return driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(e.ns))
}

// bigRelease is revision rev of a release whose chart carries size bytes of data
// gzip cannot shrink, as a chart bundling large files does.
func bigRelease(name, ns string, rev int, status release.Status, size int) *release.Release {
	return &release.Release{
		Name: name, Namespace: ns, Version: rev,
		Info: &release.Info{Status: status, Description: "Upgrade complete",
			LastDeployed: helmtime.Now()},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{Name: "loki-stack", Version: fmt.Sprintf("2.%d.0", rev), AppVersion: "2.9", APIVersion: "v2"},
			Files:    []*chart.File{{Name: "dashboards/all.json", Data: []byte(noise(fmt.Sprintf("%s-%d", name, rev), size))}},
		},
		Config:   map[string]interface{}{"replicas": rev},
		Manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n",
	}
}

// TestLsEveryStore lists releases of the three stores side by side: the store of
// each, its fill, and narrowing with --driver and HELM_DRIVER.
func TestLsEveryStore(t *testing.T) {
	e := newEnv(t)
	e.install(byPlugins, "chunky", 2)
	e.installWith(e.actionConfigIn(e.helmSecrets(), e.ns), e.ns, "helm secrets", "web", 2)
	e.installWith(e.actionConfigIn(e.helmConfigMaps(), e.ns), e.ns, "helm configmaps", "ingress", 1)

	r := e.run("ls", "-o", "json")
	mustCode(t, r, 0)
	var out cli.Releases
	decode(t, r, &out)
	got := map[string]cli.ReleaseItem{}
	for _, it := range out.Releases {
		got[it.Name] = it
	}
	for name, want := range map[string]string{"chunky": "chunked", "web": "secret", "ingress": "configmap"} {
		it := got[name]
		// The original driver's chunked record is read from its index alone:
		// its size is bounded, not known.
		sized := it.StoredBytes > 0 || want == "chunked" && it.StoredBytesAtMost > 0
		if it.Driver != want || it.Chart != "greeter" || !sized || it.LimitBytes <= 0 && want != "chunked" {
			t.Errorf("%s = %+v, want driver %s with chart and size", name, it, want)
		}
	}
	if w := got["web"]; w.LimitBytes != 1<<20 || w.Fill <= 0 || w.Fill > 0.05 || w.Revisions != 2 {
		t.Errorf("web limit %d fill %v revisions %d", w.LimitBytes, w.Fill, w.Revisions)
	}

	r = e.run("ls", "-o", "wide")
	mustCode(t, r, 0)
	for _, s := range []string{"STORE", "FILL", "secret", "cfgmap", "chunked"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("ls table lacks %q:\n%s", s, r)
		}
	}

	r = e.run("inspect", "ingress", "-o", "json")
	mustCode(t, r, 0)
	var in cli.Inspection
	decode(t, r, &in)
	if in.Driver != "configmap" || in.Index.Role != "record" {
		t.Errorf("inspect of a ConfigMaps release: %+v", in)
	}
	r = e.run("inspect", "ingress")
	mustCode(t, r, 0)
	if !strings.Contains(r.stdout, "CONFIGMAP") || !strings.Contains(r.stdout, "ConfigMaps  ") || strings.Contains(r.stdout, "Helm Secrets driver") {
		t.Errorf("inspect of a ConfigMaps release names Secrets:\n%s", r)
	}
	r = e.run("ls", "--near-limit", "40")
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "--near-limit=40") {
		t.Errorf("ls --near-limit 40:\n%s", r)
	}

	r = e.run("ls", "--driver", "secret,configmap", "-q")
	mustCode(t, r, 0)
	if strings.Fields(r.stdout) == nil || strings.Contains(r.stdout, "chunky") || !strings.Contains(r.stdout, "web") || !strings.Contains(r.stdout, "ingress") {
		t.Errorf("--driver secret,configmap:\n%s", r)
	}
	t.Setenv("HELM_DRIVER", "configmap")
	r = e.run("ls", "-q")
	mustCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "ingress" || !strings.Contains(r.stderr, "only the configmap store was read, as HELM_DRIVER=configmap says") {
		t.Errorf("HELM_DRIVER=configmap:\n%s", r)
	}
	r = e.run("history", "chunky")
	mustCode(t, r, cli.ExitNotFound)
	if !strings.Contains(r.stderr, "only the configmap store was read") {
		t.Errorf("history of a chunked release under HELM_DRIVER=configmap:\n%s", r)
	}
	t.Setenv("HELM_DRIVER", "sql")
	r = e.run("ls")
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "sql") {
		t.Errorf("HELM_DRIVER=sql:\n%s", r)
	}
	t.Setenv("HELM_DRIVER", "")

	r = e.run("ls", "-o", "name", "--driver", "configmap")
	mustCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "configmap/sh.helm.release.v1.ingress.v1" {
		t.Errorf("-o name of a ConfigMaps release:\n%s", r)
	}
}

// TestHelmStoreOperationsCLI runs history, diff, inspect, verify, rollback and
// uninstall by name on a release in Helm's Secrets driver; the records stay Helm's.
func TestHelmStoreOperationsCLI(t *testing.T) {
	e := newEnv(t)
	hd := e.helmSecrets()
	e.installWith(e.actionConfigIn(hd, e.ns), e.ns, "helm secrets", "web", 3)

	r := e.run("history", "web", "-o", "json")
	mustCode(t, r, 0)
	var h cli.History
	decode(t, r, &h)
	if h.Driver != "secret" || len(h.Revisions) != 3 || h.LimitBytes != 1<<20 || h.Revisions[2].StoredBytes <= 0 {
		t.Fatalf("history = %+v", h)
	}
	mustCode(t, e.run("diff", "web", "1", "2"), 0)
	r = e.run("inspect", "web", "--revision", "2")
	mustCode(t, r, 0)
	if !strings.Contains(r.stdout, "sh.helm.release.v1.web.v2") {
		t.Errorf("inspect:\n%s", r)
	}
	r = e.run("verify", "web", "--decode")
	mustCode(t, r, 0)
	if !strings.Contains(r.stdout, "Helm's Secrets: 3 records checked: no problems") {
		t.Errorf("verify:\n%s", r)
	}
	r = e.run("rollback", "web", "1", "--yes", "-o", "json")
	mustCode(t, r, 0)
	var rb cli.RollbackResult
	decode(t, r, &rb)
	if rb.Driver != "secret" || rb.NewRevision != 4 {
		t.Errorf("rollback -o json: %+v", rb)
	}
	v4, err := hd.Get(storage.RecordKey("web", 4))
	if err != nil || v4.Info.Status != release.StatusDeployed {
		t.Fatalf("Helm's driver reading revision 4 after rollback: %v", err)
	}
	r = e.run("uninstall", "web", "--yes")
	mustCode(t, r, 0)
	if _, err := hd.Query(map[string]string{"name": "web", "owner": "helm"}); err != driver.ErrReleaseNotFound {
		t.Fatalf("records after uninstall: %v", err)
	}
}

// TestSameNameTwoStoresCLI: a name two stores hold is two rows, and a command by
// that name asks for --driver (a usage error), then runs with it.
func TestSameNameTwoStoresCLI(t *testing.T) {
	e := newEnv(t)
	// A chunked index and Helm's Secret of one revision would share a name: the
	// second store here is Helm's ConfigMaps, as after a HELM_DRIVER mix-up.
	e.install(byChunkview, "twin", 2)
	if err := e.helmConfigMaps().Create(storage.RecordKey("twin", 1), bigRelease("twin", e.ns, 1, release.StatusDeployed, 100)); err != nil {
		t.Fatal(err)
	}
	r := e.run("ls", "-o", "json")
	mustCode(t, r, 0)
	var out cli.Releases
	decode(t, r, &out)
	if len(out.Releases) != 2 || out.Releases[0].Driver != "chunked" || out.Releases[1].Driver != "configmap" {
		t.Fatalf("rows = %+v", out.Releases)
	}
	r = e.run("history", "twin")
	mustCode(t, r, cli.ExitUsage)
	if !strings.Contains(r.stderr, "--driver") {
		t.Errorf("ambiguous history:\n%s", r)
	}
	mustCode(t, e.run("verify", "twin"), cli.ExitUsage)
	r = e.run("history", "twin", "--driver", "chunked", "-o", "json")
	mustCode(t, r, 0)
	var h cli.History
	decode(t, r, &h)
	if h.Driver != "chunked" || len(h.Revisions) != 2 {
		t.Fatalf("history --driver chunked = %+v", h)
	}
}

// TestNearLimitCLI: a Helm Secrets release near 1 MiB is the one ls --near-limit
// lists, and its history forecasts the revision that will not fit.
func TestNearLimitCLI(t *testing.T) {
	e := newEnv(t)
	hd := e.helmSecrets()
	for rev := 1; rev <= 4; rev++ {
		st := release.StatusSuperseded
		if rev == 4 {
			st = release.StatusDeployed
		}
		if err := hd.Create(storage.RecordKey("loki", rev), bigRelease("loki", e.ns, rev, st, 560_000+35_000*rev)); err != nil {
			t.Fatal(err)
		}
	}
	e.installWith(e.actionConfigIn(hd, e.ns), e.ns, "helm secrets", "small", 1)

	r := e.run("ls", "--near-limit", "-q")
	mustCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "loki" {
		t.Fatalf("ls --near-limit:\n%s", r)
	}
	r = e.run("ls", "--near-limit=99", "-q")
	mustCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("ls --near-limit=99:\n%s", r)
	}
	mustCode(t, e.run("ls", "--near-limit=120"), cli.ExitUsage)

	r = e.run("history", "loki")
	mustCode(t, r, 0)
	for _, s := range []string{"Warning: ", "will not fit", "does not help", "chunked"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("history lacks %q:\n%s", s, r)
		}
	}
	r = e.run("history", "loki", "-o", "json")
	var h cli.History
	decode(t, r, &h)
	if !(h.Forecast.FailsAt > 4 && h.Forecast.FailsAt <= 4+5) {
		t.Errorf("forecast = %+v", h.Forecast)
	}
}

// TestRollbackRequestsPerStore measures a rollback by name through the CLI on a
// release of each store: the listing that finds it reads that name only, and every
// step after runs on the one store that holds it. It bounds the GETs and lists of
// the release's records (SelfSubjectAccessReviews and Helm's own reads of the
// release's resources aside, and the one discovery pass, /version, /api and /apis,
// that checks the revisions' APIs for the plan's warnings).
func TestRollbackRequestsPerStore(t *testing.T) {
	e := newEnv(t)
	e.install(byChunkview, "rb-chunked", 3)
	e.installWith(e.actionConfigIn(e.helmSecrets(), e.ns), e.ns, "helm secrets", "rb-secret", 3)
	e.installWith(e.actionConfigIn(e.helmConfigMaps(), e.ns), e.ns, "helm configmaps", "rb-cfgmap", 3)
	for _, name := range []string{"rb-chunked", "rb-secret", "rb-cfgmap"} {
		stats := &kube.Stats{}
		r := e.runApp(&cli.App{Stats: stats}, "", "rollback", name, "1", "--yes")
		mustCode(t, r, 0)
		reads := stats.Requests()["GET"]
		t.Logf("%s: %d requests %v, %d bytes received", name, stats.Total(), stats.Requests(), stats.BytesReceived())
		if reads > 43 {
			t.Errorf("%s: %d reads for one rollback: %v", name, reads, stats.Requests())
		}
	}
}
