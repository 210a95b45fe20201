package ui

import (
	"testing"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// cluster is the real API server and etcd of the program tests that run against
// one (program_real_test.go); the other tests use the demo's in-memory cluster.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	screentest.Setup()
	testcluster.Main(m, &cluster, &kubetest.Cluster)
}

// The screens' test kit (ui/internal/screentest), by the names these tests use.
type fixture = screentest.Fixture

var (
	testNow       = screentest.Now
	newFixture    = screentest.NewFixture
	testConfig    = screentest.Config
	simpleRelease = screentest.SimpleRelease
	webRelease    = screentest.WebRelease
	demoClient    = screentest.DemoClient
	storeRow      = screentest.StoreRow
	mixedRows     = screentest.MixedRows
	lokiHistory   = screentest.LokiHistory
	lokiLayout    = screentest.LokiLayout
	fakeStatus    = screentest.FakeStatus
)

const fixtureChunkSize = screentest.ChunkSize
