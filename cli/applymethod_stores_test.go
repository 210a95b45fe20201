package cli_test

import (
	"strings"
	"testing"

	common4 "helm.sh/helm/v4/pkg/release/common"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/storage"
)

// TestApplyMethodEveryStore: the apply method Helm 4 recorded shows in history
// -o wide for records in every store, the superseded revisions among them:
// Helm 4's Secrets and ConfigMaps drivers (and -o json, from the listing), and
// chunked records, which chunkview's own Helm 4 driver writes with a summary on
// the index that holds no apply method.
func TestApplyMethodEveryStore(t *testing.T) {
	t.Parallel()
	for _, st := range helm4Stores() {
		t.Run(st.driver, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			d := st.store(e.ns)
			for rev, method := range []string{"csa", "ssa", "ssa"} {
				status := common4.StatusSuperseded
				if rev == 2 {
					status = common4.StatusDeployed
				}
				if err := d.Create(storage.RecordKey("am", rev+1), helm4Release("am", e.ns, rev+1, status, method)); err != nil {
					t.Fatal(err)
				}
			}
			if st.driver != "chunked" {
				var h cli.History
				r := e.run("history", "am", "-o", "json", "--driver", st.driver)
				mustCode(t, r, cli.ExitOK)
				decode(t, r, &h)
				var got []string
				for _, it := range h.Revisions {
					got = append(got, it.ApplyMethod)
				}
				if strings.Join(got, " ") != "csa ssa ssa" {
					t.Errorf("history -o json: apply methods %q, want csa ssa ssa", got)
				}
			}
			r := e.run("history", "am", "-o", "wide", "--driver", st.driver)
			mustCode(t, r, cli.ExitOK)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(lines) != 4 || wideCell(lines, 1, "APPLY METHOD") != "csa" || wideCell(lines, 2, "APPLY METHOD") != "ssa" || wideCell(lines, 3, "APPLY METHOD") != "ssa" {
				t.Errorf("history -o wide:\n%s", r.stdout)
			}
		})
	}
}
