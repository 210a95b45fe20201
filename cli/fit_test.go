package cli_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// fitJSON runs fit with args and -o json, wants exit code, and returns its result.
func (e *env) fitJSON(code int, args ...string) cli.FitResult {
	e.t.Helper()
	r := e.run(append([]string{"fit"}, append(args, "-o", "json")...)...)
	mustCode(e.t, r, code)
	var out cli.FitResult
	decode(e.t, r, &out)
	return out
}

// storeOf returns the prediction for driver d.
func storeOf(t *testing.T, out cli.FitResult, d string) fit.Store {
	t.Helper()
	for _, s := range out.Stores {
		if s.Driver == d {
			return s
		}
	}
	t.Fatalf("fit reported no %s store: %+v", d, out.Stores)
	return fit.Store{}
}

// helmSecretBytes is the length of data.release of Helm's Secret for a
// revision, as Helm's Secrets driver stored it.
func (e *env) helmSecretBytes(name string, rev int) int64 {
	e.t.Helper()
	s, err := cluster.Client.CoreV1().Secrets(e.ns).Get(context.Background(), storage.RecordKey(name, rev), metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("read Helm's Secret of %s v%d: %v", name, rev, err)
	}
	return int64(len(s.Data[storage.HelmDataKey]))
}

// helmConfigMapBytes is helmSecretBytes for Helm's ConfigMaps driver.
func (e *env) helmConfigMapBytes(name string, rev int) int64 {
	e.t.Helper()
	cm, err := cluster.Client.CoreV1().ConfigMaps(e.ns).Get(context.Background(), storage.RecordKey(name, rev), metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("read Helm's ConfigMap of %s v%d: %v", name, rev, err)
	}
	return int64(len(cm.Data[storage.HelmDataKey]))
}

// chunkedBytes is the gzip stream a chunked record of name v rev holds (every
// slice, the index's included) and the number of its Secrets.
func (e *env) chunkedBytes(name string, rev int) (int64, int) {
	e.t.Helper()
	list, err := cluster.Client.CoreV1().Secrets(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: storage.LabelKey + "=" + storage.RecordKey(name, rev)})
	if err != nil {
		e.t.Fatalf("list the Secrets of %s v%d: %v", name, rev, err)
	}
	var n int64
	for _, s := range list.Items {
		n += int64(len(s.Data["chunk"]))
	}
	return n, len(list.Items)
}

// within fails unless predicted is within pct percent of stored, and logs how
// near it came.
func within(t *testing.T, what string, predicted, stored int64, pct float64) {
	t.Helper()
	off := 100 * math.Abs(float64(predicted-stored)) / float64(stored)
	t.Logf("%s: predicted %d bytes, stored %d (%+d, %.3f%%)", what, predicted, stored, predicted-stored, off)
	if off > pct {
		t.Errorf("%s: predicted %d bytes, the store holds %d: %.2f%% off, more than %.0f%%", what, predicted, stored, off, pct)
	}
}

// TestFitSmallChartMatchesHelm: a small chart, its values from a file and
// --set, is predicted within 2% of what Helm's install then stores, in Helm's
// Secrets driver, its ConfigMaps driver, and both chunked drivers.
func TestFitSmallChartMatchesHelm(t *testing.T) {
	dir := smallChart(t)
	vf := filepath.Join(t.TempDir(), "prod.yaml")
	writeFile(t, vf, "replicas: 3\ngreeting: hi from prod\nblob: "+words(99, 300)+"\n")
	opts := values.Options{ValueFiles: []string{vf}, Values: []string{"image.tag=1.28", "greeting=set wins"}}
	for _, tc := range []struct {
		driver string
		store  func(ns string) driver.Driver
		stored func(e *env) (int64, int)
	}{
		{kube.DriverSecret, func(ns string) driver.Driver { return driver.NewSecrets(cluster.Client.CoreV1().Secrets(ns)) },
			func(e *env) (int64, int) { return e.helmSecretBytes("small", 1), 1 }},
		{kube.DriverConfigMap, func(ns string) driver.Driver { return driver.NewConfigMaps(cluster.Client.CoreV1().ConfigMaps(ns)) },
			func(e *env) (int64, int) { return e.helmConfigMapBytes("small", 1), 1 }},
		{kube.DriverChunked, func(ns string) driver.Driver {
			return storage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), testOwner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
		}, func(e *env) (int64, int) { return e.chunkedBytes("small", 1) }},
		{"chunked by helm-operator-plugins", func(ns string) driver.Driver {
			return hopstorage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), testOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
		}, func(e *env) (int64, int) { return e.chunkedBytes("small", 1) }},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			e := newEnv(t)
			d, _, _ := strings.Cut(tc.driver, " ")
			out := e.fitJSON(cli.ExitOK, dir, "--name", "small", "-f", vf, "--set", "image.tag=1.28", "--set", "greeting=set wins",
				"--driver", d, "--chunk-size", itoa(testChunkSize), "--helm", "3")
			if out.Revision != 1 || out.Action != "install" || out.Namespace != e.ns || !out.Fits || out.Helm != 3 {
				t.Fatalf("fit: want a fitting install of revision 1 in %s, got %+v", e.ns, out)
			}
			pred := storeOf(t, out, d)
			if _, err := e.helmInstall(tc.store(e.ns), dir, "small", helmValues(t, opts), false); err != nil {
				t.Fatalf("helm install: %v", err)
			}
			stored, objects := tc.stored(e)
			within(t, tc.driver, pred.StoredBytes, stored, 2)
			// A record within a few bytes of a slice boundary may take a chunk
			// more or less than predicted: its timestamps are not known.
			if d := pred.Objects - objects; d < -1 || d > 1 || (d != 0 && pred.Objects == 1) {
				t.Errorf("%s: predicted %d objects, the store wrote %d", tc.driver, pred.Objects, objects)
			}
		})
	}
}

// TestFitTooLargeForSecretsFitsChunked: a chart with 4.2 MB of CRD text is
// predicted too large for Helm's Secrets driver and fitting chunked storage with
// OLMv1's limits. Helm's install through its Secrets driver then fails on the
// API server's limit, and through the chunked driver stores what was predicted.
func TestFitTooLargeForSecretsFitsChunked(t *testing.T) {
	e := newEnv(t)
	dir := bigCRDChart(t, 4_200_000)

	all := e.fitJSON(cli.ExitNoFit, dir, "--name", "gw", "--max-write-chunks", "11")
	if all.Fits || len(all.Stores) != 3 {
		t.Fatalf("every store: want 3 stores and no fit, got %+v", all.Stores)
	}
	sec := storeOf(t, all, kube.DriverSecret)
	if sec.Fits || sec.StoredBytes <= storage.HelmRecordLimit || !strings.Contains(sec.Reason, "Too long") {
		t.Fatalf("secret: want over the 1 MiB limit with the reason, got %+v", sec)
	}
	if cm := storeOf(t, all, kube.DriverConfigMap); cm.Fits || cm.StoredBytes != sec.StoredBytes {
		t.Fatalf("configmap: want the Secret's bytes, not fitting, got %+v", cm)
	}
	ch := storeOf(t, all, kube.DriverChunked)
	if !ch.Fits || ch.Chunks < 2 || ch.LimitBytes != 11*storage.DefaultChunkSize || ch.LargestObjectBytes > storage.MaxSecretDataBytes {
		t.Fatalf("chunked: want several chunks within 11 × the default chunk size, got %+v", ch)
	}
	// Parts: the CRDs are what takes the room.
	if p := all.Breakdown.Parts[0]; p.Name != "chart CRDs" {
		t.Errorf("breakdown: want the CRDs first, got %+v", all.Breakdown.Parts)
	}
	if it := all.Breakdown.Largest[0]; it.Kind != "crd" || !strings.HasPrefix(it.Name, "crds/") {
		t.Errorf("largest items: want a CRD first, got %+v", all.Breakdown.Largest)
	}

	table := e.run("fit", dir, "--name", "gw", "--max-write-chunks", "11")
	mustCode(t, table, cli.ExitNoFit)
	for _, l := range strings.Split(table.stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("table line of %d columns, over 80: %q", n, l)
		}
	}
	if !strings.Contains(table.stdout, "secret    ") || !strings.Contains(table.stdout, "NO") || !strings.Contains(table.stdout, "crds/kind") {
		t.Errorf("table: want the stores, the verdict and the CRDs named:\n%s", table.stdout)
	}

	only := e.fitJSON(cli.ExitOK, dir, "--name", "gw", "--driver", "chunked", "--max-write-chunks", "11")
	if len(only.Stores) != 1 || !only.Fits {
		t.Fatalf("--driver chunked: want one fitting store, got %+v", only.Stores)
	}
	tight := e.fitJSON(cli.ExitNoFit, dir, "--name", "gw", "--driver", "chunked", "--max-write-chunks", itoa(ch.Chunks-1))
	if s := tight.Stores[0]; s.Fits || !strings.Contains(s.Reason, "--max-write-chunks") {
		t.Fatalf("one chunk too few allowed: want no fit, with the reason, got %+v", s)
	}

	vals := helmValues(t, values.Options{})
	_, err := e.helmInstall(driver.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)), dir, "gw", vals, true)
	if err == nil || !strings.Contains(err.Error(), "Too long") {
		t.Fatalf("helm install through its Secrets driver: want the API server's Too long, got %v", err)
	}
	chunked := storage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(e.ns), testOwner, storage.ChunkedSecretsConfig{MaxWriteChunks: 11})
	if _, err := e.helmInstall(chunked, dir, "gw2", vals, true); err != nil {
		t.Fatalf("helm install through the chunked driver: %v", err)
	}
	// The prediction for the name installed.
	pred := storeOf(t, e.fitJSON(cli.ExitOK, dir, "--name", "gw2", "--driver", "chunked", "--max-write-chunks", "11", "--helm", "3"), kube.DriverChunked)
	stored, objects := e.chunkedBytes("gw2", 1)
	within(t, "chunked", pred.StoredBytes, stored, 2)
	if objects != pred.Objects {
		t.Errorf("chunked: predicted %d Secrets, the driver wrote %d", pred.Objects, objects)
	}
}

// TestFitValuesAndSet: values files and --set change what is rendered as helm
// merges them (a later file over an earlier one, --set over both): a value that
// turns on six large ConfigMaps makes the record too large for Helm's Secrets
// driver, --set turns them off again, and the prediction for the values merged
// matches what Helm's install stores.
func TestFitValuesAndSet(t *testing.T) {
	e := newEnv(t)
	dir := smallChart(t)
	tmp := t.TempDir()
	big, small := filepath.Join(tmp, "big.yaml"), filepath.Join(tmp, "small.yaml")
	writeFile(t, big, "big: true\nbigText: "+noise("big", 200_000)+"\n")
	writeFile(t, small, "big: false\n")
	secretBytes := func(code int, args ...string) int64 {
		t.Helper()
		out := e.fitJSON(code, append([]string{dir, "--name", "v", "--driver", "secret", "--helm", "3"}, args...)...)
		return storeOf(t, out, kube.DriverSecret).StoredBytes
	}
	plain := secretBytes(cli.ExitOK)
	withBig := secretBytes(cli.ExitNoFit, "-f", big)
	if withBig <= storage.HelmRecordLimit {
		t.Fatalf("-f big.yaml: want the six ConfigMaps to take the record over 1 MiB, got %d bytes", withBig)
	}
	// The later file wins, as in helm; the text of the first stays in the values.
	later := secretBytes(cli.ExitOK, "-f", big, "-f", small)
	set := secretBytes(cli.ExitOK, "-f", big, "--set", "big=false")
	// The same values, rendered twice: the same size but for the records'
	// timestamps, whose digits compress differently.
	if abs(later-set) > 32 || later <= plain || later >= withBig/3 {
		t.Fatalf("big then small.yaml: %d bytes, big.yaml and --set big=false: %d; want the same (but for timestamps), above the plain %d and far below %d", later, set, plain, withBig)
	}
	if s := secretBytes(cli.ExitOK, "--set", "greeting="+strings.Repeat("x", 30_000)); s <= plain {
		t.Fatalf("--set greeting of 30,000 bytes: want more than the plain %d bytes, got %d", plain, s)
	}

	opts := values.Options{ValueFiles: []string{big}, Values: []string{"big=false"}}
	if _, err := e.helmInstall(driver.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)), dir, "v", helmValues(t, opts), false); err != nil {
		t.Fatalf("helm install: %v", err)
	}
	within(t, "secret, -f big.yaml --set big=false", set, e.helmSecretBytes("v", 1), 2)
}

// TestFitUpgradeOfRelease: with --release, fit renders the release's upgrade as
// helm upgrade does: the next revision, the last values reused when none are
// given, replaced when some are, merged with --reuse-values; it compares the
// result with the latest revision, and the prediction matches what Helm's
// upgrade then stores, in Helm's Secrets driver and in chunked storage.
func TestFitUpgradeOfRelease(t *testing.T) {
	for _, tc := range []struct {
		driver string
		store  func(ns string) driver.Driver
		stored func(e *env, rev int) int64
	}{
		{kube.DriverSecret, func(ns string) driver.Driver { return driver.NewSecrets(cluster.Client.CoreV1().Secrets(ns)) },
			func(e *env, rev int) int64 { return e.helmSecretBytes("up", rev) }},
		{kube.DriverChunked, func(ns string) driver.Driver {
			return storage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), testOwner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
		}, func(e *env, rev int) int64 { n, _ := e.chunkedBytes("up", rev); return n }},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			e := newEnv(t)
			dir := smallChart(t)
			for rev := 1; rev <= 3; rev++ {
				vals := map[string]interface{}{"blob": noise("up", 20_000*rev)}
				var err error
				if rev == 1 {
					_, err = e.helmInstall(tc.store(e.ns), dir, "up", vals, false)
				} else {
					_, err = e.helmUpgrade(tc.store(e.ns), dir, "up", vals)
				}
				if err != nil {
					t.Fatalf("revision %d: %v", rev, err)
				}
			}
			args := []string{dir, "--release", "up", "--driver", tc.driver, "--chunk-size", itoa(testChunkSize)}
			stats := &kube.Stats{}
			r := e.runApp(&cli.App{Stats: stats}, "", append([]string{"fit"}, append(args, "-o", "json")...)...)
			mustCode(t, r, cli.ExitOK)
			var out cli.FitResult
			decode(t, r, &out)
			t.Logf("fit --release over %s: %d requests %v, %d bytes received", tc.driver, stats.Total(), stats.Requests(), stats.BytesReceived())
			if stats.Mutating() != 0 {
				t.Errorf("fit sent %d requests that could change the cluster: %v", stats.Mutating(), stats.Requests())
			}
			cur := out.Current
			if out.Action != "upgrade" || out.Revision != 4 || cur == nil || cur.Revision != 3 || cur.Driver != tc.driver || out.Helm != 3 {
				t.Fatalf("want an upgrade to revision 4 of revision 3 in %s, got %+v (current %+v)", tc.driver, out, cur)
			}
			if cur.StoredBytes != tc.stored(e, 3) {
				t.Errorf("current: want revision 3's %d stored bytes, got %d", tc.stored(e, 3), cur.StoredBytes)
			}
			// No values given: revision 3's are reused, so the size stays put.
			pred := storeOf(t, out, tc.driver)
			if pred.StoredBytes != cur.UpgradeBytes || float64(abs(cur.DeltaBytes)) > 0.01*float64(cur.StoredBytes) {
				t.Errorf("no values: want about revision 3's size (values reused), got %d against %d", pred.StoredBytes, cur.StoredBytes)
			}
			if g := pred.Growth; g == nil || g.PerRevision <= 0 {
				t.Errorf("want the history's growth on the store, got %+v", g)
			} else if g.Limit > 0 {
				left := g.RevisionsLeft
				if float64(g.Last)+float64(left-1)*g.PerRevision > float64(g.Limit) || float64(g.Last)+float64(left)*g.PerRevision <= float64(g.Limit) {
					t.Errorf("revisions left %d at %+.0f bytes each from %d does not reach the limit %d at the next one", left, g.PerRevision, g.Last, g.Limit)
				}
			}
			replaced := storeOf(t, e.fitJSON(cli.ExitOK, append(args, "--set", "greeting=hi")...), tc.driver)
			reused := storeOf(t, e.fitJSON(cli.ExitOK, append(args, "--set", "greeting=hi", "--reuse-values")...), tc.driver)
			if replaced.StoredBytes > cur.StoredBytes/2 || reused.StoredBytes < cur.StoredBytes*99/100 {
				t.Errorf("--set alone replaces the values (want far below %d, got %d); with --reuse-values it merges them (want about %d, got %d)",
					cur.StoredBytes, replaced.StoredBytes, cur.StoredBytes, reused.StoredBytes)
			}

			if _, err := e.helmUpgrade(tc.store(e.ns), dir, "up", nil); err != nil {
				t.Fatalf("helm upgrade: %v", err)
			}
			within(t, tc.driver+" upgrade", pred.StoredBytes, tc.stored(e, 4), 2)
		})
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// TestFitExitCodes: fit's exit codes other than fits (0) and does not fit (1).
func TestFitExitCodes(t *testing.T) {
	e := newEnv(t)
	dir := smallChart(t)
	broken := writeChart(t, map[string]string{
		"Chart.yaml":       "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
		"templates/x.yaml": "{{ fail \"this chart refuses to render\" }}\n",
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no such chart", []string{"fit", filepath.Join(t.TempDir(), "nope")}, cli.ExitNotFound, "no such file"},
		{"no such values file", []string{"fit", dir, "-f", filepath.Join(t.TempDir(), "nope.yaml")}, cli.ExitNotFound, "nope.yaml"},
		{"bad --set", []string{"fit", dir, "--set", "novalue"}, cli.ExitUsage, "novalue"},
		{"no such release", []string{"fit", dir, "--release", "ghost"}, cli.ExitNotFound, "ghost"},
		{"a template that fails", []string{"fit", broken}, cli.ExitFitError, "this chart refuses to render"},
		{"--name and --release differ", []string{"fit", dir, "--name", "a", "--release", "b"}, cli.ExitUsage, "--name"},
		{"--reuse-values without --release", []string{"fit", dir, "--reuse-values"}, cli.ExitUsage, "--release"},
		{"--helm 2", []string{"fit", dir, "--helm", "2"}, cli.ExitUsage, "--helm 2"},
		{"no chart", []string{"fit"}, cli.ExitUsage, "CHART"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(tc.args...)
			mustCode(t, r, tc.code)
			oneLineErr(t, r)
			if !strings.Contains(r.stderr, tc.says) {
				t.Errorf("want the error to say %q, got %s", tc.says, r)
			}
		})
	}
}
