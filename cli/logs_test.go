package cli_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/demo"
)

// demoPassword is payments-api's database password in the demo's values, which
// its migration's log quotes.
const demoPassword = "r0tated-2q4W!zT8"

// prefixed returns, by container, the lines of a logs output prefixed with
// [pod/POD/CONTAINER].
func prefixed(out string) map[string][]string {
	re := regexp.MustCompile(`^\[(pod/[^\]]+)\] (.*)$`)
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			got[m[1]] = append(got[m[1]], m[2])
		}
	}
	return got
}

// TestLogsDemo: logs with no object named picks the failing containers of the
// release and prints their logs, prefixed: web-frontend's two Pods in
// CrashLoopBackOff and not its three running ones, the current run's log
// (--previous the one before, which differs); payments-api's failed migration
// hook Pods (not counted again as the Deployment's, whose labels they share),
// the database password masked unless --reveal; -f reads them at once. Named objects, -c and --tail
// are kubectl's; a release with no failing container says so.
func TestLogsDemo(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "logs", demo.StuckRelease)
	mustCode(t, r, cli.ExitOK)
	cur := prefixed(r.stdout)
	if len(cur) != 2 {
		t.Fatalf("want the logs of the two crashing containers, got %d:\n%s", len(cur), r)
	}
	for name, lines := range cur {
		if !strings.HasPrefix(name, "pod/"+demo.StuckRelease+"-") || !strings.HasSuffix(name, "/"+demo.StuckRelease) ||
			!strings.Contains(lines[len(lines)-1], `unknown directive "brotli"`) {
			t.Errorf("%s: %q", name, lines)
		}
		if !strings.Contains(r.stderr, name+": CrashLoopBackOff, ") {
			t.Errorf("stderr does not say why %s was picked:\n%s", name, r.stderr)
		}
	}
	for _, want := range []string{"2 failing containers", "the last 100 lines of each", "--previous shows the run before the last restart", "--reveal"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("want %q on stderr:\n%s", want, r.stderr)
		}
	}
	prev := prefixed(runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "--previous").stdout)
	for name, lines := range cur {
		if p := prev[name]; len(p) != len(lines) || p[5] == lines[5] {
			t.Errorf("--previous of %s: %q, the current: %q", name, p, lines)
		}
	}

	// -f reads both at once, each line whole under its prefix (the demo's logs
	// end where they are; a cluster's follow until Ctrl-C).
	f := runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "-f")
	mustCode(t, f, cli.ExitOK)
	if got := prefixed(f.stdout); len(got) != 2 || strings.Count(f.stdout, "\n") != strings.Count(r.stdout, "\n") {
		t.Errorf("-f:\n%s", f)
	}

	// The running Pods are in the release, but not failing.
	var running string
	st := runDemo(t, &cli.App{}, "status", demo.StuckRelease, "-o", "wide")
	mustCode(t, st, cli.ExitNotCurrent)
	for _, line := range strings.Split(st.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[2] == "Running" && strings.HasPrefix(f[0], demo.StuckRelease+"-") {
			running = f[0]
		}
	}
	if running == "" || strings.Contains(r.stdout+r.stderr, running) {
		t.Fatalf("running Pod %q (from status -o wide) among the failing:\n%s\n%s", running, r, st.stdout)
	}
	one := runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "pod/"+running, "--tail", "2")
	mustCode(t, one, cli.ExitOK)
	if n := strings.Count(one.stdout, "\n"); n != 2 || strings.Contains(one.stdout, "[pod/") {
		t.Errorf("pod/%s --tail 2: want two lines, unprefixed:\n%s", running, one)
	}
	mustCode(t, runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "pod/"+running, "-c", "nope"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "deployment/nope"), cli.ExitNotFound)
	mustCode(t, runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "secret/x"), cli.ExitUsage)
	mustCode(t, runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "web"), cli.ExitUsage)
	mustCode(t, runDemo(t, &cli.App{}, "logs", demo.StuckRelease, "-c", "web"), cli.ExitUsage)
	mustCode(t, runDemo(t, &cli.App{}, "logs", "nope"), cli.ExitNotFound)

	// The migration hook of payments-api's pending upgrade: three failed Pods.
	r = runDemo(t, &cli.App{}, "logs", demo.FailedHookRelease)
	mustCode(t, r, cli.ExitOK)
	logs := prefixed(r.stdout)
	if len(logs) != 3 || !strings.Contains(r.stderr, "3 failing containers") {
		t.Fatalf("want the three migration Pods' logs:\n%s", r)
	}
	for name, lines := range logs {
		all := strings.Join(lines, "\n")
		if !strings.HasPrefix(name, "pod/"+demo.FailedHookRelease+"-migrate-") || !strings.Contains(all, `relation "cards" already exists`) || !strings.Contains(all, "postgres://") {
			t.Errorf("%s: %q", name, lines)
		}
	}
	if strings.Contains(r.stdout+r.stderr, demoPassword) || !strings.Contains(r.stdout, "<masked:") {
		t.Errorf("the database password is not masked:\n%s", r.stdout)
	}
	r = runDemo(t, &cli.App{}, "logs", demo.FailedHookRelease, "job/"+demo.FailedHookRelease+"-migrate", "--tail", "1", "--reveal")
	mustCode(t, r, cli.ExitOK)
	if got := prefixed(r.stdout); len(got) != 3 || strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("job/…-migrate --tail 1: want a line of each of its three Pods:\n%s", r)
	}
	if r = runDemo(t, &cli.App{}, "logs", demo.FailedHookRelease, "job/"+demo.FailedHookRelease+"-migrate", "--reveal"); !strings.Contains(r.stdout, demoPassword) {
		t.Errorf("--reveal does not show the password:\n%s", r)
	}

	r = runDemo(t, &cli.App{}, "logs", "podinfo")
	mustCode(t, r, cli.ExitOK)
	if r.stdout != "" || !strings.Contains(r.stderr, "is failing") {
		t.Errorf("podinfo has no failing container:\n%s", r)
	}
}

// TestStatusDemoWideAndNotes: status -o wide lists the Pods of each workload
// with kubectl's columns (web-frontend's two crashing Pods with their restarts
// and last exit code, three running); payments-api's Deployment has its own
// Pods, not its migration Job's. The header is helm status's, the chart's
// NOTES close it, and in -o json notes are the chart's NOTES (get notes's),
// chunkview's remarks are remarks, and events are [] when there are none.
func TestStatusDemoWideAndNotes(t *testing.T) {
	t.Parallel()
	r := runDemo(t, &cli.App{}, "status", demo.StuckRelease, "-o", "wide")
	mustCode(t, r, cli.ExitNotCurrent)
	if !strings.HasPrefix(r.stdout, "NAME: "+demo.StuckRelease+"\nLAST DEPLOYED: ") || !strings.Contains(r.stdout, "\nNAMESPACE: demo\nSTATUS: deployed\nREVISION: ") {
		t.Errorf("not helm status's header:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Pods of Deployment "+demo.StuckRelease+": 5 Pods, 2 failing\n") {
		t.Errorf("no Pods of the Deployment:\n%s", r.stdout)
	}
	crashing, running := 0, 0
	for _, line := range strings.Split(r.stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) < 7 || !strings.HasPrefix(f[0], demo.StuckRelease+"-"):
		case f[1] == "0/1" && f[2] == "CrashLoopBackOff" && strings.HasPrefix(f[3], "15") && strings.HasSuffix(line, "1 (Error)"):
			crashing++
		case f[1] == "1/1" && f[2] == "Running" && f[3] == "0" && strings.HasPrefix(f[len(f)-2], "demo-node-") && f[len(f)-1] == "-":
			running++
		}
	}
	if crashing != 2 || running != 3 {
		t.Errorf("%d crashing and %d running Pods, want 2 and 3:\n%s", crashing, running, r.stdout)
	}
	if i, j := strings.Index(r.stdout, "\nNOTES:\n"), strings.Index(r.stdout, "Warning events"); i < 0 || i < j {
		t.Errorf("the chart's NOTES do not close the status:\n%s", r.stdout)
	}

	r = runDemo(t, &cli.App{}, "status", demo.FailedHookRelease, "-o", "wide")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "Pods of Deployment "+demo.FailedHookRelease+": ") || strings.Contains(r.stdout, "-migrate-") && strings.Index(r.stdout, "-migrate-") < strings.Index(r.stdout, "Hooks (") {
		t.Errorf("the Deployment's Pods include the migration Job's:\n%s", r.stdout)
	}

	var doc map[string]json.RawMessage
	r = runDemo(t, &cli.App{}, "status", demo.FailedHookRelease, "-o", "json")
	decode(t, r, &doc)
	var notes string
	if err := json.Unmarshal(doc["notes"], &notes); err != nil {
		t.Fatalf("notes: %v: %s", err, doc["notes"])
	}
	get := runDemo(t, &cli.App{}, "get", "notes", demo.FailedHookRelease)
	mustCode(t, get, cli.ExitOK)
	if want := strings.TrimSpace(strings.TrimPrefix(get.stdout, "NOTES:\n")); strings.TrimSpace(notes) != want || want == "" {
		t.Errorf("notes %q, get notes says %q", notes, want)
	}
	if _, ok := doc["pods"]; ok {
		t.Errorf("-o json reads the Pods only -o wide shows: %s", doc["pods"])
	}

	r = runDemo(t, &cli.App{}, "status", "podinfo", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	doc = nil
	decode(t, r, &doc)
	if string(doc["events"]) != "[]" {
		t.Errorf("events %s, want []", doc["events"])
	}
}
