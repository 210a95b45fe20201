package cli_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/cli"
)

// suggestion matches a command the tool advises, in backquotes.
var suggestion = regexp.MustCompile("`(chunkview [^`]+)`")

// suggestions returns the commands a run advised, on stdout or stderr.
func suggestions(r result) []string {
	var out []string
	for _, m := range suggestion.FindAllStringSubmatch(r.stdout+"\n"+r.stderr, -1) {
		out = append(out, m[1])
	}
	return out
}

// shellWords splits a suggested command line into its arguments (after "chunkview"),
// undoing the single quotes kube.Suggest puts around a word that needs them.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 || out[0] != "chunkview" {
		t.Fatalf("suggestion %q does not start with chunkview", line)
	}
	return out[1:]
}

// mustWorkPasted runs each suggestion of r as it stands and fails when one is
// refused as a usage error or does not find its release: pasted, every command
// the tool advises must reach what it names. run runs arguments as a paste would
// (the same cluster).
func mustWorkPasted(t *testing.T, what string, r result, run func(args ...string) result) int {
	t.Helper()
	n := 0
	for _, line := range suggestions(r) {
		n++
		args := shellWords(t, line)
		got := run(args...)
		if got.code == cli.ExitUsage || got.code == cli.ExitNotFound {
			t.Errorf("%s advised `%s`, which exits %d when pasted: %s", what, line, got.code, got)
		}
	}
	return n
}

// TestSuggestionsWorkPasted: every command the CLI advises in the demo, anywhere
// (warnings, refusals, fix-stuck's ways out, inspect, get), carries the flags it
// needs (--demo, -n, the revision, --profile, --context), and works when pasted.
func TestSuggestionsWorkPasted(t *testing.T) {
	t.Parallel()
	demoRun := func(args ...string) result {
		// A suggestion from the demo names --demo itself; runDemo adds it.
		if len(args) > 0 && args[0] == "--demo" {
			args = args[1:]
		}
		return runDemo(t, &cli.App{}, args...)
	}
	total := 0
	for _, args := range [][]string{
		{"ls"},
		{"rollback", "podinfo", "--yes"},
		{"rollback", "payments-api", "3", "--dry-run"},
		{"fix-stuck", "payments-api"},
		{"inspect", "ledger", "--revision", "3"},
		{"verify"},
		{"get", "values", "ledger"},
		{"-n", "payments", "rollback", "podinfo", "--dry-run"},
	} {
		r := runDemo(t, &cli.App{}, args...)
		n := mustWorkPasted(t, strings.Join(args, " "), r, demoRun)
		for _, s := range suggestions(r) {
			if !strings.Contains(s, "--demo") {
				t.Errorf("%v advised %q without --demo", args, s)
			}
		}
		total += n
	}
	if total < 6 {
		t.Errorf("the scenarios advised %d commands; they are meant to cover every kind", total)
	}
}

// TestSuggestionsCarryStorageFlags: on records kept in a storage namespace by
// another owner (OLMv1's layout), the commands advised carry --owner,
// --storage-namespace and the release's own -n, and work pasted; a rollback over
// an operation in progress advises fix-stuck that way.
func TestSuggestionsCarryStorageFlags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noNamespace = true
	system := e.ns
	apps := cluster.Namespace(t)
	d := ownerDriver(byChunkview, system, "operator-controller")
	e.installWith(e.actionConfigIn(d, apps), apps, byChunkview, "big", 2)
	flags := []string{"--owner", "operator-controller", "--storage-namespace", system, "-n", apps}
	e.addPendingWith(d, "big", "pending-upgrade", time.Minute)
	r := e.run(append([]string{"rollback", "big", "1", "--yes"}, flags...)...)
	mustCode(t, r, cli.ExitFailure)
	got := suggestions(r)
	found := false
	for _, s := range got {
		if !strings.Contains(s, "--storage-namespace "+system) || !strings.Contains(s, "--owner operator-controller") || !strings.Contains(s, "-n "+apps) {
			t.Errorf("advised %q without the flags that find the release", s)
		}
		found = found || strings.Contains(s, "fix-stuck big --mark-failed")
	}
	if !found {
		t.Fatalf("the in-progress refusal does not advise fix-stuck --mark-failed: %q: %s", got, r)
	}
	mustWorkPasted(t, "rollback over an operation in progress", r, e.run)
}
