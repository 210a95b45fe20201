package fit_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/fit"
)

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// TestRenderInstallRecord: an install is rendered as the record Helm's install
// action stores: deployed, revision 1, the user's values merged from files and
// --set as helm merges them, the CRDs kept in the chart's files and out of the
// manifest, and the hooks an install runs marked run after the record was stamped, with Helm's default delete
// policy where the chart sets none; the test hook is left as rendered.
func TestRenderInstallRecord(t *testing.T) {
	dir := hookChart(t)
	vf := filepath.Join(t.TempDir(), "v.yaml")
	writeFile(t, vf, "greeting: from file\nnested: {a: 10}\nextra: [1, 2]\n")
	rd, err := fit.Render(context.Background(), fit.Request{
		Chart: dir, Name: "shop", Namespace: "web",
		Values: values.Options{ValueFiles: []string{vf}, Values: []string{"nested.b=20", "greeting=from set"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rls := rd.Release
	if rd.Upgrade || rls.Name != "shop" || rls.Namespace != "web" || rls.Version != 1 {
		t.Fatalf("want install shop/web v1, got upgrade=%v %s/%s v%d", rd.Upgrade, rls.Namespace, rls.Name, rls.Version)
	}
	if rls.Info.Status != release.StatusDeployed || rls.Info.Description != "Install complete" || rls.Info.Notes != "Installed shop.\n" {
		t.Errorf("info: want deployed, Install complete, the notes; got %+v", rls.Info)
	}
	want := map[string]interface{}{"greeting": "from set", "nested": map[string]interface{}{"a": float64(10), "b": int64(20)}, "extra": []interface{}{float64(1), float64(2)}}
	if !reflect.DeepEqual(normalize(rls.Config), normalize(want)) {
		t.Errorf("config: want %v, got %v", want, rls.Config)
	}
	if strings.Contains(rls.Manifest, "CustomResourceDefinition") || !strings.Contains(rls.Manifest, "greeting: \"from set\"") {
		t.Errorf("manifest: want the values rendered and no CRD, got\n%s", rls.Manifest)
	}
	if !hasFile(rls.Chart, "crds/things.yaml") {
		t.Errorf("chart files: want crds/things.yaml kept")
	}
	hooks := map[string]*release.Hook{}
	for _, h := range rls.Hooks {
		hooks[h.Name] = h
	}
	pre, post, test := hooks["shop-pre"], hooks["shop-post"], hooks["shop-test"]
	if pre == nil || post == nil || test == nil {
		t.Fatalf("want three hooks, got %v", hooks)
	}
	for _, h := range []*release.Hook{pre, post} {
		if h.LastRun.Phase != release.HookPhaseSucceeded || !h.LastRun.StartedAt.Time.After(rls.Info.LastDeployed.Time) || !h.LastRun.CompletedAt.Time.After(h.LastRun.StartedAt.Time) {
			t.Errorf("hook %s: want run after the record was stamped, got %+v", h.Name, h.LastRun)
		}
	}
	if !reflect.DeepEqual(pre.DeletePolicies, []release.HookDeletePolicy{release.HookBeforeHookCreation}) ||
		!reflect.DeepEqual(post.DeletePolicies, []release.HookDeletePolicy{release.HookSucceeded}) {
		t.Errorf("delete policies: want Helm's default on pre, the chart's on post; got %v, %v", pre.DeletePolicies, post.DeletePolicies)
	}
	if test.LastRun != (release.HookExecution{}) || len(test.DeletePolicies) != 0 {
		t.Errorf("test hook: an install does not run it, got %+v", test)
	}
}

// TestRenderUpgradeValues holds fit's upgrade to Helm's rules for values: with
// none given, the current release's are reused; given some, they replace them
// unless --reuse-values (merged over them) or --reset-then-reuse-values; with
// --reset-values only those given count. The current release is the latest
// deployed one when the latest failed; the revision is the latest's plus one.
func TestRenderUpgradeValues(t *testing.T) {
	dir := hookChart(t)
	old := func(v int, st release.Status, cfg map[string]interface{}) *release.Release {
		return &release.Release{Name: "shop", Namespace: "web", Version: v, Config: cfg,
			Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "hooks", Version: "2.0.0"}, Values: map[string]interface{}{"greeting": "old chart"}},
			Info:  &release.Info{Status: st, FirstDeployed: helmtime.Time{Time: testNow.Add(-time.Hour)}}}
	}
	deployed := old(3, release.StatusDeployed, map[string]interface{}{"greeting": "kept", "replicas": 4})
	failed := old(4, release.StatusFailed, map[string]interface{}{"greeting": "failed"})
	for _, tc := range []struct {
		name       string
		base       fit.Base
		set        []string
		reuse      bool
		reset      bool
		resetReuse bool
		wantRev    int
		wantCfg    map[string]interface{}
	}{
		{"no values: reused", fit.Base{Last: deployed}, nil, false, false, false, 4, map[string]interface{}{"greeting": "kept", "replicas": 4}},
		{"values given: they replace", fit.Base{Last: deployed}, []string{"replicas=2"}, false, false, false, 4, map[string]interface{}{"replicas": int64(2)}},
		{"--reuse-values: merged", fit.Base{Last: deployed}, []string{"replicas=2"}, true, false, false, 4, map[string]interface{}{"greeting": "kept", "replicas": int64(2)}},
		{"--reset-then-reuse-values: merged", fit.Base{Last: deployed}, []string{"replicas=2"}, false, false, true, 4, map[string]interface{}{"greeting": "kept", "replicas": int64(2)}},
		{"--reset-values: none", fit.Base{Last: deployed}, nil, false, true, false, 4, map[string]interface{}{}},
		{"latest failed: the deployed one's, revision after the failed", fit.Base{Last: failed, Deployed: deployed}, nil, false, false, false, 5, map[string]interface{}{"greeting": "kept", "replicas": 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := fit.Render(context.Background(), fit.Request{
				Chart: dir, Values: values.Options{Values: tc.set}, Upgrade: &tc.base,
				ReuseValues: tc.reuse, ResetValues: tc.reset, ResetThenReuseValues: tc.resetReuse,
			})
			if err != nil {
				t.Fatal(err)
			}
			rls := rd.Release
			if !rd.Upgrade || rls.Version != tc.wantRev || rls.Name != "shop" || rls.Namespace != "web" {
				t.Fatalf("want an upgrade of web/shop to revision %d, got %s/%s v%d", tc.wantRev, rls.Namespace, rls.Name, rls.Version)
			}
			if !reflect.DeepEqual(normalize(rls.Config), normalize(tc.wantCfg)) {
				t.Errorf("config: want %v, got %v", tc.wantCfg, rls.Config)
			}
			if rls.Info.Description != "Upgrade complete" || rls.Info.Status != release.StatusDeployed || !rls.Info.FirstDeployed.Time.Equal(testNow.Add(-time.Hour)) {
				t.Errorf("info: want deployed, Upgrade complete, first deployed kept; got %+v", rls.Info)
			}
			if !strings.Contains(rls.Manifest, "revision: \""+strconv.Itoa(tc.wantRev)+"\"") || !strings.Contains(rls.Manifest, "upgrade: \"true\"") {
				t.Errorf("manifest: want .Release.Revision %d and .Release.IsUpgrade rendered, got\n%s", tc.wantRev, rls.Manifest)
			}
			for _, h := range rls.Hooks {
				ran := h.LastRun.Phase == release.HookPhaseSucceeded
				if want := h.Name == "shop-pre"; ran != want {
					t.Errorf("hook %s: run %v, want %v (an upgrade runs pre-upgrade hooks only)", h.Name, ran, want)
				}
			}
		})
	}
}

// TestRenderUpgradeRefusesPending: an upgrade of a release whose latest revision
// is pending fails as helm upgrade's does.
func TestRenderUpgradeRefusesPending(t *testing.T) {
	last := &release.Release{Name: "shop", Namespace: "web", Version: 2, Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "x"}},
		Info: &release.Info{Status: release.StatusPendingUpgrade}}
	_, err := fit.Render(context.Background(), fit.Request{Chart: hookChart(t), Upgrade: &fit.Base{Last: last, Capabilities: chartutil.DefaultCapabilities}})
	if err == nil || !strings.Contains(err.Error(), "another operation") {
		t.Fatalf("want Helm's refusal of a pending release, got %v", err)
	}
}

// TestRenderErrors: what the caller tells apart.
func TestRenderErrors(t *testing.T) {
	dir := hookChart(t)
	for _, tc := range []struct {
		name string
		req  fit.Request
		want error
	}{
		{"no chart", fit.Request{Chart: filepath.Join(t.TempDir(), "none")}, fit.ErrNotFound},
		{"no values file", fit.Request{Chart: dir, Values: values.Options{ValueFiles: []string{filepath.Join(t.TempDir(), "none.yaml")}}}, fit.ErrNotFound},
		{"bad --set", fit.Request{Chart: dir, Values: values.Options{Values: []string{"nokey"}}}, fit.ErrValues},
		{"bad --kube-version", fit.Request{Chart: dir, KubeVersion: "one"}, fit.ErrValues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := fit.Render(context.Background(), tc.req); !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
		})
	}
	lib := writeChart(t, map[string]string{"Chart.yaml": "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n"})
	if _, err := fit.Render(context.Background(), fit.Request{Chart: lib}); err == nil || !strings.Contains(err.Error(), "library") {
		t.Errorf("a library chart: want refused as helm install refuses it, got %v", err)
	}
	deps := writeChart(t, map[string]string{"Chart.yaml": "apiVersion: v2\nname: d\nversion: 1.0.0\ndependencies: [{name: redis, version: 1.0.0, repository: https://example.com}]\n"})
	if _, err := fit.Render(context.Background(), fit.Request{Chart: deps}); err == nil || !strings.Contains(err.Error(), "helm dependency build") {
		t.Errorf("missing dependencies: want helm's refusal and the command that fixes it, got %v", err)
	}
}

func hasFile(c *chart.Chart, name string) bool {
	for _, f := range c.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}

// normalize makes numbers comparable across the YAML and JSON decoders Helm
// uses for files and --set.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, x := range v {
			out[k] = normalize(x)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return v
}
