package cli_test

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
)

// TestDeleteDeployedSaysNoneLeft: deleting the deployed latest revision says, in
// the plan shown before the question, that no revision is deployed afterwards,
// so that helm ls no longer lists the release; -o json says so too
// (leavesNoneDeployed). Deleting a superseded revision says nothing of it.
func TestDeleteDeployedSaysNoneLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(byChunkview, "gone", 3)
	r := e.runTTY("no\n", "delete-revision", "gone", "3")
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stdout, "afterwards no revision is deployed, so `helm ls` no longer lists the release") {
		t.Errorf("the plan of deleting the deployed latest revision:\n%s", r)
	}
	r = e.runTTY("no\n", "delete-revision", "gone", "2")
	mustCode(t, r, cli.ExitRefused)
	if strings.Contains(r.stdout, "no revision is deployed") {
		t.Errorf("the plan of deleting a superseded revision speaks of none deployed:\n%s", r)
	}
	var out cli.DeleteRevisionResult
	r = e.run("delete-revision", "gone", "3", "--yes", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	decode(t, r, &out)
	if !out.LeavesNoneDeployed || !out.WasLatest || out.Remaining != 2 {
		t.Errorf("-o json: %+v", out)
	}
}
