package cli_test

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/revdiff"
)

// TestReadCommands runs the read-only commands on releases written by each driver.
func TestReadCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		e.install(w, "app-"+string(w)[:4], 3)
	}
	e.install(byPlugins, "broken", 2)
	e.deleteSecret(e.chunkOf("broken", 2))

	t.Run("ls", func(t *testing.T) {
		r := e.run("ls", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var out cli.Releases
		decode(t, r, &out)
		if len(out.Releases) != 3 {
			t.Fatalf("want 3 releases, got %s", r)
		}
		byName := map[string]cli.ReleaseItem{}
		for _, it := range out.Releases {
			byName[it.Name] = it
		}
		for _, w := range writers {
			it := byName["app-"+string(w)[:4]]
			if it.Revision != 3 || it.Revisions != 3 || it.Status != "deployed" || it.Chart != "greeter" ||
				it.ChartVersion != "1.2.3" || it.AppVersion != "4.5.6" || it.Chunks < 3 || max(it.StoredBytes, it.StoredBytesAtMost) < 2*testChunkSize ||
				it.Namespace != e.ns || it.StorageNamespace != e.ns || it.Broken || it.Updated.IsZero() {
				t.Errorf("%s: row %+v", w, it)
			}
		}
		if b := byName["broken"]; !b.Broken || b.Problem == "" || b.Revision != 2 {
			t.Errorf("broken release not marked: %+v", b)
		}

		r = e.run("ls")
		mustCode(t, r, cli.ExitOK)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME ") || !strings.Contains(lines[0], "APP VERSION") {
			t.Fatalf("table: %s", r)
		}
		if !strings.Contains(r.stdout, "greeter-1.2.3") || !strings.Contains(r.stdout, "<broken>") {
			t.Errorf("table lacks chart or broken mark: %s", r)
		}
		if r := e.run("ls", "-o", "wide"); !strings.Contains(r.stdout, "KiB") {
			t.Errorf("-o wide lacks sizes: %s", r)
		}
		if !strings.Contains(r.stderr, "verify broken") {
			t.Errorf("broken row not explained on stderr: %s", r)
		}

		r = e.run("ls", "-o", "yaml")
		mustCode(t, r, cli.ExitOK)
		if !strings.Contains(r.stdout, "releases:") || !strings.Contains(r.stdout, "storageNamespace: "+e.ns) {
			t.Errorf("yaml: %s", r)
		}
	})

	t.Run("ls nothing found", func(t *testing.T) {
		// An empty list is an answer, as in helm: exit 0, the header, and where
		// ls looked on stderr.
		r := e.run("ls", "--owner", "nobody")
		mustCode(t, r, cli.ExitOK)
		if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "NAME ") {
			t.Errorf("want the header alone: %s", r)
		}
		for _, hint := range []string{"--owner", "--profile olmv1", "-A"} {
			if !strings.Contains(r.stderr, hint) {
				t.Errorf("no %s hint: %s", hint, r)
			}
		}
	})

	t.Run("history", func(t *testing.T) {
		for _, w := range writers {
			name := "app-" + string(w)[:4]
			r := e.run("history", name, "-o", "json")
			mustCode(t, r, cli.ExitOK)
			var h cli.History
			decode(t, r, &h)
			if h.Release != name || h.StorageNamespace != e.ns || len(h.Revisions) != 3 {
				t.Fatalf("%s: %s", w, r)
			}
			for i, rv := range h.Revisions {
				wantStatus := "superseded"
				if i == 2 {
					wantStatus = "deployed"
				}
				if rv.Revision != i+1 || rv.Status != wantStatus || rv.Chart != "greeter" || rv.Chunks < 3 || rv.StoredBytes == 0 || rv.Description == "" || rv.Key == "" {
					t.Errorf("%s: revision %d: %+v", w, i+1, rv)
				}
			}
			r = e.run("history", name)
			mustCode(t, r, cli.ExitOK)
			if !strings.Contains(r.stdout, "REVISION") || !strings.Contains(r.stdout, "Upgrade complete") {
				t.Errorf("%s: table: %s", w, r)
			}
		}
		r := e.run("history", "nope")
		mustCode(t, r, cli.ExitNotFound)
		oneLineErr(t, r)
	})

	t.Run("inspect", func(t *testing.T) {
		for _, w := range writers {
			name := "app-" + string(w)[:4]
			r := e.run("inspect", name, "--revision", "2", "-o", "json")
			mustCode(t, r, cli.ExitOK)
			var in cli.Inspection
			decode(t, r, &in)
			if in.Release != name || in.Revision != 2 || in.Status != "superseded" || in.Index.Role != "index" || len(in.Chunks) < 2 {
				t.Fatalf("%s: %s", w, r)
			}
			if got := len(e.secrets(name)[2]); in.Totals.Secrets != got {
				t.Errorf("%s: totals say %d Secrets, the cluster holds %d", w, in.Totals.Secrets, got)
			}
			sum := len(in.Chunks)
			for _, c := range in.Chunks {
				if c.State != "ok" || !c.HashOK || !c.Owned || c.Bytes == 0 || c.Bytes > testChunkSize || c.ShareOfLimit <= 0 {
					t.Errorf("%s: chunk %+v", w, c)
				}
			}
			if sum == 0 || in.Totals.CompressedBytes <= testChunkSize || in.Totals.DecompressedBytes <= in.Totals.CompressedBytes ||
				in.Totals.HelmSecretBytes == 0 || !in.Totals.HelmSecretFits || in.Totals.HelmSecretLimit != 1<<20 || len(in.Parts) == 0 || in.Values != nil {
				t.Errorf("%s: totals/parts %+v %+v", w, in.Totals, in.Parts)
			}

			r = e.run("inspect", name, "--values")
			mustCode(t, r, cli.ExitOK)
			for _, want := range []string{"SECRET", "OF 1 MiB", "Helm Secrets driver", "fits in one Secret", render.PartsTitle, "hello from revision 3", revdiff.MaskPrefix} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%s: table lacks %q: %s", w, want, r)
				}
			}
			if strings.Contains(r.stdout, "hunter2") {
				t.Errorf("%s: a secret value leaked without --reveal: %s", w, r)
			}
			r = e.run("inspect", name, "--values", "--reveal", "-o", "json")
			mustCode(t, r, cli.ExitOK)
			decode(t, r, &in)
			if in.Values == nil || in.Values.Masked || in.Values.Data["password"] != "hunter2-secret-3" {
				t.Errorf("%s: revealed values: %+v", w, in.Values)
			}
		}
		// Its layout is printed, and the exit says it cannot be read.
		r := e.run("inspect", "broken", "-o", "json")
		mustCode(t, r, cli.ExitProblems)
		var in cli.Inspection
		decode(t, r, &in)
		missing := 0
		for _, c := range in.Chunks {
			if c.State == "missing" {
				missing++
			}
		}
		if in.DecodeError == "" || missing != 1 {
			t.Errorf("broken revision: %s", r)
		}
		r = e.run("inspect", "app-helm", "--revision", "9")
		mustCode(t, r, cli.ExitNotFound)
	})

	t.Run("diff", func(t *testing.T) {
		for _, w := range writers {
			name := "app-" + string(w)[:4]
			r := e.run("diff", name, "1", "3")
			mustCode(t, r, cli.ExitOK)
			for _, want := range []string{"revision 1 -> 3", "secrets masked", "~ ConfigMap/", `-  greeting: "hello from revision 1"`, `+  greeting: "hello from revision 3"`} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%s: diff lacks %q: %s", w, want, r)
				}
			}
			if strings.Contains(r.stdout, "hunter2") {
				t.Errorf("%s: secret leaked: %s", w, r)
			}
			r = e.run("diff", name, "1", "3", "-o", "json", "--reveal", "-U", "0")
			mustCode(t, r, cli.ExitOK)
			var res revdiff.Result
			decode(t, r, &res)
			if res.Release != name || res.From != 1 || res.To != 3 || !res.Revealed || !strings.Contains(res.Values.Diff, "hunter2-secret-3") {
				t.Errorf("%s: json diff: %+v", w, res)
			}
			if a, rm, c := res.Summary(); a != 0 || rm != 0 || c != 1 {
				t.Errorf("%s: summary %d/%d/%d", w, a, rm, c)
			}
		}
		r := e.run("diff", "app-helm", "1", "x")
		mustCode(t, r, cli.ExitUsage)
		r = e.run("diff", "app-helm", "1", "7")
		mustCode(t, r, cli.ExitNotFound)
	})

	t.Run("all namespaces", func(t *testing.T) {
		r := e.run("history", "app-chun", "-A", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var h cli.History
		decode(t, r, &h)
		if h.StorageNamespace != e.ns || len(h.Revisions) != 3 {
			t.Errorf("history -A: %s", r)
		}
	})
}

// TestVerify checks sound records, then damaged ones, with their explanations.
func TestVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range writers {
		e.install(w, "ok-"+string(w)[:4], 2)
	}
	r := e.run("verify", "--decode")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stdout, "no problems") || !strings.Contains(r.stdout, "every revision decodes") {
		t.Errorf("sound records: %s", r)
	}

	e.install(byPlugins, "damaged", 1)
	e.deleteSecret(e.chunkOf("damaged", 1))
	r = e.run("verify", "-o", "json")
	mustCode(t, r, cli.ExitProblems)
	var v cli.VerifyResult
	decode(t, r, &v)
	if v.OK || v.Problems != 1 || len(v.Namespaces) != 1 || v.Namespaces[0].Namespace != e.ns || v.Namespaces[0].Indexes != 5 {
		t.Fatalf("verify: %s", r)
	}
	p := v.Namespaces[0].Problems[0]
	if p.Kind != "missing-chunk" || p.Release != "damaged" || p.Revision != 1 || !strings.Contains(p.Explanation, "delete-revision --force") {
		t.Errorf("problem: %+v", p)
	}
	r = e.run("verify")
	mustCode(t, r, cli.ExitProblems)
	if !strings.Contains(r.stdout, "missing-chunk") || !strings.Contains(r.stdout, "What these problems mean") {
		t.Errorf("table: %s", r)
	}
	// One release at a time: the sound one passes.
	r = e.run("verify", "ok-chun")
	mustCode(t, r, cli.ExitOK)
	r = e.run("verify", "absent")
	mustCode(t, r, cli.ExitNotFound)
}

// TestUsage checks usage errors and the documented exit codes.
func TestUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, args := range [][]string{
		{"history"},
		{"ls", "-o", "xml"},
		{"ls", "--no-such-flag"},
		{"nosuchcommand"},
		{"diff", "a", "1", "2", "3"},
		{"delete-revision", "a", "zero"},
		{"ls", "--profile", "nope"},
		{"fix-stuck", "a", "--mark-failed", "--delete-pending"},
	} {
		r := e.run(args...)
		if r.code != cli.ExitUsage || !strings.HasPrefix(r.stderr, "Error: ") || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--help") {
			t.Errorf("%v: want a one-line usage error, got %s", args, r)
		}
	}
	r := e.run("--help")
	mustCode(t, r, cli.ExitOK)
	for _, want := range []string{"Exit codes:", "3  not found", "5  refused", "fix-stuck", "--read-only", "--kubeconfig"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	// Unreachable cluster: its own code, one line.
	r = (&env{t: t, ns: e.ns, kubeconfig: writeKubeconfig(t, "https://127.0.0.1:1"), cacheDir: t.TempDir()}).run("ls")
	mustCode(t, r, cli.ExitUnreachable)
	oneLineErr(t, r)
}

// writeKubeconfig writes a kubeconfig pointing at server.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	e := newEnv(t)
	data := strings.Replace(readFile(t, e.kubeconfig), "server: "+cluster.Config.Host, "server: "+server, 1)
	if !strings.Contains(data, server) {
		t.Fatalf("kubeconfig has no server line for %s", cluster.Config.Host)
	}
	writeFile(t, e.kubeconfig, data)
	return e.kubeconfig
}
