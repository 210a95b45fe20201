package ops_test

import (
	"context"
	"testing"

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

// connect builds a connection the way chunkview's main does (kubetest.Connect);
// tryConnect returns the error.
var (
	connect    = kubetest.Connect
	tryConnect = kubetest.TryConnect
)

// planOf reads the revisions of release name and makes the plan an operation
// starts from, as a command by name does.
func planOf(ctx context.Context, c *kube.Client, ns, name string) (*ops.Plan, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return ops.NewPlan(ns, rows)
}

// planner is one of the runner's Plan methods with its arguments bound.
type planner[O ops.Operation] func(context.Context, *ops.Runner, *ops.Plan) (O, error)

// planByName plans an operation on release name with pl, from its revisions
// (planOf), on a runner of its own.
func planByName[O ops.Operation](ctx context.Context, c *kube.Client, ns, name string, pl planner[O]) (O, error) {
	p, err := planOf(ctx, c, ns, name)
	if err != nil {
		var none O
		return none, err
	}
	return pl(ctx, ops.NewRunner(c), p)
}

// applyByName plans an operation on release name with pl and applies it with
// Runner.Apply, as a command does once confirmed: one runner plans and
// applies. It returns the operation as planned.
func applyByName[O ops.Operation](ctx context.Context, c *kube.Client, ns, name string, pl planner[O]) (O, error) {
	rn := ops.NewRunner(c)
	p, err := planOf(ctx, c, ns, name)
	if err != nil {
		var none O
		return none, err
	}
	op, err := pl(ctx, rn, p)
	if err != nil {
		return op, err
	}
	return op, rn.Apply(ctx, op)
}

// rollbackPlan is Runner.PlanRollback to revision rev.
func rollbackPlan(rev int, opts kube.DiffOptions) planner[*ops.Rollback] {
	return func(ctx context.Context, rn *ops.Runner, p *ops.Plan) (*ops.Rollback, error) {
		return rn.PlanRollback(ctx, p, rev, opts)
	}
}

// uninstallPlan is Runner.PlanUninstall.
func uninstallPlan(keepHistory bool) planner[*ops.Uninstall] {
	return func(ctx context.Context, rn *ops.Runner, p *ops.Plan) (*ops.Uninstall, error) {
		return rn.PlanUninstall(ctx, p, keepHistory)
	}
}

// deleteRevisionPlan is Runner.PlanDeleteRevision of revision rev.
func deleteRevisionPlan(rev int, force bool) planner[*ops.DeleteRevision] {
	return func(ctx context.Context, rn *ops.Runner, p *ops.Plan) (*ops.DeleteRevision, error) {
		return rn.PlanDeleteRevision(ctx, p, rev, force)
	}
}

// fixStuckPlan is Runner.PlanFixStuck with fix ("" plans no fix: it says whether
// the release is stuck).
func fixStuckPlan(fix ops.StuckFix) planner[*ops.FixStuck] {
	return func(ctx context.Context, rn *ops.Runner, p *ops.Plan) (*ops.FixStuck, error) {
		return rn.PlanFixStuck(ctx, p, fix)
	}
}
