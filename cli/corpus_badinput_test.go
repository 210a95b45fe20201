package cli_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/badinput"
)

var getOpts = metav1.GetOptions{}

// mustNotLeak fails if a run's output repeats the planted secret, plain or base64.
func mustNotLeak(t *testing.T, what string, r result) {
	t.Helper()
	for _, s := range []string{badinput.PlantedSecret, badinput.PlantedSecretBase64} {
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
			t.Errorf("%s repeats the planted secret: %s", what, r)
		}
	}
}

// TestBadInputCLI runs the read commands over each malformed record of the corpus:
// ls, history, inspect (with and without --values), verify with and without
// --decode, and gc --dry-run. Broken revisions are shown as broken with a message
// naming the Secret at fault and what to run; exit codes are the documented ones;
// nothing panics; no output repeats payload data.
func TestBadInputCLI(t *testing.T) {
	for _, c := range badinput.Loaded() {
		t.Run(c.Name, func(t *testing.T) {
			e := newEnv(t)
			if err := badinput.Apply(context.Background(), cluster.Client.CoreV1().Secrets(e.ns), c); err != nil {
				t.Fatal(err)
			}
			// A summary annotation lets listings show a record without decoding it.
			listedBroken := !c.Readable && c.Name != "summary-lies"

			r := e.run("ls")
			mustCode(t, r, cli.ExitOK)
			mustNotLeak(t, "ls", r)
			if listedBroken && (!strings.Contains(r.stdout, "<broken>") || !strings.Contains(r.stderr, c.Secret) || !strings.Contains(r.stderr, "chunkview verify "+c.Name)) {
				t.Errorf("ls does not mark the release broken, name %s and say what to run: %s", c.Secret, r)
			}
			// The corpus's payloads name namespace default while their records
			// live in the test's namespace, and -n is the release namespace: list
			// the records of the test's namespace, whatever release namespace.
			var ls cli.Releases
			decode(t, e.run("ls", "-o", "json", "-A", "--storage-namespace", e.ns), &ls)
			shown := false
			for _, it := range ls.Releases {
				if it.Name == c.Name {
					shown = true
					if it.Broken != listedBroken {
						t.Errorf("ls -o json: %+v", it)
					}
				}
			}
			if !shown {
				t.Errorf("ls -o json does not list %s: %+v", c.Name, ls)
			}

			r = e.run("history", c.Name)
			mustCode(t, r, cli.ExitOK)
			mustNotLeak(t, "history", r)
			if listedBroken && !strings.Contains(r.stdout, "cannot be read") {
				t.Errorf("history does not mark the revision broken: %s", r)
			}

			r = e.run("inspect", c.Name)
			if c.Readable {
				mustCode(t, r, cli.ExitOK)
			} else {
				mustCode(t, r, cli.ExitProblems)
			}
			mustNotLeak(t, "inspect", r)
			if !c.Readable && (!strings.Contains(r.stdout, "This revision cannot be read") || !strings.Contains(r.stdout, "chunkview verify")) {
				t.Errorf("inspect of a broken revision: %s", r)
			}
			r = e.run("inspect", c.Name, "--values", "-o", "yaml")
			mustNotLeak(t, "inspect --values", r)
			if c.Readable {
				mustCode(t, r, cli.ExitOK)
			} else {
				mustCode(t, r, cli.ExitFailure)
				oneLineErr(t, r)
				if !strings.Contains(r.stderr, "cannot be read") || !strings.Contains(r.stderr, c.Secret) {
					t.Errorf("inspect --values of a broken revision: %s", r)
				}
			}

			for _, decodeFlag := range []bool{false, true} {
				args := []string{"verify"}
				want := c.Quick
				if decodeFlag {
					args = append(args, "--decode")
					want = c.Problem
				}
				r = e.run(args...)
				mustNotLeak(t, strings.Join(args, " "), r)
				if want == "" {
					mustCode(t, r, cli.ExitOK)
					continue
				}
				mustCode(t, r, cli.ExitProblems)
				if !strings.Contains(r.stdout, string(want)) || !strings.Contains(r.stdout, c.Secret) || !strings.Contains(r.stdout, "What these problems mean") {
					t.Errorf("%v does not report %s on %s: %s", args, want, c.Secret, r)
				}
				var v cli.VerifyResult
				decode(t, e.run(append(args, "-o", "json")...), &v)
				if v.OK || v.Problems == 0 {
					t.Errorf("%v -o json: %+v", args, v)
				}
			}

			r = e.run("gc", "--dry-run", "--min-age", "0", "-o", "json")
			mustCode(t, r, cli.ExitOK)
			var g cli.GCResult
			decode(t, r, &g)
			if g.Found != 0 {
				t.Errorf("gc would remove Secrets of the corpus: %s", r)
			}
			if c.Name == "wrong-type-chunk" {
				if _, err := cluster.Client.CoreV1().Secrets(e.ns).Get(context.Background(), c.Secret, getOpts); err != nil {
					t.Errorf("the stray Secret is gone: %v", err)
				}
			}
		})
	}
}
