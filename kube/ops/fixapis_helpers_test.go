package ops_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/storage/driver"
	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kube4 "helm.sh/helm/v4/pkg/kube"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
)

// legacyChart4 is kubetest's legacy chart in Helm 4's types.
func legacyChart4(version string) *chart4.Chart {
	c := &chart4.Chart{Metadata: &chart4.Metadata{APIVersion: "v2", Name: "legacy", Version: version, AppVersion: "1.0"}, Values: map[string]any{"password": "changeme", "widget": false}}
	for name, body := range kubetest.LegacyTemplates {
		c.Templates = append(c.Templates, &chartcommon4.File{Name: "templates/" + name, Data: []byte(body)})
	}
	return c
}

// staleRecord4 rewrites the latest record of release name, through Helm 4's
// driver d, as a cluster of Kubernetes 1.24 left it (kubetest.InstallLegacy3
// does it for Helm 3).
func staleRecord4(t *testing.T, d driver4.Driver, name string) {
	t.Helper()
	rls := record4(t, d, name, 1)
	rls.Manifest = kubetest.StaleManifest(t, rls.Manifest)
	for _, h := range rls.Hooks {
		h.Manifest = kubetest.StaleVersions.Replace(h.Manifest)
	}
	if err := d.Update("sh.helm.release.v1."+name+".v1", rls); err != nil {
		t.Fatal(err)
	}
}

// installLegacy4 and upgradeLegacy4 run Helm 4's own actions on the legacy
// chart, as its CLI does (server-side apply, --server-side=auto on upgrade).
func installLegacy4(t *testing.T, cfg *action4.Configuration, ns, name string) {
	t.Helper()
	in := action4.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	in.ServerSideApply = true
	in.WaitStrategy = kube4.HookOnlyStrategy
	if _, err := in.Run(legacyChart4("1.0.0"), kubetest.LegacyValues(name, true)); err != nil {
		t.Fatalf("helm 4 install %s: %v", name, err)
	}
}

func upgradeLegacy4(cfg *action4.Configuration, ns, name, version string) error {
	up := action4.NewUpgrade(cfg)
	up.Namespace = ns
	up.WaitStrategy = kube4.HookOnlyStrategy
	_, err := up.Run(name, legacyChart4(version), kubetest.LegacyValues(name, true))
	return err
}

// historyLine is one revision as a Helm's history action lists it.
type historyLine struct {
	Version     int
	Status      string
	Description string
}

func (h historyLine) String() string {
	return fmt.Sprintf("%d %s %q", h.Version, h.Status, h.Description)
}

// history3 lists release name's revisions with Helm 3's history action over d.
func history3(t *testing.T, kc, ns string, d driver.Driver, name string) []historyLine {
	t.Helper()
	rels, err := action.NewHistory(helmConfig(t, kc, ns, d)).Run(name)
	if err != nil {
		t.Fatalf("helm 3 history %s: %v", name, err)
	}
	var out []historyLine
	for _, r := range rels {
		out = append(out, historyLine{r.Version, r.Info.Status.String(), r.Info.Description})
	}
	return out
}

// historyOf4 lists release name's revisions with Helm 4's history action over d.
func historyOf4(t *testing.T, kc, ns string, d driver4.Driver, name string) []historyLine {
	t.Helper()
	ris, err := action4.NewHistory(config4(t, kc, ns, "secret", d)).Run(name)
	if err != nil {
		t.Fatalf("helm 4 history %s: %v", name, err)
	}
	var out []historyLine
	for _, ri := range ris {
		r, ok := ri.(*release4.Release)
		if !ok {
			t.Fatalf("helm 4 history returned a %T", ri)
		}
		out = append(out, historyLine{r.Version, r.Info.Status.String(), r.Info.Description})
	}
	return out
}

// rawFields reads a record of Helm's Secrets or ConfigMaps driver as its JSON
// fields, by hand (base64, gzip, JSON): no Helm type stands between the record
// and what is compared, so a field no type knows is compared too.
func rawFields(t *testing.T, store, ns, key string) map[string]any {
	t.Helper()
	var b64 string
	if store == kube.DriverConfigMap {
		cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b64 = cm.Data["release"]
	} else {
		s, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b64 = string(s.Data["release"])
	}
	gz, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fieldsOf4 is a Helm 4 release as its JSON's fields.
func fieldsOf4(t *testing.T, rls *release4.Release) map[string]any {
	t.Helper()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutFixed is a record's fields less those a fix writes anew: its
// version, manifest, hooks' manifests, status, description and last
// deployed time.
func withoutFixed(fields map[string]any) map[string]any {
	delete(fields, "version")
	delete(fields, "manifest")
	if info, ok := fields["info"].(map[string]any); ok {
		delete(info, "status")
		delete(info, "description")
		delete(info, "last_deployed")
	}
	if hooks, ok := fields["hooks"].([]any); ok {
		for _, h := range hooks {
			if m, ok := h.(map[string]any); ok {
				delete(m, "manifest")
			}
		}
	}
	return fields
}
