package revdiff

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
)

func doc(kind, ns, name, body string) string {
	s := "---\n# Source: app/templates/" + strings.ToLower(kind) + ".yaml\napiVersion: v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	return s + body
}

func testChart(version string, values map[string]any) *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "app", Version: version, AppVersion: "1.0"},
		Values:   values,
	}
}

func testRelease(version int, manifest string, config map[string]any) *release.Release {
	return &release.Release{
		Name:     "app",
		Version:  version,
		Info:     &release.Info{Notes: "Thanks for installing app.\n"},
		Chart:    testChart("1.0.0", map[string]any{"replicaCount": 1, "image": map[string]any{"tag": "1.0"}}),
		Config:   config,
		Manifest: manifest,
	}
}

func keys(cs []ResourceChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Change.String()+" "+c.Key)
	}
	return out
}

func TestDiffOrdering(t *testing.T) {
	from := testRelease(1,
		doc("ConfigMap", "ns", "b-removed", "data: {a: \"1\"}\n")+
			doc("ConfigMap", "ns", "a-changed", "data: {a: \"1\"}\n")+
			doc("ConfigMap", "ns", "z-changed", "data: {a: \"1\"}\n")+
			doc("Service", "ns", "same", "spec: {}\n")+
			doc("ConfigMap", "ns", "a-same", "data: {}\n"),
		nil)
	to := testRelease(2,
		doc("ConfigMap", "ns", "z-changed", "data: {a: \"2\"}\n")+
			doc("ConfigMap", "ns", "a-changed", "data: {a: \"2\"}\n")+
			doc("Service", "ns", "same", "spec: {}\n")+
			doc("ConfigMap", "ns", "a-same", "data: {}\n")+
			doc("Deployment", "ns", "new", "spec: {}\n")+
			doc("ConfigMap", "", "new", "data: {}\n"),
		nil)
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"added ConfigMap/new",
		"added Deployment/ns/new",
		"removed ConfigMap/ns/b-removed",
		"changed ConfigMap/ns/a-changed",
		"changed ConfigMap/ns/z-changed",
		"unchanged ConfigMap/ns/a-same",
		"unchanged Service/ns/same",
	}
	if got := keys(res.Resources); !reflect.DeepEqual(got, want) {
		t.Errorf("resources =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a, r, c := res.Summary(); a != 2 || r != 1 || c != 2 {
		t.Errorf("Summary() = %d, %d, %d; want 2, 1, 2", a, r, c)
	}
	for _, c := range res.Resources {
		if (c.Change == Unchanged) != (c.Diff == "") {
			t.Errorf("%s: change %v with diff %q", c.Key, c.Change, c.Diff)
		}
	}
	added := res.Resources[1]
	if added.Kind != "Deployment" || added.Namespace != "ns" || added.Name != "new" ||
		!strings.Contains(added.Diff, "@@ -0,0 +1,7 @@") || !strings.Contains(added.Diff, "+kind: Deployment\n") {
		t.Errorf("added resource: %+v", added)
	}
	removed := res.Resources[2]
	if !strings.Contains(removed.Diff, "-  name: b-removed\n") {
		t.Errorf("removed resource diff:\n%s", removed.Diff)
	}
	changed := res.Resources[3]
	wantDiff := "--- ConfigMap/ns/a-changed (revision 1)\n+++ ConfigMap/ns/a-changed (revision 2)\n" +
		"@@ -4,4 +4,4 @@\n metadata:\n   name: a-changed\n   namespace: ns\n-data: {a: \"1\"}\n+data: {a: \"2\"}\n"
	if changed.Diff != wantDiff {
		t.Errorf("changed diff =\n%s\nwant\n%s", changed.Diff, wantDiff)
	}
	if !res.Changed() {
		t.Error("Changed() = false")
	}
}

func TestDiffContext(t *testing.T) {
	body := "data:\n  a: \"1\"\n  b: \"2\"\n  c: \"3\"\n  d: \"4\"\n"
	from := testRelease(1, doc("ConfigMap", "", "c", body), nil)
	to := testRelease(2, doc("ConfigMap", "", "c", strings.Replace(body, `c: "3"`, `c: "x"`, 1)), nil)
	for _, tt := range []struct {
		ctx   int
		lines int // lines in the hunk
	}{{0, 3 + 2 + 1}, {-1, 2}, {1, 1 + 2 + 1}} { // only one line follows the change
		res, err := Diff(from, to, Options{Context: tt.ctx})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Resources[0].Diff
		hunk := d[strings.Index(d, "@@\n")+3:]
		if n := strings.Count(hunk, "\n"); n != tt.lines {
			t.Errorf("context %d: %d lines in hunk, want %d:\n%s", tt.ctx, n, tt.lines, d)
		}
	}
}

func TestDiffNil(t *testing.T) {
	r := testRelease(1, "", nil)
	for _, tt := range []struct{ from, to *release.Release }{{nil, r}, {r, nil}, {nil, nil}} {
		if _, err := Diff(tt.from, tt.to, Options{}); !errors.Is(err, ErrNilRelease) {
			t.Errorf("Diff(%v, %v) error = %v, want ErrNilRelease", tt.from != nil, tt.to != nil, err)
		}
	}
	// Empty releases, nil chart, nil metadata, nil info, nil hooks: no panic.
	empty := &release.Release{}
	noMeta := &release.Release{Version: 2, Chart: &chart.Chart{Values: map[string]any{"a": 1}}, Hooks: []*release.Hook{nil}}
	for _, pair := range [][2]*release.Release{{empty, empty}, {empty, noMeta}, {noMeta, r}} {
		res, err := Diff(pair[0], pair[1], Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Unified()
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := Diff(empty, empty, Options{})
	if res.Changed() || res.Resources == nil || res.Hooks == nil {
		t.Errorf("empty releases: %+v", res)
	}
	if !strings.Contains(res.Unified(), "No differences.") {
		t.Errorf("Unified() = %q", res.Unified())
	}
	// A zero Result renders without panicking.
	_ = (&Result{}).Unified()
}

func TestDiffSections(t *testing.T) {
	from := testRelease(1, "", map[string]any{"image": map[string]any{"tag": "2.0"}})
	to := testRelease(2, "", map[string]any{"image": map[string]any{"tag": "2.0"}})
	to.Chart = testChart("1.1.0", map[string]any{"replicaCount": 3, "image": map[string]any{"tag": "1.0"}})
	to.Chart.Metadata.Dependencies = []*chart.Dependency{{Name: "redis", Version: "19.0.0"}}
	to.Info = &release.Info{Notes: "Thanks for installing app.\nVisit http://app.local"}

	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Values.Name != "values" || res.Values.Diff != "" {
		t.Errorf("user values did not change, diff:\n%s", res.Values.Diff)
	}
	wantComputed := "--- computed values (revision 1)\n+++ computed values (revision 2)\n@@ -1,3 +1,3 @@\n image:\n   tag: \"2.0\"\n-replicaCount: 1\n+replicaCount: 3\n"
	if res.ComputedValues.Diff != wantComputed {
		t.Errorf("computed values diff =\n%s\nwant\n%s", res.ComputedValues.Diff, wantComputed)
	}
	wantChart := "--- chart (revision 1)\n+++ chart (revision 2)\n@@ -1,3 +1,5 @@\n name: app\n-version: 1.0.0\n+version: 1.1.0\n appVersion: 1.0\n+dependencies:\n+- redis 19.0.0\n"
	if res.Chart.Diff != wantChart {
		t.Errorf("chart diff =\n%s\nwant\n%s", res.Chart.Diff, wantChart)
	}
	wantNotes := "--- notes (revision 1)\n+++ notes (revision 2)\n@@ -1 +1,2 @@\n Thanks for installing app.\n+Visit http://app.local\n"
	if res.Notes.Diff != wantNotes {
		t.Errorf("notes diff =\n%s\nwant\n%s", res.Notes.Diff, wantNotes)
	}
	if !res.Changed() {
		t.Error("Changed() = false")
	}
	if a, r, c := res.Summary(); a+r+c != 0 {
		t.Errorf("Summary() = %d, %d, %d; no resources changed", a, r, c)
	}
	u := res.Unified()
	for _, want := range []string{`Release "app": revision 1 -> 2 (secrets masked)`, "Resources: 0 added, 0 removed, 0 changed, 0 unchanged",
		"Chart: changed", "Values: unchanged", "Computed values: changed", "Notes: changed", wantChart, wantComputed, wantNotes} {
		if !strings.Contains(u, want) {
			t.Errorf("Unified() lacks %q:\n%s", want, u)
		}
	}
	// The chart comes before the values, the notes last.
	if strings.Index(u, wantChart) > strings.Index(u, wantComputed) || strings.Index(u, wantComputed) > strings.Index(u, wantNotes) {
		t.Errorf("Unified() order:\n%s", u)
	}
}

func TestDiffUserValues(t *testing.T) {
	from := testRelease(1, "", map[string]any{"b": 1, "a": map[string]any{"q": 1, "p": 2}})
	to := testRelease(2, "", map[string]any{"a": map[string]any{"p": 2, "q": 5}, "b": 1})
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "--- values (revision 1)\n+++ values (revision 2)\n@@ -1,4 +1,4 @@\n a:\n   p: 2\n-  q: 1\n+  q: 5\n b: 1\n"
	if res.Values.Diff != want {
		t.Errorf("values diff =\n%s\nwant\n%s", res.Values.Diff, want)
	}
}

func TestDiffHooks(t *testing.T) {
	job := func(image string) string {
		return "# Source: app/templates/job.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  image: " + image + "\n"
	}
	from := testRelease(1, "", nil)
	from.Hooks = []*release.Hook{
		{Name: "migrate", Kind: "Job", Path: "app/templates/job.yaml", Manifest: job("v1"), Events: []release.HookEvent{release.HookPreUpgrade}},
		{Name: "old-test", Kind: "Pod", Path: "app/templates/test.yaml", Manifest: "kind: Pod\nmetadata: {name: old-test}\n"},
		{Name: "same", Kind: "ConfigMap", Manifest: "kind: ConfigMap\n", LastRun: release.HookExecution{Phase: release.HookPhaseSucceeded}},
	}
	to := testRelease(2, "", nil)
	to.Hooks = []*release.Hook{
		{Name: "migrate", Kind: "Job", Path: "app/templates/job.yaml", Manifest: job("v2"), Events: []release.HookEvent{release.HookPreUpgrade, release.HookPreInstall},
			DeletePolicies: []release.HookDeletePolicy{release.HookBeforeHookCreation}},
		{Kind: "Secret", Path: "app/templates/hook-secret.yaml", Manifest: "kind: Secret\nstringData:\n  password: hook-pw-123456\n"},
		{Name: "same", Kind: "ConfigMap", Manifest: "kind: ConfigMap\n", LastRun: release.HookExecution{Phase: release.HookPhaseFailed}},
	}
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"added app/templates/hook-secret.yaml", "removed Pod/old-test", "changed Job/migrate", "unchanged ConfigMap/same"}
	if got := keys(res.Hooks); !reflect.DeepEqual(got, want) {
		t.Fatalf("hooks = %v, want %v", got, want)
	}
	migrate := res.Hooks[2]
	for _, line := range []string{"-# hook events: pre-upgrade\n", "+# hook events: pre-upgrade, pre-install\n",
		"+# hook delete policies: before-hook-creation\n", "-  image: v1\n", "+  image: v2\n"} {
		if !strings.Contains(migrate.Diff, line) {
			t.Errorf("migrate hook diff lacks %q:\n%s", line, migrate.Diff)
		}
	}
	if migrate.Kind != "Job" || migrate.Name != "migrate" {
		t.Errorf("migrate hook = %+v", migrate)
	}
	if d := res.Hooks[0].Diff; strings.Contains(d, "hook-pw-123456") || !strings.Contains(d, "+  password: <masked:") {
		t.Errorf("hook Secret not masked:\n%s", d)
	}
	if a, r, c := res.Summary(); a+r+c != 0 {
		t.Errorf("hooks counted in Summary(): %d %d %d", a, r, c)
	}
	if !strings.Contains(res.Unified(), "Hooks: 1 added, 1 removed, 1 changed, 1 unchanged\n  + app/templates/hook-secret.yaml\n  - Pod/old-test\n  ~ Job/migrate\n") {
		t.Errorf("Unified() hook summary:\n%s", res.Unified())
	}
}

const planted = "s3cr3t-PLANTED"

// secretRelease puts the secret pw everywhere a chart might put one.
func secretRelease(version int, pw string) *release.Release {
	b64 := base64.StdEncoding.EncodeToString([]byte(pw))
	manifest := doc("Secret", "ns", "db", "type: Opaque\ndata:\n  password: "+b64+"\nstringData:\n  DATABASE_URL: postgres://app:"+pw+"@db/app\n") +
		doc("ConfigMap", "ns", "cfg", "data:\n  dsn: \"host=db password="+pw+"\"\n  ADMIN_PASSWORD: "+pw+"\n") +
		doc("Deployment", "ns", "web", "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - name: API_TOKEN\n              value: "+pw+"\n")
	rel := testRelease(version, manifest, map[string]any{
		"auth":     map[string]any{"password": pw, "users": []any{map[string]any{"name": "bob", "apiKey": pw}}},
		"extraEnv": []any{map[string]any{"name": "DB_PASSWORD", "value": pw}},
	})
	rel.Chart.Values["token"] = pw + "-default"
	rel.Info.Notes = "Log in with password " + pw + "\n"
	rel.Hooks = []*release.Hook{{Name: "init", Kind: "Secret", Manifest: "kind: Secret\nmetadata: {name: init}\ndata:\n  key: " + b64 + "\n"}}
	return rel
}

// strings collects every string reachable from v.
func allStrings(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			allStrings(v.Elem(), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			allStrings(v.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			allStrings(v.Index(i), out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			allStrings(it.Key(), out)
			allStrings(it.Value(), out)
		}
	}
}

func resultTexts(t *testing.T, res *Result) []string {
	t.Helper()
	var out []string
	allStrings(reflect.ValueOf(res), &out)
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, string(j), res.Unified())
}

func TestDiffNeverLeaksMaskedSecrets(t *testing.T) {
	from, to := secretRelease(1, planted), secretRelease(2, planted+"-v2")
	leaks := []string{planted, base64.StdEncoding.EncodeToString([]byte(planted)), base64.StdEncoding.EncodeToString([]byte(planted + "-v2"))}

	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range resultTexts(t, res) {
		for _, leak := range leaks {
			if strings.Contains(s, leak) {
				t.Errorf("masked result shows %q in:\n%s", leak, s)
			}
		}
	}
	// Every place the secret lives still shows that it changed.
	for _, c := range res.Resources {
		if c.Change != Changed || !strings.Contains(c.Diff, "<masked:") {
			t.Errorf("%s: %v, diff:\n%s", c.Key, c.Change, c.Diff)
		}
	}
	for _, s := range []Section{res.Values, res.ComputedValues, res.Notes} {
		if !strings.Contains(s.Diff, "-") || !strings.Contains(s.Diff, "<masked:") {
			t.Errorf("%s diff does not show the masked change:\n%s", s.Name, s.Diff)
		}
	}
	if res.Hooks[0].Change != Changed {
		t.Errorf("hook with changed secret: %v", res.Hooks[0].Change)
	}

	revealed, err := Diff(from, to, Options{Reveal: true})
	if err != nil {
		t.Fatal(err)
	}
	if !revealed.Revealed || !strings.Contains(revealed.Unified(), "(secrets revealed)") {
		t.Error("revealed result not marked as such")
	}
	for _, where := range []struct {
		name, text string
	}{
		{"values", revealed.Values.Diff}, {"computed values", revealed.ComputedValues.Diff}, {"notes", revealed.Notes.Diff},
		{"ConfigMap", revealed.Resources[0].Diff}, {"Deployment", revealed.Resources[1].Diff},
		{"Secret", revealed.Resources[2].Diff}, {"unified", revealed.Unified()},
	} {
		if !strings.Contains(where.text, planted) {
			t.Errorf("revealed %s diff lacks the secret:\n%s", where.name, where.text)
		}
		if strings.Contains(where.text, "<masked:") {
			t.Errorf("revealed %s diff still masks:\n%s", where.name, where.text)
		}
	}
}

func TestDiffMaskedChange(t *testing.T) {
	secret := func(pw string) string {
		return doc("Secret", "ns", "db", "stringData:\n  password: "+pw+"\n  user: admin\n")
	}
	same, err := Diff(testRelease(1, secret("one-password"), nil), testRelease(2, secret("one-password"), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := same.Resources[0]; c.Change != Unchanged || c.Diff != "" {
		t.Errorf("an unchanged secret shows as %v:\n%s", c.Change, c.Diff)
	}
	res, err := Diff(testRelease(1, secret("one-password"), nil), testRelease(2, secret("two-password"), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Resources[0]
	want := "-  password: " + maskToken(testKey, "one-password") + "\n+  password: " + maskToken(testKey, "two-password") + "\n"
	if c.Change != Changed || !strings.Contains(c.Diff, want) {
		t.Errorf("changed secret: %v, diff:\n%s\nwant it to contain:\n%s", c.Change, c.Diff, want)
	}
	if strings.Contains(c.Diff, "-  user:") || !strings.Contains(c.Diff, "   user: "+maskToken(testKey, "admin")) {
		t.Errorf("the unchanged masked entry shows as changed:\n%s", c.Diff)
	}
}

func TestResultJSON(t *testing.T) {
	from := testRelease(1, doc("ConfigMap", "ns", "a", "data: {}\n"), nil)
	to := testRelease(2, doc("ConfigMap", "ns", "b", "data: {}\n"), nil)
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"release":"app"`, `"from":1`, `"to":2`, `"revealed":false`, `"change":"added"`, `"change":"removed"`,
		`"key":"ConfigMap/ns/b"`, `"computedValues":{"name":"computed values","diff":""}`, `"hooks":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, res) {
		t.Errorf("JSON round trip:\n%+v\n%+v", back, *res)
	}
}

func TestChangeKind(t *testing.T) {
	for _, tt := range []struct {
		c    ChangeKind
		want string
	}{{Unchanged, "unchanged"}, {Added, "added"}, {Removed, "removed"}, {Changed, "changed"}, {ChangeKind(9), "ChangeKind(9)"}} {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%d.String() = %q, want %q", int(tt.c), got, tt.want)
		}
	}
	if _, err := json.Marshal(ChangeKind(9)); err == nil {
		t.Error("an unknown change kind marshals")
	}
	var c ChangeKind
	if err := json.Unmarshal([]byte(`"bogus"`), &c); err == nil {
		t.Error(`"bogus" unmarshals`)
	}
}
