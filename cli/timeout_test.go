package cli_test

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
)

// TestSilentServerTimesOut: against a server that accepts connections and never
// answers, ls and history give up with the request timeout the TUI has (no flag
// given), exit as unreachable, and say in one line which server did not answer
// within how long and which flag raises it; --request-timeout changes it.
func TestSilentServerTimesOut(t *testing.T) {
	server, _ := kubetest.SilentServer(t)
	e := newEnv(t)
	e.kubeconfig = writeKubeconfig(t, server)
	for _, args := range [][]string{{"ls"}, {"history", "web"}, {"ls", "--request-timeout", "2s"}} {
		r := e.run(args...)
		mustCode(t, r, cli.ExitUnreachable)
		oneLineErr(t, r)
		within := "10s" // the README's default, written out
		if len(args) > 2 {
			within = args[len(args)-1]
		}
		for _, want := range []string{"the API server " + server, "did not answer within " + within, "raise --request-timeout"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: the error lacks %q: %s", args, want, r)
			}
		}
	}
}
