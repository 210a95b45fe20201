package cli_test

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"helm.sh/helm/v3/pkg/cli/values"
	action4 "helm.sh/helm/v4/pkg/action"
	loader4 "helm.sh/helm/v4/pkg/chart/loader"
	kube4 "helm.sh/helm/v4/pkg/kube"
	storage4 "helm.sh/helm/v4/pkg/storage"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// helm4Store is one store a Helm 4 program writes its records to: the driver
// over the env's namespace, and how to read back what a revision takes there.
type helm4Store struct {
	driver string
	store  func(ns string) driver4.Driver
	stored func(e *env, name string, rev int) int64
}

func helm4Stores() []helm4Store {
	return []helm4Store{
		{kube.DriverSecret, func(ns string) driver4.Driver { return driver4.NewSecrets(cluster.Client.CoreV1().Secrets(ns)) },
			func(e *env, name string, rev int) int64 { return e.helmSecretBytes(name, rev) }},
		{kube.DriverConfigMap, func(ns string) driver4.Driver { return driver4.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns)) },
			func(e *env, name string, rev int) int64 { return e.helmConfigMapBytes(name, rev) }},
		{kube.DriverChunked, func(ns string) driver4.Driver {
			return helm4.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), testOwner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
		}, func(e *env, name string, rev int) int64 { n, _ := e.chunkedBytes(name, rev); return n }},
	}
}

// helm4Config is Helm 4's action configuration over the env's namespace, its
// records kept by d, as a Helm 4 SDK program sets it up.
func (e *env) helm4Config(d driver4.Driver) *action4.Configuration {
	e.t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &e.kubeconfig, &e.ns, &e.cacheDir
	cfg := action4.NewConfiguration(action4.ConfigurationSetLogger(slog.DiscardHandler))
	if err := cfg.Init(flags, e.ns, "memory"); err != nil {
		e.t.Fatalf("helm 4 action configuration: %v", err)
	}
	cfg.Releases = storage4.Init(d)
	cfg.Releases.SetLogger(slog.DiscardHandler)
	return cfg
}

// helm4Install installs (or, with rev above 1, upgrades) the chart in dir as
// release name with Helm 4's own actions, configured as its CLI configures them
// (server-side apply for an install, the release's method for an upgrade), the
// chart loaded by Helm 4's loader from dir, as `helm install DIR` loads it.
func (e *env) helm4Install(d driver4.Driver, dir, name string, rev int, vals map[string]any) {
	e.t.Helper()
	ch, err := loader4.Load(dir)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := e.helm4Config(d)
	if rev == 1 {
		in := action4.NewInstall(cfg)
		in.ReleaseName, in.Namespace, in.SkipCRDs = name, e.ns, true
		in.WaitStrategy = kube4.HookOnlyStrategy
		_, err = in.Run(ch, vals)
	} else {
		up := action4.NewUpgrade(cfg)
		up.Namespace = e.ns
		up.WaitStrategy = kube4.HookOnlyStrategy
		_, err = up.Run(name, ch, vals)
	}
	if err != nil {
		e.t.Fatalf("helm 4 revision %d of %s: %v", rev, name, err)
	}
}

// fit4Tolerance is how near, in percent, the predictions of Helm 4's records are
// held to what Helm 4 stores: within the 2% promised, and tight enough that Helm
// 3's record, 2.2% smaller on the small chart, would not pass for Helm 4's. The
// timestamps, which are not known ahead, make the few bytes of difference.
const fit4Tolerance = 1.0

// TestFitHelm4MatchesHelm4: by default fit measures the record Helm 4 stores,
// which is larger than Helm 3's by the chart's mod times and the apply method
// (2.2% on this chart of 6 KB, 5% on one of 1.6 KB). Installed by Helm 4's own
// install action, the record comes within 1% of the prediction in Helm 4's Secrets driver, its ConfigMaps driver
// and chunkview's Helm 4 chunked driver, where the prediction for Helm 3's record
// falls short of it by more than that.
func TestFitHelm4MatchesHelm4(t *testing.T) {
	dir := smallChart(t)
	vf := filepath.Join(t.TempDir(), "prod.yaml")
	writeFile(t, vf, "replicas: 3\ngreeting: hi from prod\n")
	vals := helmValues(t, values.Options{ValueFiles: []string{vf}, Values: []string{"image.tag=1.28"}})
	for _, st := range helm4Stores() {
		t.Run(st.driver, func(t *testing.T) {
			e := newEnv(t)
			args := []string{dir, "--name", "small", "-f", vf, "--set", "image.tag=1.28", "--driver", st.driver, "--chunk-size", itoa(testChunkSize)}
			out := e.fitJSON(cli.ExitOK, args...)
			if out.Helm != 4 || !strings.Contains(out.HelmReason, "install") {
				t.Fatalf("an install: want Helm 4's record by default, got Helm %d (%s)", out.Helm, out.HelmReason)
			}
			pred := storeOf(t, out, st.driver).StoredBytes
			pred3 := storeOf(t, e.fitJSON(cli.ExitOK, append(args, "--helm", "3")...), st.driver).StoredBytes
			e.helm4Install(st.store(e.ns), dir, "small", 1, vals)
			stored := st.stored(e, "small", 1)
			within(t, st.driver+", Helm 4's record", pred, stored, fit4Tolerance)
			off := 100 * float64(stored-pred3) / float64(stored)
			t.Logf("%s: Helm 3's record predicted %d bytes, %.1f%% short of Helm 4's", st.driver, pred3, off)
			if off < 2*fit4Tolerance {
				t.Errorf("Helm 3's record predicted %d bytes against Helm 4's %d stored (%.1f%% short): want the two records to differ by more than twice the tolerance, so that this test tells them apart", pred3, stored, off)
			}
		})
	}
}

// TestFitHelm4CLI: Helm 4's own CLI (bin/helm4) installs the chart through its
// Secrets and its ConfigMaps drivers, from the same directory fit read; each
// record comes within 1% of fit's default prediction.
func TestFitHelm4CLI(t *testing.T) {
	helmBin := filepath.Join(testcluster.AssetsDir(), "helm4")
	if _, err := os.Stat(helmBin); err != nil {
		t.Fatalf("Helm 4's CLI is not built: run `make plugintools` (it builds bin/helm4 from Go modules): %v", err)
	}
	dir := smallChart(t)
	for _, st := range helm4Stores()[:2] {
		t.Run(st.driver, func(t *testing.T) {
			e := newEnv(t)
			pred := storeOf(t, e.fitJSON(cli.ExitOK, dir, "--name", "cli4", "--set", "greeting=from the CLI", "--driver", st.driver), st.driver).StoredBytes
			cmd := exec.CommandContext(t.Context(), helmBin, "install", "cli4", dir, "-n", e.ns, "--kubeconfig", e.kubeconfig, "--skip-crds", "--set", "greeting=from the CLI")
			cmd.Env = append(os.Environ(), "HELM_DRIVER="+st.driver, "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("helm4 install: %v\n%s", err, out)
			}
			within(t, st.driver+", Helm 4's CLI", pred, st.stored(e, "cli4", 1), fit4Tolerance)
		})
	}
}

// TestFitUpgradeOfHelm4Release: with --release, fit measures the record of the
// Helm that wrote the release's latest revision. A release Helm 4 installed and
// upgraded server-side is upgraded by Helm 4's rules (the apply method carried
// on, the values reused), and its next upgrade by Helm 4's action stores within
// 1% of the prediction, in every store.
func TestFitUpgradeOfHelm4Release(t *testing.T) {
	dir := smallChart(t)
	for _, st := range helm4Stores() {
		t.Run(st.driver, func(t *testing.T) {
			e := newEnv(t)
			for rev := 1; rev <= 2; rev++ {
				e.helm4Install(st.store(e.ns), dir, "up4", rev, map[string]any{"blob": noise("up4", 3_000*rev)})
			}
			out := e.fitJSON(cli.ExitOK, dir, "--release", "up4", "--driver", st.driver, "--chunk-size", itoa(testChunkSize))
			if out.Helm != 4 || !strings.Contains(out.HelmReason, "Helm 4 wrote revision 2") || out.Revision != 3 {
				t.Fatalf("an upgrade of a Helm 4 release: want Helm 4's record of revision 3, got Helm %d (%s), revision %d", out.Helm, out.HelmReason, out.Revision)
			}
			e.helm4Install(st.store(e.ns), dir, "up4", 3, nil)
			within(t, st.driver+", Helm 4's upgrade", storeOf(t, out, st.driver).StoredBytes, st.stored(e, "up4", 3), fit4Tolerance)
		})
	}
}
