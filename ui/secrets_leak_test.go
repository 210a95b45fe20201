package ui

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/screens/diff"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/revision"
	"github.com/chunkview/chunkview/ui/screens/rollback"
)

// plantedPassword is the secret of revision rev of the leak test's release.
func plantedPassword(rev int) string { return fmt.Sprintf("Pl4nted-%d-xq7Zw9Tk", rev) }

// generatedToken is a credential the chart of revision rev generated into its
// Secret's stringData: in no values, under a key ("dsn") that names no secret, so
// that only the rule that a Secret's stringData is secret hides it.
func generatedToken(rev int) string { return fmt.Sprintf("S7r1ngD4ta-%d-Vb20qLm", rev) }

// generatedData is a credential the chart generated into the Secret's data
// ("conn", base64), found nowhere else: only the rule that a Secret's data is
// secret hides it.
func generatedData(rev int) string { return fmt.Sprintf("D4t40nly-%d-Kp71xWq", rev) }

// vaultRelease carries its password in the user values (db.password), in a
// Secret's data and stringData, embedded in a ConfigMap's connection string, in a
// hook's Secret and in the notes, and generated credentials in the Secret's
// stringData alone and in its data alone.
func vaultRelease(rev int, st release.Status) *release.Release {
	pw := plantedPassword(rev)
	at := helmtime.Time{Time: testNow.Add(-time.Duration(3-rev) * time.Hour)}
	manifest := fmt.Sprintf(`---
# Source: vault/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: vault-db
  namespace: default
type: Opaque
data:
  password: %[2]s
  conn: %[5]s
stringData:
  token: %[1]s
  dsn: %[4]s
---
# Source: vault/templates/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: vault-config
  namespace: default
data:
  url: postgres://app:%[1]s@db.default.svc:5432/app
  replicas: "%[3]d"
`, pw, base64.StdEncoding.EncodeToString([]byte(pw)), rev, generatedToken(rev), base64.StdEncoding.EncodeToString([]byte(generatedData(rev))))
	return &release.Release{
		Name: "vault", Namespace: "default", Version: rev, Manifest: manifest,
		Info: &release.Info{FirstDeployed: at, LastDeployed: at, Status: st, Description: "Upgrade complete",
			Notes: "Connect with password " + pw + "\n"},
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "vault", Version: fmt.Sprintf("1.%d.0", rev), AppVersion: "1", APIVersion: "v2"},
			Values: map[string]interface{}{"db": map[string]interface{}{"password": "chart-default-pw-123"}}},
		Config: map[string]interface{}{"replicas": rev, "db": map[string]interface{}{"password": pw, "user": "app"}},
		Hooks: []*release.Hook{{Name: "vault-init", Kind: "Secret", Path: "vault/templates/hook.yaml",
			Manifest: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault-init\nstringData:\n  password: " + pw + "\n",
			Events:   []release.HookEvent{release.HookPreInstall}}},
	}
}

// leaks returns the planted secrets (plain or base64) that text shows.
func leaks(text string) []string {
	var out []string
	for rev := 1; rev <= 2; rev++ {
		for _, s := range []string{plantedPassword(rev), base64.StdEncoding.EncodeToString([]byte(plantedPassword(rev))),
			generatedToken(rev), base64.StdEncoding.EncodeToString([]byte(generatedToken(rev))),
			generatedData(rev), base64.StdEncoding.EncodeToString([]byte(generatedData(rev)))} {
			if strings.Contains(text, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestSecretsNeverShown opens every view of a release whose secrets sit in values,
// Secret data and stringData, a connection string, a hook and the notes, and
// whose Secret's stringData and data each hold a credential its chart generated,
// found nowhere else (so that only the rule for each hides it): the release list,
// the history, each tab of a revision (user and all values), the diff between
// revisions and the rollback plan. No screen, and no full text behind a scrolling
// view, shows a secret until it is revealed with v; once revealed, they show.
func TestSecretsNeverShown(t *testing.T) {
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return testNow.Add(-time.Hour) })
	drv := storage.NewDriver(c.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
	for rev, st := range map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusDeployed} {
		if err := drv.Create(storage.RecordKey("vault", rev), vaultRelease(rev, st)); err != nil {
			t.Fatal(err)
		}
	}
	client := kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, testConfig())
	h := newHarness(t, client, Options{}, 120, 40)

	views := 0
	mustHide := func(what, text string) {
		t.Helper()
		views++
		if l := leaks(plainScreen(text)); len(l) > 0 {
			t.Errorf("%s shows %v:\n%s", what, l, plainScreen(text))
		}
	}
	mustShow := func(what, text string, want string) {
		t.Helper()
		if !strings.Contains(plainScreen(text), want) {
			t.Errorf("%s, revealed, does not show the secret %q:\n%s", what, want, plainScreen(text))
		}
	}

	h.contains("vault")
	mustHide("the release list", h.screen())
	h.press("enter")
	if _, ok := h.top().(*history.Screen); !ok {
		t.Fatalf("enter did not open the history:\n%s", h.screen())
	}
	mustHide("the history", h.screen())

	// The latest revision, every tab, masked then revealed.
	h.press("end", "enter")
	rs, ok := h.top().(*revision.Screen)
	if !ok {
		t.Fatalf("enter did not open the revision:\n%s", h.screen())
	}
	pw := plantedPassword(2)
	for _, tab := range []struct {
		key, name string
		all       bool
	}{{"1", "summary", false}, {"2", "user values", false}, {"a", "all values", true}, {"3", "manifest", true}, {"4", "notes", true}, {"5", "hooks", true}} {
		h.press(tab.key)
		mustHide("the "+tab.name+" tab", h.screen())
		mustHide("the "+tab.name+" tab's full text", rs.Rendered[rs.Key()])
	}
	h.press("2", "a") // back to user values
	h.press("v")
	mustShow("the user values tab", rs.Rendered[rs.Key()], pw)
	h.press("3")
	mustShow("the manifest tab", rs.Rendered[rs.Key()], pw)
	mustShow("the manifest tab", rs.Rendered[rs.Key()], generatedToken(2))
	h.press("4")
	mustShow("the notes tab", rs.Rendered[rs.Key()], pw)
	h.press("5")
	mustShow("the hooks tab", rs.Rendered[rs.Key()], pw)
	h.press("v") // mask again
	mustHide("the hooks tab, masked again", rs.Rendered[rs.Key()])

	// The diff of the two revisions, masked then revealed.
	h.press("esc")
	h.press("d")
	ds, ok := h.top().(*diff.Screen)
	if !ok {
		t.Fatalf("d did not open the diff:\n%s", h.screen())
	}
	text, _ := diffview.Render(ds.Styles, ds.Results[false], 120)
	if !strings.Contains(plainScreen(text), "vault-config") {
		t.Fatalf("the diff shows no resources:\n%s", plainScreen(text))
	}
	mustHide("the diff", h.screen())
	mustHide("the diff's full text", text)
	h.press("v")
	text, _ = diffview.Render(ds.Styles, ds.Results[true], 120)
	mustShow("the diff", text, pw)
	mustShow("the diff", text, plantedPassword(1))
	mustShow("the diff", text, generatedToken(1))

	// The rollback plan to revision 1.
	h.press("esc")
	h.press("home", "R")
	rb, ok := h.top().(*rollback.Screen)
	if !ok {
		t.Fatalf("R did not open the rollback plan:\n%s", h.screen())
	}
	if rb.Plan != nil {
		text, _ = diffview.Render(rb.Styles, rb.Plan.Diff, 120)
		mustHide("the rollback plan's full text", text)
	} else {
		t.Errorf("the rollback plan has no diff:\n%s", h.screen())
	}
	mustHide("the rollback plan", h.screen())

	// The chunk layout.
	h.press("esc", "c")
	mustHide("the chunk layout", h.screen())
	t.Logf("%d views checked", views)
}
