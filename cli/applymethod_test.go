package cli_test

import (
	"strings"
	"testing"
	"time"

	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/storage"
)

// helm4Release is revision rev of release name as Helm 4 stores it, with the
// apply method Helm 3's types do not have.
func helm4Release(name, ns string, rev int, status common4.Status, method string) *release4.Release {
	ts := time.Now().Add(time.Duration(rev-5) * time.Hour)
	return &release4.Release{
		Name: name, Namespace: ns, Version: rev,
		Info: &release4.Info{FirstDeployed: ts, LastDeployed: ts, Status: status, Description: "Upgrade complete"},
		Chart: &chart4.Chart{
			Metadata:  &chart4.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0.0", AppVersion: "4.0"},
			Templates: []*chartcommon4.File{{Name: "templates/cm.yaml", Data: []byte("kind: ConfigMap\n"), ModTime: ts}},
		},
		Config:      map[string]any{"replicas": rev},
		ApplyMethod: method,
	}
}

// TestApplyMethodShown: Helm 4's apply_method of a revision shows in ls and
// history (-o json, and -o wide), and in get all, as the TUI's revision summary
// shows it; a Helm 3 record shows none.
func TestApplyMethodShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d4 := driver4.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns))
	for rev, st := range map[int]common4.Status{1: common4.StatusSuperseded, 2: common4.StatusDeployed} {
		method := string(release4.ApplyMethodServerSideApply)
		if rev == 1 {
			method = string(release4.ApplyMethodClientSideApply)
		}
		if err := d4.Create(storage.RecordKey("h4", rev), helm4Release("h4", e.ns, rev, st, method)); err != nil {
			t.Fatal(err)
		}
	}
	e.install(byChunkview, "h3", 1)

	var h cli.History
	r := e.run("history", "h4", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &h)
	if len(h.Revisions) != 2 || h.Revisions[0].ApplyMethod != "csa" || h.Revisions[1].ApplyMethod != "ssa" {
		t.Errorf("history -o json: %+v", h.Revisions)
	}
	r = e.run("history", "h4", "-o", "wide")
	mustCode(t, r, cli.ExitOK)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "APPLY METHOD   DESCRIPTION") || wideCell(lines, 1, "APPLY METHOD") != "csa" || wideCell(lines, 2, "APPLY METHOD") != "ssa" {
		t.Errorf("history -o wide:\n%s", r.stdout)
	}
	r = e.run("history", "h3", "-o", "wide")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); wideCell(lines, 1, "APPLY METHOD") != "-" {
		t.Errorf("history -o wide of a Helm 3 record:\n%s", r.stdout)
	}
	r = e.run("get", "all", "h4")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "\nAPPLY_METHOD: server-side apply\n") {
		t.Errorf("get all lacks the apply method:\n%.600s", r.stdout)
	}
	if r := e.run("get", "all", "h3"); strings.Contains(r.stdout, "APPLY_METHOD") {
		t.Errorf("get all of a Helm 3 record names an apply method:\n%.600s", r.stdout)
	}
}

// wideCell is the cell of table line i under the header lines[0]'s column
// head, for a column whose cells have no spaces.
func wideCell(lines []string, i int, head string) string {
	at := strings.Index(lines[0], head)
	if at < 0 || i >= len(lines) || at >= len(lines[i]) {
		return ""
	}
	f := strings.Fields(lines[i][at:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
