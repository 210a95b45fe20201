package cli_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/storage"
)

// TestUserAgent: every request a rollback sends, chunkview's reads and writes of
// the records and Helm's reads and applies of the release's objects alike, goes
// out as chunkview/VERSION, so that an audit log tells chunkview's writes from
// anyone's. The API server, which names the field manager of a write that names
// none after its User-Agent, records the new revision's index Secret as written
// by chunkview.
func TestUserAgent(t *testing.T) {
	t.Parallel()
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e := newEnv(t)
	e.install(byChunkview, "app", 2)
	if e.kubeconfig, err = p.WriteKubeconfig(t.TempDir(), "default"); err != nil {
		t.Fatal(err)
	}
	mustCode(t, e.run("rollback", "app", "1", "--yes"), cli.ExitOK)

	reqs := p.Requests()
	var mutating, applies int
	for _, r := range reqs {
		if !strings.HasPrefix(r.UserAgent, "chunkview/") {
			t.Errorf("%s went out as %q", r, r.UserAgent)
		}
		if r.Mutating() {
			mutating++
			if strings.Contains(r.Path, "/configmaps/") {
				applies++
			}
		}
	}
	if mutating < 3 || applies == 0 {
		t.Fatalf("the rollback made %d mutating requests, %d of them on the release's ConfigMap: want its record writes and Helm's apply:\n%v", mutating, applies, reqs)
	}
	idx, err := cluster.Client.CoreV1().Secrets(e.ns).Get(t.Context(), storage.RecordKey("app", 3), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var managers []string
	for _, m := range idx.ManagedFields {
		managers = append(managers, m.Manager)
	}
	if len(managers) == 0 || managers[0] != "chunkview" {
		t.Errorf("revision 3's index Secret is managed by %v, want chunkview (the server's name for a client whose User-Agent is chunkview/...)", managers)
	}
}
