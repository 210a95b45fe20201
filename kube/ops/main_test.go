package ops_test

import (
	"context"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/chunkview/chunkview/storage"

	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// cluster is the real API server and etcd every test in this package runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &cluster, &kubetest.Cluster) }

// The helpers the tests of kube and of kube/ops share (internal/kubetest).
var (
	writeKubeconfig = kubetest.WriteKubeconfig
	adminKubeconfig = kubetest.AdminKubeconfig
	parseOptions    = kubetest.ParseOptions
	noise           = kubetest.Noise
	baseTime        = kubetest.BaseTime
	makeRelease     = kubetest.MakeRelease
	decode          = kubetest.Decode
	gc              = kubetest.GC
	history         = kubetest.History
	secrets         = kubetest.Secrets
	chunkviewDriver = kubetest.ChunkviewDriver
	originalDriver  = kubetest.OriginalDriver
	seed            = kubetest.Seed
	chunkNames      = kubetest.ChunkNames
	secretsOfKey    = kubetest.SecretsOfKey
	snapshot        = kubetest.Snapshot
	ensureNamespace = kubetest.EnsureNamespace
	mustErrIs       = kubetest.MustErrIs
	mustContain     = kubetest.MustContain
	deleteNow       = kubetest.DeleteNow
	backdate        = kubetest.Backdate
	grant           = kubetest.Grant
	rbacUser        = kubetest.RBACUser
	waitAllowed     = kubetest.WaitAllowed
	readSecrets     = kubetest.ReadSecrets
	createChunk     = kubetest.CreateChunk
	webappChart     = kubetest.WebappChart
	webappValues    = kubetest.WebappValues
	helmConfig      = kubetest.HelmConfig
	helmInstall     = kubetest.HelmInstall
	helmUpgrade     = kubetest.HelmUpgrade
	tryHelmUpgrade  = kubetest.TryHelmUpgrade
	configMapData   = kubetest.ConfigMapData
)

// wireLog is kubetest.WireLog, installed by Options.WrapConfig = w.install.
type wireLog struct{ kubetest.WireLog }

func (w *wireLog) install(rc *rest.Config) { w.WireLog.Install(rc) }

type wireRequest = kubetest.WireRequest

// client is a connection with the operations run the way the CLI runs them:
// read the release's revisions, plan from them, apply. Its methods plan by name,
// as a command does; PlanFrom plans from rows a screen showed.
type client struct {
	*kube.Client
}

// Driver is the chunked driver the operations write through, on the client's
// connection, in storage namespace ns.
func (c *client) Driver(ns string) *storage.ChunkedSecrets {
	return storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), c.Config().Owner, kube.ChunkedConfig(c.Config().Driver, c.Metadata(), ns))
}

// Appliers builds Helm's kube clients on the client's connection, as the
// operations do.
func (c *client) Appliers() ops.Appliers {
	if a, ok := c.ApplySource().(ops.Appliers); ok {
		return a
	}
	return ops.NewAppliers(c.ApplySource().(genericclioptions.RESTClientGetter))
}

// connect builds a client the way chunkview's main does (kubetest.Connect).
func connect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) *client {
	t.Helper()
	return &client{kubetest.Connect(t, kubeconfig, args, setup)}
}

// tryConnect is connect that returns the error.
func tryConnect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) (*client, error) {
	t.Helper()
	c, err := kubetest.TryConnect(t, kubeconfig, args, setup)
	if err != nil {
		return nil, err
	}
	return &client{c}, nil
}

// runner is the runner of operations over the client.
func (c *client) runner() *ops.Runner { return ops.NewRunner(c.Client) }

// base reads the release's revisions and plans from them.
func (c *client) base(ctx context.Context, ns, name string) (*ops.Plan, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return ops.NewPlan(ns, rows)
}

// PlanRollback plans a rollback of release name to rev.
func (c *client) PlanRollback(ctx context.Context, ns, name string, rev int, opts kube.DiffOptions) (*ops.Rollback, error) {
	p, err := c.base(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return c.runner().PlanRollback(ctx, p, rev, opts)
}

// ApplyRollback applies a planned rollback.
func (c *client) ApplyRollback(ctx context.Context, plan *ops.Rollback) (*ops.Rollback, error) {
	return plan, c.runner().Apply(ctx, plan)
}

// Rollback plans and applies a rollback.
func (c *client) Rollback(ctx context.Context, ns, name string, rev int, opts kube.DiffOptions) (*ops.Rollback, error) {
	if err := c.checkWritable(kube.OpRollback); err != nil {
		return nil, err
	}
	plan, err := c.PlanRollback(ctx, ns, name, rev, opts)
	if err != nil {
		return nil, err
	}
	return c.ApplyRollback(ctx, plan)
}

// PlanUninstall plans an uninstall of release name.
func (c *client) PlanUninstall(ctx context.Context, ns, name string, keepHistory bool) (*ops.Uninstall, error) {
	p, err := c.base(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return c.runner().PlanUninstall(ctx, p, keepHistory)
}

// ApplyUninstall applies a planned uninstall.
func (c *client) ApplyUninstall(ctx context.Context, plan *ops.Uninstall) (*ops.Uninstall, error) {
	return plan, c.runner().Apply(ctx, plan)
}

// Uninstall plans and applies an uninstall.
func (c *client) Uninstall(ctx context.Context, ns, name string, keepHistory bool) (*ops.Uninstall, error) {
	if err := c.checkWritable(kube.OpUninstall); err != nil {
		return nil, err
	}
	plan, err := c.PlanUninstall(ctx, ns, name, keepHistory)
	if err != nil {
		return nil, err
	}
	return c.ApplyUninstall(ctx, plan)
}

// PlanDeleteRevision plans the deletion of revision rev's record.
func (c *client) PlanDeleteRevision(ctx context.Context, ns, name string, rev int, force bool) (*ops.DeleteRevision, error) {
	p, err := c.base(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return c.runner().PlanDeleteRevision(ctx, p, rev, force)
}

// ApplyDeleteRevision applies a planned deletion.
func (c *client) ApplyDeleteRevision(ctx context.Context, plan *ops.DeleteRevision) error {
	return c.runner().Apply(ctx, plan)
}

// DeleteRevision plans and applies the deletion of revision rev's record.
func (c *client) DeleteRevision(ctx context.Context, ns, name string, rev int, force bool) error {
	if err := c.checkWritable(kube.OpDeleteRevision); err != nil {
		return err
	}
	plan, err := c.PlanDeleteRevision(ctx, ns, name, rev, force)
	if err != nil {
		return err
	}
	return c.ApplyDeleteRevision(ctx, plan)
}

// PlanFixStuck plans no fix yet: it says whether the release is stuck.
func (c *client) PlanFixStuck(ctx context.Context, ns, name string) (*ops.FixStuck, error) {
	p, err := c.base(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return c.runner().PlanFixStuck(ctx, p, "")
}

// ApplyFixStuck applies fix to a planned stuck release.
func (c *client) ApplyFixStuck(ctx context.Context, plan *ops.FixStuck, fix ops.StuckFix) error {
	plan.Fix = fix
	return c.runner().Apply(ctx, plan)
}

// FixStuck plans and applies fix.
func (c *client) FixStuck(ctx context.Context, ns, name string, fix ops.StuckFix) error {
	if err := c.checkWritable(kube.OpFixStuck); err != nil {
		return err
	}
	if err := fix.Valid(); err != nil {
		return err
	}
	plan, err := c.PlanFixStuck(ctx, ns, name)
	if err != nil {
		return err
	}
	return c.ApplyFixStuck(ctx, plan, fix)
}

// StuckInfo says whether release name is stuck, and for how long.
func (c *client) StuckInfo(ctx context.Context, ns, name string) (*ops.Stuck, error) {
	plan, err := c.PlanFixStuck(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return plan.Stuck, nil
}

// WithDrivers is kube.Client.WithDrivers, keeping the operations.
func (c *client) WithDrivers(ds ...string) *client { return &client{c.Client.WithDrivers(ds...)} }

// WithNamespace is kube.Client.WithNamespace, keeping the operations.
func (c *client) WithNamespace(ns string, all bool) *client {
	return &client{c.Client.WithNamespace(ns, all)}
}

// checkWritable refuses op, as Runner.Apply does, when the client is read-only:
// the wrappers refuse before they plan, as the CLI does.
func (c *client) checkWritable(op string) error {
	if c.ReadOnly() {
		return kube.ReadOnlyError(op)
	}
	return nil
}

// checker is the kube.Checker that reads through c.
func (c *client) checker() *kube.Checker { return kube.NewChecker(c.Client) }
