package ops_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kube4 "helm.sh/helm/v4/pkg/kube"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	storage4 "helm.sh/helm/v4/pkg/storage"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
)

// webappChart4 is kubetest.WebappChart for Helm 4: a ConfigMap of settings and a
// Secret with the database password, as Helm 4's chart types hold them.
func webappChart4(version string) *chart4.Chart {
	return &chart4.Chart{
		Metadata: &chart4.Metadata{APIVersion: "v2", Name: "webapp", Version: version, AppVersion: "2.0"},
		Templates: []*chartcommon4.File{
			{Name: "templates/config.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  color: {{ .Values.color | quote }}
  replicas: {{ .Values.replicaCount | quote }}
`)},
			{Name: "templates/secret.yaml", Data: []byte(`apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-db
type: Opaque
stringData:
  password: {{ .Values.db.password | quote }}
`)},
		},
		Values: map[string]any{"color": "blue", "replicaCount": 1, "db": map[string]any{"password": "changeme"}},
	}
}

// values4 are the user-supplied values of step i of a release's life.
func values4(name string, i int) map[string]any {
	return map[string]any{
		"color":        []string{"blue", "green", "red", "amber"}[i%4],
		"replicaCount": i + 1,
		"db":           map[string]any{"password": fmt.Sprintf("s3cr3t-%s-%d", name, i)},
	}
}

// quietLog is the handler Helm 4's actions log to in these tests.
var quietLog = slog.DiscardHandler

// config4 is Helm 4's action configuration as its CLI sets it up
// (HELM_DRIVER=store), with resources going to namespace ns; its records are
// read and written by d when set (the chunked store), after Init.
func config4(t *testing.T, kubeconfig, ns, store string, d driver4.Driver) *action4.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	cache := t.TempDir()
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &kubeconfig, &ns, &cache
	cfg := action4.NewConfiguration(action4.ConfigurationSetLogger(quietLog))
	driverName := store
	if d != nil {
		driverName = "memory"
	}
	if err := cfg.Init(flags, ns, driverName); err != nil {
		t.Fatalf("helm 4 action configuration: %v", err)
	}
	if d != nil {
		cfg.Releases = storage4.Init(d)
		cfg.Releases.SetLogger(quietLog)
	}
	return cfg
}

// install4 installs the webapp chart as release name with Helm 4's install and
// server-side apply, its CLI's default.
func install4(t *testing.T, cfg *action4.Configuration, ns, name string, vals map[string]any) {
	t.Helper()
	in := action4.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	in.ServerSideApply = true
	in.WaitStrategy = kube4.HookOnlyStrategy
	if _, err := in.Run(webappChart4("1.0.0"), vals); err != nil {
		t.Fatalf("helm 4 install %s: %v", name, err)
	}
}

// upgrade4 upgrades release name with Helm 4's upgrade, as its CLI does
// (--server-side=auto: the release's apply method).
func upgrade4(t *testing.T, cfg *action4.Configuration, ns, name, version string, vals map[string]any) {
	t.Helper()
	up := action4.NewUpgrade(cfg)
	up.Namespace = ns
	up.WaitStrategy = kube4.HookOnlyStrategy
	if _, err := up.Run(name, webappChart4(version), vals); err != nil {
		t.Fatalf("helm 4 upgrade %s: %v", name, err)
	}
}

// rollback4 rolls release name back to revision to with Helm 4's own rollback
// action, configured as `helm rollback NAME TO` configures it (but with no
// history limit, as chunkview keeps every revision).
func rollback4(cfg *action4.Configuration, name string, to int) error {
	rb := action4.NewRollback(cfg)
	rb.Version = to
	rb.WaitStrategy = kube4.HookOnlyStrategy
	rb.MaxHistory = 0
	return rb.Run(name)
}

// record4 reads revision rev of release name through driver d, as Helm 4 reads it.
func record4(t *testing.T, d driver4.Driver, name string, rev int) *release4.Release {
	t.Helper()
	ri, err := d.Get(fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, rev))
	if err != nil {
		t.Fatalf("read revision %d of %s through Helm 4: %v", rev, name, err)
	}
	rls, ok := ri.(*release4.Release)
	if !ok {
		t.Fatalf("Helm 4's driver returned a %T", ri)
	}
	return rls
}

// helm4Driver is Helm 4's own driver of store over namespace ns.
func helm4Driver(store, ns string) driver4.Driver {
	if store == kube.DriverConfigMap {
		return driver4.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns))
	}
	return driver4.NewSecrets(secrets(ns))
}

// recordFields returns a release record as its JSON's fields, the times Helm
// stamps with the clock (first and last deployed) left out and the namespaces
// named as "NS", so that the records of twins in two namespaces compare.
func recordFields(t *testing.T, v any, namespaces ...string) map[string]any {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	for _, ns := range namespaces {
		s = strings.ReplaceAll(s, ns, "NS")
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	if info, ok := out["info"].(map[string]any); ok {
		delete(info, "first_deployed")
		delete(info, "last_deployed")
	}
	return out
}

// diffFields returns the paths where two records' fields differ.
func diffFields(a, b map[string]any) []string {
	var out []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		xm, xok := x.(map[string]any)
		ym, yok := y.(map[string]any)
		if xok && yok {
			keys := map[string]bool{}
			for k := range xm {
				keys[k] = true
			}
			for k := range ym {
				keys[k] = true
			}
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range keys {
					if !yield(k) {
						return
					}
				}
			}) {
				walk(strings.TrimPrefix(path+"."+k, "."), xm[k], ym[k])
			}
			return
		}
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s: %v != %v", path, short(x), short(y)))
		}
	}
	walk("", a, b)
	return out
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// managers returns the managed fields' managers and operations of an object:
// "helm/Apply", "kubectl-edit/Update".
func managers(fields []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Manager+"/"+string(f.Operation))
	}
	sort.Strings(out)
	return slices.Compact(out)
}
