package cli_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
)

// supersededRecord matches a request that names a superseded revision of the
// releases TestRemovedAPIsReadsLatestOnly writes (as a Secret's name, a chunk's
// or a label selector's key).
var supersededRecord = regexp.MustCompile(`sh\.helm\.release\.v1\.(web\.v[12]|api\.v1|db\.v1)([^0-9]|$)`)

// TestRemovedAPIsReadsLatestOnly: ls --removed-apis, over every store, adds
// to plain ls one discovery pass (the server's version, then /api and /apis,
// each once: the controllers' discovery reads the same pass) and the data of
// each release's latest revision, and reads no superseded revision. The
// stale release is found, so the check did run.
func TestRemovedAPIsReadsLatestOnly(t *testing.T) {
	e := newEnv(t)
	e.install(byChunkview, "web", 3)
	e.install(byPlugins, "api", 2)
	d := e.helmSecrets()
	cfg := e.actionConfigIn(d, e.ns)
	e.installWith(cfg, e.ns, "helm", "db", 2)
	kubetest.InstallLegacy3(t, cfg, d, e.ns, "legacy", false)

	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", "ls", "--removed-apis", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var out cli.Releases
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if len(out.Releases) != 1 || out.Releases[0].Name != "legacy" || len(out.Releases[0].RemovedAPIs) == 0 {
		t.Fatalf("ls --removed-apis lists %+v, want legacy alone, with its objects", out.Releases)
	}
	discovery := map[string]int{}
	for _, call := range stats.Calls() {
		if supersededRecord.MatchString(call) {
			t.Errorf("ls --removed-apis read a superseded revision: %s", call)
		}
		path, _, _ := strings.Cut(strings.TrimPrefix(call, "GET "), "?")
		path, _, _ = strings.Cut(path, " ")
		segs := strings.Split(strings.Trim(path, "/"), "/")
		switch {
		case path == "/version", path == "/api", path == "/apis":
			discovery[path]++
		case segs[0] == "api" && len(segs) == 2, segs[0] == "apis" && len(segs) <= 3:
			// A group version's own document: a second way of discovering.
			discovery[path]++
		}
	}
	for path, n := range discovery {
		if n > 1 || (path != "/version" && path != "/api" && path != "/apis") {
			t.Errorf("ls --removed-apis made more than one discovery pass: %s asked %d times (%v)", path, n, discovery)
		}
	}
	if discovery["/apis"] == 0 {
		t.Errorf("ls --removed-apis read no discovery (%v): what did it check against?", discovery)
	}
	t.Logf("ls --removed-apis: %d requests, %d bytes received, discovery %v", stats.Total(), stats.BytesReceived(), discovery)
}
