package kube_test

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/storage/driver"
	action4 "helm.sh/helm/v4/pkg/action"
	release4 "helm.sh/helm/v4/pkg/release/v1"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// BenchmarkStatus reads the status of one 30-object release (6 Deployments, 6
// Services, 17 ConfigMaps, a Secret; a hook Job that succeeded) that Helm's
// install action stored in Helm's Secrets driver, two ways in one run, each as
// a fresh command would: chunkview's `status` (a new connection each time:
// the release's revisions' metadata, the record, discovery, one GET per
// object, one list of Warning events) and Helm 4's `helm status` (v4.3.2's
// action.Status as its CLI runs it for a table, which always shows the
// resources: the old --show-resources; a new action configuration each time,
// with a discovery cache on disk kept between runs, as on a user's machine).
// Read the ratio of ns/op, req/op and recvB/op between the two.
func BenchmarkStatus(b *testing.B) {
	ns := cluster.Namespace(b)
	kc := kubetest.AdminKubeconfig(b, ns)
	cfg := kubetest.HelmConfig(b, kc, ns, driver.NewSecrets(cluster.Client.CoreV1().Secrets(ns)))
	vals := map[string]interface{}{"apps": 6, "extraConfigMaps": 10}
	if _, err := kubetest.InstallShop(b, cfg, cluster.Client, ns, "big", vals, kubetest.HookOutcome{}); err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		name := "big"
		if i > 1 {
			name = "big-" + strconv.Itoa(i)
		}
		kubetest.SetDeploymentStatus(b, cluster.Client, ns, name, 2)
	}

	b.Run("chunkview", func(b *testing.B) {
		counter := &benchCounter{}
		stats := &kube.Stats{}
		run := func() *live.ReleaseStatus {
			o := kubetest.ParseOptions(b, []string{"--kubeconfig", kc, "-n", ns, "--driver", "secret"})
			o.Stats = stats
			o.WrapConfig = func(rc *rest.Config) {
				rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
			}
			c, err := o.Connect()
			if err != nil {
				b.Fatal(err)
			}
			st, err := live.Status(b.Context(), c, ns, "big", 0, live.StatusOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return st
		}
		if st := run(); len(st.Resources) != 30 || !st.Ready() {
			b.Fatalf("%d objects, %s", len(st.Resources), st.Summary())
		}
		counter.reset()
		ops := 0
		for b.Loop() {
			run()
			ops++
		}
		counter.report(b, ops)
	})

	b.Run("helm4", func(b *testing.B) {
		counter := &benchCounter{}
		cache := b.TempDir()
		run := func() *release4.Release {
			flags := genericclioptions.NewConfigFlags(true)
			flags.KubeConfig, flags.Namespace, flags.CacheDir = &kc, &ns, &cache
			flags.WrapConfigFn = func(rc *rest.Config) *rest.Config {
				rc = rest.CopyConfig(rc)
				rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
				return rc
			}
			ac := action4.NewConfiguration(action4.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
			if err := ac.Init(flags, ns, "secret"); err != nil {
				b.Fatal(err)
			}
			s := action4.NewStatus(ac)
			s.ShowResourcesTable = true
			ri, err := s.Run("big")
			if err != nil {
				b.Fatal(err)
			}
			rel, ok := ri.(*release4.Release)
			if !ok {
				b.Fatalf("helm status returned %T", ri)
			}
			return rel
		}
		rel := run()
		objects := 0
		for k, objs := range rel.Info.Resources {
			if !strings.Contains(k, "(related)") {
				objects += len(objs)
			}
		}
		if objects != 30 {
			b.Fatalf("helm status shows %d objects, want 30", objects)
		}
		counter.reset()
		ops := 0
		for b.Loop() {
			run()
			ops++
		}
		counter.report(b, ops)
	})
}
