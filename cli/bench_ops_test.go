package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kube4 "helm.sh/helm/v4/pkg/kube"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
)

// opsChart4 is a chart of four objects (a Deployment, a Service, a ConfigMap and
// a Secret) in Helm 4's types: the release an operation's requests are counted
// on.
func opsChart4() *chart4.Chart {
	return &chart4.Chart{
		Metadata: &chart4.Metadata{APIVersion: "v2", Name: "ops", Version: "1.0.0", AppVersion: "1.0"},
		Templates: []*chartcommon4.File{
			{Name: "templates/deploy.yaml", Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
      - name: web
        image: "nginx:{{ .Values.tag }}"
`)},
			{Name: "templates/svc.yaml", Data: []byte(`apiVersion: v1
kind: Service
metadata: {name: {{ .Release.Name }}}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{port: 80}]
`)},
			{Name: "templates/cm.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-config}
data:
  greeting: {{ .Values.greeting | quote }}
`)},
			{Name: "templates/secret.yaml", Data: []byte(`apiVersion: v1
kind: Secret
metadata: {name: {{ .Release.Name }}-db}
stringData:
  password: {{ .Values.password | quote }}
`)},
		},
		Values: map[string]any{"replicas": 1, "tag": "1.27", "greeting": "hello", "password": "changeme"},
	}
}

// opsValues are the values of revision rev of the benchmark's releases: each
// revision changes the Deployment, the ConfigMap and the Secret.
func opsValues(rev int) map[string]any {
	return map[string]any{"replicas": rev, "tag": fmt.Sprintf("1.2%d", rev), "greeting": fmt.Sprintf("hello %d", rev), "password": fmt.Sprintf("s3cr3t-%d", rev)}
}

// opsHelm4 is Helm 4's action configuration as `helm` (HELM_DRIVER=secret) sets
// it up over namespace ns: its discovery cached on disk in cache, which outlives
// the configuration as on a user's machine. stats, when set, counts its requests.
func opsHelm4(tb testing.TB, kubeconfig, ns, cache string, stats *kube.Stats) *action4.Configuration {
	tb.Helper()
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &kubeconfig, &ns, &cache
	if stats != nil {
		flags.WrapConfigFn = func(rc *rest.Config) *rest.Config {
			rc = rest.CopyConfig(rc)
			stats.Count(rc)
			return rc
		}
	}
	cfg := action4.NewConfiguration(action4.ConfigurationSetLogger(slog.DiscardHandler))
	if err := cfg.Init(flags, ns, "secret"); err != nil {
		tb.Fatalf("helm 4 action configuration: %v", err)
	}
	return cfg
}

// opsRelease installs release name with Helm 4's install (server-side apply,
// its CLI's default) and upgrades it to revision revs, into Helm's Secrets.
func opsRelease(tb testing.TB, kubeconfig, ns, cache, name string, revs int) {
	tb.Helper()
	cfg := opsHelm4(tb, kubeconfig, ns, cache, nil)
	in := action4.NewInstall(cfg)
	in.ReleaseName, in.Namespace, in.ServerSideApply = name, ns, true
	in.WaitStrategy = kube4.HookOnlyStrategy
	if _, err := in.Run(opsChart4(), opsValues(1)); err != nil {
		tb.Fatalf("helm 4 install %s: %v", name, err)
	}
	for rev := 2; rev <= revs; rev++ {
		up := action4.NewUpgrade(cfg)
		up.Namespace = ns
		up.WaitStrategy = kube4.HookOnlyStrategy
		if _, err := up.Run(name, opsChart4(), opsValues(rev)); err != nil {
			tb.Fatalf("helm 4 upgrade %s to %d: %v", name, rev, err)
		}
	}
}

// opsKinds sorts an operation's requests into what they are for, as the
// benchmark reports them and TestOperationRequests asserts them.
func opsKinds(calls []string) map[string]int {
	out := map[string]int{}
	for _, c := range calls {
		out[opsKind(c)]++
	}
	return out
}

// opsKind names what one request ("GET /api/v1/...?query") is for.
func opsKind(call string) string {
	method, rest, _ := strings.Cut(call, " ")
	path, query, _ := strings.Cut(rest, "?")
	query, _, _ = strings.Cut(query, " ")
	switch {
	case strings.HasSuffix(path, "/selfsubjectaccessreviews"):
		return "ssar"
	case strings.HasSuffix(path, "/selfsubjectrulesreviews"):
		return "ssrr"
	case path == "/version":
		return "version"
	case path == "/api" || path == "/apis":
		return "discovery" + path
	case strings.HasPrefix(path, "/apis/") && strings.Count(path, "/") == 3, path == "/api/v1":
		return "discovery-group"
	case strings.Contains(path, "helm.toolkit.fluxcd.io") || strings.Contains(path, "olm.operatorframework.io"):
		return "controller"
	case strings.Contains(query, "dryRun=All"):
		return "dryrun"
	case strings.Contains(path, "/secrets") && (strings.Contains(path, "sh.helm.release") || strings.Contains(query, "owner")),
		strings.Contains(path, "/configmaps") && (strings.Contains(path, "sh.helm.release") || strings.Contains(query, "owner")):
		return "records " + method
	}
	return "objects " + method
}

// BenchmarkOperationRequests counts the requests of a rollback and of an
// uninstall of a four-object release that Helm 4 installed server-side into
// Helm's Secrets, two ways in one run, each as a fresh command: `chunkview
// rollback NAME --yes` and `chunkview uninstall NAME --yes` (cli.App, the
// release located in every store as a user runs them), and Helm 4's own
// Rollback and Uninstall actions (v4.3.2) configured as `helm rollback NAME` and
// `helm uninstall NAME` configure them (HELM_DRIVER=secret, discovery cached on
// disk between runs, --history-max 0: chunkview keeps every revision, and
// Helm's default of 10 would add a listing of the history). req/op is the
// figure to compare; the other metrics break it down (see opsKind).
func BenchmarkOperationRequests(b *testing.B) {
	ns := cluster.Namespace(b)
	kc := kubetest.WriteKubeconfig(b, cluster.Config, "default")
	cache := filepath.Join(b.TempDir(), "cache")
	helmCache := filepath.Join(b.TempDir(), "helm-cache")
	opsRelease(b, kc, ns, helmCache, "cv", 2)
	opsRelease(b, kc, ns, helmCache, "h4", 2)
	cv := func(stats *kube.Stats, args ...string) {
		var out, errb bytes.Buffer
		app := &cli.App{Stats: stats, IsTerminal: func(io.Reader) bool { return false }}
		args = append(args, "--kubeconfig", kc, "--cache-dir", cache, "-n", ns)
		if code := app.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != cli.ExitOK {
			b.Fatalf("chunkview %v: exit %d: %s%s", args, code, out.String(), errb.String())
		}
	}

	b.Run("rollback/chunkview", func(b *testing.B) {
		stats := &kube.Stats{}
		ops := 0
		for b.Loop() {
			cv(stats, "rollback", "cv", "--yes")
			ops++
		}
		reportOps(b, stats, ops)
	})
	b.Run("rollback/helm4", func(b *testing.B) {
		stats := &kube.Stats{}
		ops := 0
		for b.Loop() {
			rb := action4.NewRollback(opsHelm4(b, kc, ns, helmCache, stats))
			rb.WaitStrategy, rb.Timeout, rb.ServerSideApply = kube4.HookOnlyStrategy, defaultHelmTimeout, "auto"
			if err := rb.Run("h4"); err != nil {
				b.Fatalf("helm 4 rollback: %v", err)
			}
			ops++
		}
		reportOps(b, stats, ops)
	})
	b.Run("uninstall/chunkview", func(b *testing.B) {
		stats := &kube.Stats{}
		ops := 0
		for b.Loop() {
			b.StopTimer()
			opsRelease(b, kc, ns, helmCache, "cvu", 2)
			b.StartTimer()
			cv(stats, "uninstall", "cvu", "--yes")
			ops++
		}
		reportOps(b, stats, ops)
	})
	b.Run("uninstall/helm4", func(b *testing.B) {
		stats := &kube.Stats{}
		ops := 0
		for b.Loop() {
			b.StopTimer()
			opsRelease(b, kc, ns, helmCache, "h4u", 2)
			b.StartTimer()
			un := action4.NewUninstall(opsHelm4(b, kc, ns, helmCache, stats))
			un.WaitStrategy, un.Timeout, un.DeletionPropagation = kube4.HookOnlyStrategy, defaultHelmTimeout, "background"
			if _, err := un.Run("h4u"); err != nil {
				b.Fatalf("helm 4 uninstall: %v", err)
			}
			ops++
		}
		reportOps(b, stats, ops)
	})
}

// defaultHelmTimeout is helm's --timeout default.
const defaultHelmTimeout = 5 * time.Minute

// reportOps reports the requests per operation counted by stats, and each
// kind's share of them; -v logs the requests of all runs.
func reportOps(b *testing.B, stats *kube.Stats, ops int) {
	if ops == 0 {
		return
	}
	calls := stats.Calls()
	b.ReportMetric(float64(len(calls))/float64(ops), "req/op")
	kinds := opsKinds(calls)
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var line []string
	for _, k := range names {
		line = append(line, fmt.Sprintf("%s %.1f", k, float64(kinds[k])/float64(ops)))
	}
	b.Logf("%s, per operation: %s", b.Name(), strings.Join(line, ", "))
	if testing.Verbose() {
		b.Logf("the last run's requests:\n%s", strings.Join(calls[len(calls)-len(calls)/ops:], "\n"))
	}
}
