package ops_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	action4 "helm.sh/helm/v4/pkg/action"
	common4 "helm.sh/helm/v4/pkg/release/common"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// namedProgram is the transport of a Helm 4 SDK program named name: Helm 4's
// kube client names the field manager after the program's binary
// (filepath.Base(os.Args[0])) when ManagedFieldsManager is unset, as it is in
// such a program, and Flux's helm-controller sets it to "helm-controller". In
// this test binary the variable is chunkview's ("helm"), process-wide, so the
// program's manager is put on its requests instead.
type namedProgram struct {
	next http.RoundTripper
	name string
}

func (p namedProgram) RoundTrip(req *http.Request) (*http.Response, error) {
	if q := req.URL.Query(); q.Has("fieldManager") {
		q.Set("fieldManager", p.name)
		req = req.Clone(req.Context())
		req.URL.RawQuery = q.Encode()
	}
	return p.next.RoundTrip(req)
}

// config4As is config4 (Helm's Secrets store) for a Helm 4 SDK program whose
// objects are written under field manager name.
func config4As(t *testing.T, ns, name string) *action4.Configuration {
	t.Helper()
	kubeconfig := adminKubeconfig(t, ns)
	flags := genericclioptions.NewConfigFlags(false)
	cache := t.TempDir()
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &kubeconfig, &ns, &cache
	flags.WrapConfigFn = func(rc *rest.Config) *rest.Config {
		rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return namedProgram{next: rt, name: name} })
		return rc
	}
	cfg := action4.NewConfiguration(action4.ConfigurationSetLogger(quietLog))
	if err := cfg.Init(flags, ns, kube.DriverSecret); err != nil {
		t.Fatalf("helm 4 action configuration: %v", err)
	}
	return cfg
}

// appConfig returns release app's ConfigMap: its color and its managers.
func appConfig(t *testing.T, ns string) (string, []string) {
	t.Helper()
	cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data["color"], managers(cm.ManagedFields)
}

// mustStatus4 checks the status of revision rev of release app, read by Helm 4's
// Secrets driver.
func mustStatus4(t *testing.T, ns string, rev int, want common4.Status) {
	t.Helper()
	if got := record4(t, helm4Driver(kube.DriverSecret, ns), "app", rev); got.Info.Status != want {
		t.Errorf("revision %d is %s (%q), want %s", rev, got.Info.Status, got.Info.Description, want)
	}
}

// TestRollbackAsOwningManager: a release a Helm 4 SDK program applied
// server-side under its own field manager (a program's own name; Flux's
// helm-controller) is rolled back by chunkview under that manager, read from
// the objects' managed fields: the plan finds no conflict, the rollback ends
// deployed with the program still the objects' only manager, and the program's
// own rollback then succeeds too.
func TestRollbackAsOwningManager(t *testing.T) {
	for _, manager := range []string{"h4w", "helm-controller"} {
		t.Run(manager, func(t *testing.T) {
			ctx := t.Context()
			ns := cluster.Namespace(t)
			cfg := config4As(t, ns, manager)
			install4(t, cfg, ns, "app", values4("app", 0))
			upgrade4(t, cfg, ns, "app", "1.1.0", values4("app", 1))
			c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--driver", kube.DriverSecret}, nil)

			rb, err := planByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			ss := rb.ServerSide
			if rb.Major != 4 || ss == nil || ss.Manager != manager || len(ss.Conflicts) > 0 || ss.Unchecked != "" {
				t.Fatalf("plan: Helm %d, server side %+v; want Helm 4 applying as %q, no conflict", rb.Major, ss, manager)
			}
			mustContain(t, rb.Describe(), `field manager "`+manager+`"`, "own most of the release's fields")
			if err := ops.NewRunner(c).Apply(ctx, rb); err != nil || rb.NewRevision != 3 {
				t.Fatalf("rollback: revision %d, %v", rb.NewRevision, err)
			}
			mustStatus4(t, ns, 3, common4.StatusDeployed)
			mustStatus4(t, ns, 2, common4.StatusSuperseded)
			color, ms := appConfig(t, ns)
			if color != "blue" || strings.Join(ms, " ") != manager+"/Apply" {
				t.Errorf("app-config after the rollback: color %q, managers %v; want blue, %s/Apply alone", color, ms, manager)
			}

			if err := rollback4(cfg, "app", 2); err != nil {
				t.Fatalf("the program's own rollback after chunkview's: %v", err)
			}
			mustStatus4(t, ns, 4, common4.StatusDeployed)
			if color, _ := appConfig(t, ns); color != "green" {
				t.Errorf("app-config after the program's rollback: color %q, want green", color)
			}
		})
	}
}

// TestRollbackConflictsWithDrift: drift made the way `kubectl edit` makes it, an
// update under another field manager, conflicts with Helm 4's server-side
// apply. The plan of a rollback to the latest revision names the field and its
// manager; applied as it is, the rollback is refused, changing nothing; with
// ForceConflicts (--force-conflicts) it takes the field over and undoes the
// drift, the new revision deployed.
func TestRollbackConflictsWithDrift(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	install4(t, config4As(t, ns, ops.HelmFieldManager), ns, "app", values4("app", 0))
	cms := cluster.Client.CoreV1().ConfigMaps(ns)
	cm, err := cms.Get(ctx, "app-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["color"] = "purple"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--driver", kube.DriverSecret}, nil)
	rb, err := planByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	ss := rb.ServerSide
	if !rb.Reapply || ss == nil || ss.Manager != ops.HelmFieldManager || ss.Unchecked != "" {
		t.Fatalf("plan: reapply %v, server side %+v", rb.Reapply, ss)
	}
	want := ops.FieldConflict{Object: "ConfigMap/app-config", Field: ".data.color", Manager: "kubectl-edit"}
	if len(ss.Conflicts) != 1 || ss.Conflicts[0] != want {
		t.Fatalf("conflicts %+v, want %+v", ss.Conflicts, want)
	}
	mustContain(t, rb.Describe(), "ConfigMap/app-config .data.color (kubectl-edit)", "--force-conflicts")

	before := snapshot(t, ns)
	err = ops.NewRunner(c).Apply(ctx, rb)
	mustContain(t, mustErrIs(t, err, ops.ErrFieldConflicts), "Nothing was changed", "--force-conflicts")
	mustSame(t, before, snapshot(t, ns))
	if color, _ := appConfig(t, ns); color != "purple" {
		t.Fatalf("a refused rollback changed the drifted color to %q", color)
	}

	rb.ForceConflicts = true
	if err := ops.NewRunner(c).Apply(ctx, rb); err != nil || rb.NewRevision != 2 {
		t.Fatalf("forced rollback: revision %d, %v", rb.NewRevision, err)
	}
	mustStatus4(t, ns, 2, common4.StatusDeployed)
	color, ms := appConfig(t, ns)
	if color != "blue" || strings.Join(ms, " ") != "helm/Apply" {
		t.Errorf("app-config after the forced rollback: color %q, managers %v; want blue, helm/Apply alone", color, ms)
	}
}
