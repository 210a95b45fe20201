package cli_test

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
)

// TestStoreSkipSaidOnce: a user who may read Secrets and not ConfigMaps is told
// once a command, in one short line, that Helm's ConfigMaps store was not read,
// how to check it and how to stop looking there; verify, which lists twice,
// says it once too and still checks the records it may read. With --driver
// naming the stores the user reads, nothing is said.
func TestStoreSkipSaidOnce(t *testing.T) {
	t.Parallel()
	e := rbacFixture(t)
	user := "cli-secrets-only-" + e.ns
	bind(t, e.ns, user, "reader", secretReader)
	ue := userEnv(t, e, user, e.ns)
	mustCode(t, retryUntil(t, ue, cli.ExitOK, "ls"), cli.ExitOK)
	for _, args := range [][]string{{"ls"}, {"ls", "-A"}, {"verify"}, {"gc", "--dry-run"}} {
		r := ue.run(args...)
		mustCode(t, r, cli.ExitOK)
		var notes []string
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.Contains(strings.ToLower(l), "configmaps") {
				notes = append(notes, l)
			}
		}
		if len(notes) != 1 {
			t.Errorf("%v: want one line about ConfigMaps, got %d:\n%s", args, len(notes), r.stderr)
			continue
		}
		n := notes[0]
		for _, want := range []string{"Note: Helm's ConfigMaps store was not read: you may not list configmaps", "(kubectl auth can-i list configmaps", "--driver chunked,secret"} {
			if !strings.Contains(n, want) {
				t.Errorf("%v: %q lacks %q", args, n, want)
			}
		}
		if strings.Contains(n, "Server said") || len(n) > 240 {
			t.Errorf("%v: the note is the server's refusal in full: %q", args, n)
		}
	}
	r := ue.run("verify")
	if !strings.Contains(r.stdout, "3 index Secrets") {
		t.Errorf("verify checked nothing for a user who may read the Secrets: %s", r)
	}
	for _, args := range [][]string{{"ls", "--driver", "chunked,secret"}, {"verify", "--driver", "chunked"}} {
		if r := ue.run(args...); r.code != cli.ExitOK || strings.Contains(strings.ToLower(r.stderr), "configmaps") {
			t.Errorf("%v: %s", args, r)
		}
	}
}
