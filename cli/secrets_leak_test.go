package cli_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/chunkview/chunkview/cli"
)

// leakPassword is the planted secret of revision rev.
func leakPassword(rev int) string { return fmt.Sprintf("Pl4nted-cli-%d-Hq83Ls", rev) }

// generated is the value leakChart's template makes up for the Secret's
// stringData "dsn" of revision rev, as a chart that generates a credential does:
// it is in no values and under no key that names a secret, so only the rule that
// a Secret's stringData is secret hides it.
func generated(rev int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("leaky/%d", rev)))
	return "S7r1ngD4ta-" + hex.EncodeToString(sum[:])[:12]
}

// generatedData is the credential leakChart's template makes up for the
// Secret's data "conn" of revision rev (base64, as data holds it): like
// generated, but in data, and nowhere else, so only the rule that a Secret's data
// is secret hides it (a value also in stringData would be masked in data as the
// base64 of a remembered secret).
func generatedData(rev int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("leaky/%d/data", rev)))
	return "D4t40nly-" + hex.EncodeToString(sum[:])[:12]
}

// leakChart puts the password in a Secret's data and stringData, in a ConfigMap's
// connection string and in the notes, and generated credentials in the Secret's
// stringData alone and in its data alone (see generated, generatedData).
func leakChart() *chart.Chart {
	tpl := func(name, body string) *chart.File { return &chart.File{Name: "templates/" + name, Data: []byte(body)} }
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "leaky", Version: "1.0.0", AppVersion: "1", APIVersion: "v2"},
		Templates: []*chart.File{
			tpl("secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-db\ntype: Opaque\ndata:\n  password: {{ .Values.db.password | b64enc }}\n  conn: {{ printf \"%s/%d/data\" .Release.Name .Release.Revision | sha256sum | trunc 12 | printf \"D4t40nly-%s\" | b64enc }}\nstringData:\n  token: {{ .Values.db.password | quote }}\n  dsn: {{ printf \"%s/%d\" .Release.Name .Release.Revision | sha256sum | trunc 12 | printf \"S7r1ngD4ta-%s\" | quote }}\n"),
			tpl("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  url: \"postgres://app:{{ .Values.db.password }}@db:5432/app\"\n  greeting: {{ .Values.greeting | quote }}\n"),
			tpl("NOTES.txt", "Log in with password {{ .Values.db.password }}\n"),
		},
		Values: map[string]interface{}{"greeting": "hello", "db": map[string]interface{}{"password": "chart-default-x"}},
	}
}

// TestSecretsMaskedEverywhere renders every CLI output of a release whose password
// sits in values, in a Secret's data and stringData, in a connection string and in
// the notes, and whose Secret's stringData and data each hold a credential its
// chart generated, found nowhere else (so that only the rule for each hides it):
// ls, history, inspect, inspect --values, diff and the rollback plan, in table,
// JSON and YAML. No secret (nor its base64) shows, on stdout or stderr, unless
// --reveal asks for it; with --reveal it shows.
func TestSecretsMaskedEverywhere(t *testing.T) {
	e := newEnv(t)
	cfg := e.actionConfig(byChunkview)
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = "leaky", e.ns
	vals := func(rev int) map[string]interface{} {
		return map[string]interface{}{"greeting": fmt.Sprintf("hello %d", rev), "db": map[string]interface{}{"password": leakPassword(rev)}}
	}
	if _, err := in.Run(leakChart(), vals(1)); err != nil {
		t.Fatal(err)
	}
	up := action.NewUpgrade(cfg)
	up.Namespace = e.ns
	if _, err := up.Run("leaky", leakChart(), vals(2)); err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, s := range []string{leakPassword(1), leakPassword(2), generated(1), generated(2), generatedData(1), generatedData(2)} {
		secrets = append(secrets, s, base64.StdEncoding.EncodeToString([]byte(s)))
	}
	if rel, err := action.NewGet(cfg).Run("leaky"); err != nil || !strings.Contains(rel.Manifest, generated(2)) ||
		!strings.Contains(rel.Manifest, base64.StdEncoding.EncodeToString([]byte(generatedData(2)))) {
		t.Fatalf("the chart did not generate %s into revision 2's stringData and %s into its data: %v", generated(2), generatedData(2), err)
	}
	shown := func(r result) []string {
		var out []string
		for _, s := range secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				out = append(out, s)
			}
		}
		return out
	}

	runs := 0
	for _, format := range []string{"table", "json", "yaml"} {
		for _, args := range [][]string{
			{"ls"},
			{"history", "leaky"},
			{"inspect", "leaky"},
			{"inspect", "leaky", "--values"},
			{"inspect", "leaky", "--values", "--revision", "1"},
			{"diff", "leaky", "1", "2"},
			{"diff", "leaky", "2", "1", "--unified", "0"},
			{"rollback", "leaky", "1", "--dry-run"},
			{"verify", "--decode"},
		} {
			r := e.run(append(args, "-o", format)...)
			runs++
			mustCode(t, r, cli.ExitOK)
			if s := shown(r); len(s) > 0 {
				t.Errorf("%v -o %s shows %v:\n%s", args, format, s, r)
			}
		}
		// Revealed on request, and only then.
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"inspect", "leaky", "--values", "--reveal"}, []string{leakPassword(2)}},
			{[]string{"diff", "leaky", "1", "2", "--reveal"}, []string{leakPassword(1), leakPassword(2), generated(1), generated(2)}},
			{[]string{"rollback", "leaky", "1", "--dry-run", "--reveal"}, []string{leakPassword(1), leakPassword(2)}},
		} {
			r := e.run(append(tc.args, "-o", format)...)
			runs++
			mustCode(t, r, cli.ExitOK)
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%v -o %s does not reveal %s:\n%s", tc.args, format, w, r)
				}
			}
		}
	}
	// helm get's parts, masked unless --reveal.
	for _, args := range [][]string{
		{"get", "values", "leaky"}, {"get", "values", "leaky", "--all"}, {"get", "values", "leaky", "-o", "json"},
		{"get", "values", "leaky", "-a", "-o", "yaml", "--revision", "1"},
		{"get", "manifest", "leaky"}, {"get", "notes", "leaky"}, {"get", "hooks", "leaky"}, {"get", "all", "leaky"},
		{"get", "all", "leaky", "--revision", "1"},
		{"status", "leaky"}, {"status", "leaky", "-o", "json"}, // the NOTES
	} {
		r := e.run(args...)
		runs++
		mustCode(t, r, cli.ExitOK)
		if s := shown(r); len(s) > 0 {
			t.Errorf("%v shows %v:\n%s", args, s, r)
		}
		if args[1] != "hooks" && !strings.Contains(r.stdout, "masked:") { // the chart has no hooks
			t.Errorf("%v prints nothing masked:\n%s", args, r)
		}
	}
	for _, part := range []string{"values", "manifest", "notes", "all"} {
		r := e.run("get", part, "leaky", "--reveal")
		runs++
		mustCode(t, r, cli.ExitOK)
		if !strings.Contains(r.stdout, leakPassword(2)) {
			t.Errorf("get %s --reveal does not reveal:\n%s", part, r)
		}
		if (part == "manifest" || part == "all") && !strings.Contains(r.stdout, generated(2)) {
			t.Errorf("get %s --reveal does not reveal the generated credential:\n%s", part, r)
		}
	}
	// A failing command does not quote the release either.
	r := e.run("inspect", "leaky", "--reveal")
	mustCode(t, r, cli.ExitUsage)
	if s := shown(r); len(s) > 0 {
		t.Errorf("a usage error shows %v", s)
	}
	t.Logf("%d CLI outputs checked", runs)
}
