package cli

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube"
)

func TestRollbackWarnings(t *testing.T) {
	row := func(rev int, status string) kube.RevisionRow {
		return kube.RevisionRow{Name: "x", Revision: rev, Status: status}
	}
	// The commands advised are built by the connection: here, by name alone.
	suggest := func(r kube.RevisionRow, verb string, args ...string) string {
		return strings.Join(append([]string{"chunkview", verb, r.Name}, args...), " ")
	}
	cases := []struct {
		name           string
		byDefault      bool
		latest, target kube.RevisionRow
		want           []string
	}{
		{"plain", true, row(4, "deployed"), row(3, "superseded"), nil},
		{"failed default target", true, row(4, "deployed"), row(3, "failed"), []string{"default target, revision 3", "is failed"}},
		{"failed target named", false, row(4, "deployed"), row(3, "failed"), nil},
		{"pending latest", false, row(5, "pending-upgrade"), row(3, "superseded"), []string{"leaves revision 5 pending-upgrade", "fix-stuck x"}},
		{"both", true, row(5, "pending-install"), row(4, "failed"), []string{"revision 4", "revision 5 pending-install"}},
	}
	for _, c := range cases {
		got := strings.Join(rollbackWarnings(c.byDefault, c.latest, c.target, suggest), "\n")
		if (got == "") != (len(c.want) == 0) {
			t.Errorf("%s: got %q", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}
