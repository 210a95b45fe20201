package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
)

// TestTUIWithoutTerminal: the interactive view started where there is no
// terminal (a pipe, a CI job) is refused at once with a usage error that says
// what to do, before connecting to anything, instead of the terminal library's
// raw error about /dev/tty.
func TestTUIWithoutTerminal(t *testing.T) {
	t.Parallel()
	opened := false
	app := &cli.App{TUI: func(context.Context, *kube.Client, cli.Session) error { opened = true; return nil }}
	for _, args := range [][]string{{"--demo"}, {"--kubeconfig", "/nope"}, {"--demo", "--read-only"}} {
		var out, errb bytes.Buffer
		code := app.Run(t.Context(), args, strings.NewReader(""), &out, &errb)
		r := result{stdout: out.String(), stderr: errb.String(), code: code}
		mustCode(t, r, cli.ExitUsage)
		oneLineErr(t, r)
		// The command advised pastes: under --demo, it is the demo's.
		ls := "`chunkview ls`"
		if args[0] == "--demo" {
			ls = "`chunkview --demo ls`"
		}
		for _, want := range []string{"needs a terminal", ls} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: %q lacks %q", args, r.stderr, want)
			}
		}
		if strings.Contains(r.stderr, "/dev/tty") || strings.Contains(r.stderr, "kubeconfig") {
			t.Errorf("%v: %q", args, r.stderr)
		}
	}
	if opened {
		t.Error("the view was opened without a terminal")
	}
}
