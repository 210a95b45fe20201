package kube_test

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/internal/testcluster"
)

// cluster is the real API server and etcd every test in this package runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &cluster, &kubetest.Cluster) }

// The helpers the tests of kube and of kube/ops share (internal/kubetest), by the
// names these tests use.
var (
	writeKubeconfig = kubetest.WriteKubeconfig
	adminKubeconfig = kubetest.AdminKubeconfig
	connect         = kubetest.Connect
	decode          = kubetest.Decode
	gc              = kubetest.GC
	tryConnect      = kubetest.TryConnect
	parseOptions    = kubetest.ParseOptions
	noise           = kubetest.Noise
	baseTime        = kubetest.BaseTime
	makeRelease     = kubetest.MakeRelease
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
